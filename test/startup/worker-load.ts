import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export interface LoadedProcess {
  /** Resolves with how the process ended and everything it wrote. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string[]; stderr: string }>;
  /** Resolves once the process said (on stderr) that the app is loaded and its start hooks ran. */
  loaded: Promise<{ sigtermListeners: number; sigintListeners: number; registrations: number }>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Runs the built app the way the Azure Functions Node.js worker does, without any host around it:
 * `@azure/functions-core` provided (the local host's shim), every file of package.json `main`
 * required in order, registration closed, `appStart` hooks run; then the process idles as a worker
 * does between invocations (its gRPC stream keeps the event loop alive), with no signal handler of
 * its own: the Node.js worker installs none.
 */
export function loadLikeTheWorker(env: Record<string, string>): LoadedProcess {
  const script = `
    const path = require('node:path');
    const root = ${JSON.stringify(ROOT)};
    const { installFunctionsCore } = require(path.join(root, 'dist/devhost/functions-core-shim.js'));
    const { entryPointFiles } = require(path.join(root, 'dist/devhost/load-app.js'));
    const core = installFunctionsCore(() => undefined);
    for (const file of entryPointFiles(root)) require(file);
    core.closeRegistration();
    const keepAlive = setInterval(() => undefined, 60_000);
    (async () => {
      for (const hook of core.hooks('appStart')) await hook({ hookData: {}, appHookData: {}, functionAppDirectory: root });
      process.stderr.write('LOADED ' + JSON.stringify({
        sigtermListeners: process.listenerCount('SIGTERM'),
        sigintListeners: process.listenerCount('SIGINT'),
        registrations: core.registrations().length,
      }) + '\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onLoaded: (value: { sigtermListeners: number; sigintListeners: number; registrations: number }) => void = () => undefined;
  const loaded = new Promise<{ sigtermListeners: number; sigintListeners: number; registrations: number }>((resolve) => (onLoaded = resolve));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const match = /^LOADED (.*)$/m.exec(stderr);
    if (match?.[1]) onLoaded(JSON.parse(match[1]) as { sigtermListeners: number; sigintListeners: number; registrations: number });
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string[]; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout: stdout.split('\n').filter((line) => line !== ''), stderr })),
  );
  return { ended, loaded, kill: (signal) => child.kill(signal) };
}
