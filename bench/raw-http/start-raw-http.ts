import { spawn } from 'node:child_process';
import path from 'node:path';
import type { BenchHost } from '../bench-host';

const SERVER_ENTRY = path.join(__dirname, 'server.js');

/**
 * Starts the raw `node:http` floor (`server.ts`) in a child process, so it gets a process and an
 * event loop of its own, as the local host does, and the client reaches both the same way.
 * @returns the same handle as the local host: base URL, pid (for RSS readings), stop.
 */
export async function startRawHttpServer(timeoutMs = 10_000): Promise<BenchHost> {
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`the raw node:http server did not listen within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const newline = pending.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      resolve(Number((JSON.parse(pending.slice(0, newline)) as { port: unknown }).port));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the raw node:http server exited with ${String(code)} before listening:\n${stderr}`));
    });
  });
  if (child.pid === undefined) throw new Error('the raw node:http server has no process id');
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killTimer);
    },
  };
}
