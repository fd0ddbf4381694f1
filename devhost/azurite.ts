import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';

/** Azurite's well-known development account key: public, documented, useless outside the emulator. */
export const AZURITE_ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
export const AZURITE_QUEUE_PORT = 10001;

/** A connection string for an Azurite queue service on another port than `UseDevelopmentStorage=true`'s 10001. */
export function azuriteQueueConnectionString(port: number, host = '127.0.0.1'): string {
  return `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${AZURITE_ACCOUNT_KEY};QueueEndpoint=http://${host}:${port}/devstoreaccount1;`;
}

export interface AzuriteOptions {
  host?: string;
  /** 0 picks a free port (tests); default 10001. */
  port?: number;
  /** Where queues persist; omitted means in memory (tests). */
  location?: string;
  /** Azurite's own output goes here, never to the host's stdout. */
  logFile: string;
  startTimeoutMs?: number;
}

export interface RunningAzurite {
  port: number;
  /** Azurite's process id (the local host's ownership marker names it). */
  pid: number;
  connectionString: string;
  stop(): Promise<void>;
}

/** True when something accepts TCP connections on host:port (a developer's own Azurite, say). */
export function isListening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (listening: boolean): void => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Starts Azurite's queue service as a child process and resolves once it listens (the port it
 * reports, so port 0 works). The caller owns the process: `stop()` ends it.
 */
export async function startAzuriteQueue(options: AzuriteOptions): Promise<RunningAzurite> {
  const host = options.host ?? '127.0.0.1';
  const args = [
    require.resolve('azurite/dist/src/queue/main.js'),
    '--queueHost',
    host,
    '--queuePort',
    String(options.port ?? AZURITE_QUEUE_PORT),
    '--skipApiVersionCheck',
    '--disableTelemetry',
    '--silent',
    ...(options.location ? ['--location', options.location] : ['--inMemoryPersistence']),
  ];
  if (options.location) mkdirSync(options.location, { recursive: true });
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  // If the owner dies without stop() (a crash, a killed test worker), Azurite must not outlive it.
  const killOnExit = (): void => void child.kill();
  process.once('exit', killOnExit);
  void exited.then(() => {
    process.off('exit', killOnExit);
    log.end();
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`Azurite did not start within ${options.startTimeoutMs ?? 15_000} ms; see ${options.logFile}`)),
        options.startTimeoutMs ?? 15_000,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-4096);
        const listening = /successfully listens on https?:\/\/[^\s]*:(\d+)/.exec(output);
        if (listening) {
          clearTimeout(timer);
          resolve(Number(listening[1]));
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`Azurite exited before listening; see ${options.logFile}`));
      });
    });
    return { port, pid: child.pid ?? -1, connectionString: azuriteQueueConnectionString(port, host), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
