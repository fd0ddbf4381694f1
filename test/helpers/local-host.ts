import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { liveApiBaseUrls } from './live-api-hosts';
import { parseLogLine } from './log-schema';
import { NODE_RUNTIME_FLAGS } from '../../shared/lifecycle/node-runtime-flags';

export const PROJECT_ROOT = path.resolve(__dirname, '../..');
const HOST_ENTRY = path.join(PROJECT_ROOT, 'dist/devhost/main.js');

/** A running local host process, with every stdout line it wrote (each validated against the log schema). */
export interface LocalHost {
  baseUrl: string;
  /** Raw stdout lines, in order. */
  stdout: string[];
  /** Parsed stdout lines; a line that is not schema-valid JSON is kept in `invalidLines` instead. */
  lines: Record<string, unknown>[];
  invalidLines: { line: string; reason: string }[];
  stderr: string[];
  /** The host's process id (tests that signal it directly: SIGSTOP, SIGKILL). */
  pid: number;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once a line matching `predicate` has been written. */
  waitForLine(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<number | null>;
}

/**
 * Starts `dist/devhost/main.js` (the project's own Functions host) on a free port with `env`, and
 * resolves when it says it is listening. `npm test` builds dist/ first.
 */
export async function startLocalHost(env: Record<string, string>, timeoutMs = 30_000): Promise<LocalHost> {
  if (!existsSync(HOST_ENTRY)) throw new Error(`${HOST_ENTRY} is missing: run \`npm run build\` (npm test does it)`);
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(process.execPath, [...NODE_RUNTIME_FLAGS, HOST_ENTRY], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', DEVHOST_SKIP_LOCAL_SETTINGS: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const host: LocalHost & { waiters: { predicate: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }[] } = {
    baseUrl: '',
    pid: child.pid ?? -1,
    exited: exit,
    stdout: [],
    lines: [],
    invalidLines: [],
    stderr: [],
    waiters: [],
    waitForLine(predicate, waitMs = 10_000) {
      const found = host.lines.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log line within ${waitMs} ms; stderr:\n${host.stderr.join('')}`)), waitMs);
        host.waiters.push({
          predicate,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    stop() {
      return new Promise((resolve) => {
        // Killed by a signal (a test's SIGKILL): there is no exit code and no 'exit' event to come.
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', (code) => {
          clearTimeout(killTimer);
          resolve(code);
        });
        child.kill('SIGTERM');
      });
    },
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    host.stdout.push(line);
    try {
      const parsed = parseLogLine(line);
      host.lines.push(parsed);
      for (const waiter of [...host.waiters]) {
        if (waiter.predicate(parsed)) {
          host.waiters.splice(host.waiters.indexOf(waiter), 1);
          waiter.resolve(parsed);
        }
      }
    } catch (error) {
      host.invalidLines.push({ line, reason: (error as Error).message });
    }
  });
  child.stderr.on('data', (chunk: Buffer) => host.stderr.push(chunk.toString()));

  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`local host exited with ${code} before listening:\n${host.stdout.join('\n')}\n${host.stderr.join('')}`))),
  );
  const listening = await Promise.race([host.waitForLine((line) => line.message === 'local host listening', timeoutMs), exited]);
  host.baseUrl = `http://127.0.0.1:${String(listening.port)}`;
  liveApiBaseUrls.add(host.baseUrl);
  return host;
}
