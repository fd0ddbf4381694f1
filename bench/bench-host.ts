import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The project root (this file runs from `dist/bench/`). */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
/** Scratch space of a bench run (git-ignored): the bench app root and its SQLite database. */
export const BENCH_TMP = path.join(PROJECT_ROOT, 'bench', 'tmp');

const HOST_ENTRY = path.join(PROJECT_ROOT, 'dist', 'devhost', 'main.js');
const BENCH_APP_ENTRY = path.join(PROJECT_ROOT, 'dist', 'bench', 'bench-app.js');

export interface BenchHost {
  baseUrl: string;
  /** The host process, for RSS readings. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the project's local host (`dist/devhost/main.js`) on a free port with the production
 * app plus the bench-only `{}` endpoint. The host loads the app of its current directory, as
 * `func start` does, so the bench gives it an app root of its own: the project's host.json and
 * a package.json whose `main` is `dist/bench/bench-app.js`. The project's package.json, and so the
 * deployed app, never names a bench file.
 * @param env the app settings (the environment is not inherited, apart from PATH and HOME).
 */
export async function startBenchHost(env: Record<string, string>, timeoutMs = 30_000): Promise<BenchHost> {
  const appRoot = path.join(BENCH_TMP, 'app');
  mkdirSync(appRoot, { recursive: true });
  copyFileSync(path.join(PROJECT_ROOT, 'host.json'), path.join(appRoot, 'host.json'));
  // load-app expands `main` relative to the app root, with `/` separators on every platform.
  const main = path.relative(appRoot, BENCH_APP_ENTRY).split(path.sep).join('/');
  writeFileSync(path.join(appRoot, 'package.json'), `${JSON.stringify({ name: 'bench-app', private: true, main }, null, 2)}\n`);

  const child = spawn(process.execPath, [HOST_ENTRY], {
    cwd: appRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', DEVHOST_SKIP_LOCAL_SETTINGS: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8192)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  // Only the "listening" line matters; afterwards stdout is drained unread, so parsing thousands
  // of log lines does not take CPU from the host being measured.
  const port = await new Promise<number>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`the local host did not listen within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const parsed = parseJsonLine(line);
        if (parsed?.message !== 'local host listening') continue;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(Number(parsed.port));
        return;
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the local host exited with ${String(code)} before listening:\n${stderr}`));
    });
  });
  if (child.pid === undefined) throw new Error('the local host has no process id');

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null) return;
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killTimer);
    },
  };
}

function parseJsonLine(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
