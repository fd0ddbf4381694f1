import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DEVELOPMENT_STORAGE } from '../shared/config';
import { isListening } from './azurite';

/**
 * Azurite for `func start`, when `npm start` runs the real Functions host. The host itself needs all
 * three of the emulator's services behind `UseDevelopmentStorage=true` (blobs for its locks and the
 * timers' schedule, queues for the triggers, tables for the durable bits), while the project's own
 * local host needs only queues (devhost/azurite-ownership.ts).
 */
export const AZURITE_PORTS: AzuritePorts = { blob: 10000, queue: 10001, table: 10002 };

export interface AzuritePorts {
  blob: number;
  queue: number;
  table: number;
}

export interface FunctionsHostStorage {
  /** Ends the Azurite that `npm start` started and resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts Azurite (blob, queue, table; data and output under `.data/azurite/`) when the storage setting is the
 * development storage and none of its ports is taken; uses an Azurite already listening on all three;
 * does nothing for a real storage account. Refuses (throws, for `npm start` to print) when only some of
 * the ports are taken: the host would then mix an emulator with something else.
 */
export async function ensureFunctionsHostStorage(
  appRoot: string,
  storageSetting: string | undefined,
  note: (message: string) => void,
  /** Tests move them off the well-known ports. */
  ports: AzuritePorts = AZURITE_PORTS,
): Promise<FunctionsHostStorage | undefined> {
  if (storageSetting?.trim().replace(/;$/, '') !== DEVELOPMENT_STORAGE) return undefined;
  const all = [ports.blob, ports.queue, ports.table];
  const named = all.join(', ');
  const taken = await Promise.all(all.map((port) => isListening('127.0.0.1', port)));
  if (taken.every(Boolean)) {
    note(`using the storage emulator already listening on ports ${named}`);
    return undefined;
  }
  if (taken.some(Boolean)) {
    throw new Error(
      `port ${all.filter((_, index) => taken[index]).join(', ')} taken but not all of ${named}: stop what holds them, or start Azurite with all three services (npx azurite).`,
    );
  }
  const location = path.join(appRoot, '.data', 'azurite');
  mkdirSync(location, { recursive: true });
  const log = createWriteStream(path.join(location, 'azurite.log'), { flags: 'a' });
  const child = spawn(
    process.execPath,
    [
      require.resolve('azurite/dist/src/azurite.js'),
      ...['--blobPort', String(ports.blob), '--queuePort', String(ports.queue), '--tablePort', String(ports.table)],
      ...['--location', location, '--skipApiVersionCheck', '--disableTelemetry', '--silent'],
    ],
    { cwd: appRoot, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true },
  );
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  child.once('exit', () => log.end());
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  // If npm start dies without stopping it, the emulator must not outlive it.
  process.once('exit', () => child.kill('SIGTERM'));
  await waitUntilListening(child, all, 20_000);
  note(`started Azurite (blob, queue, table) with its data under ${path.relative(appRoot, location)}/`);
  return { stop };
}

async function waitUntilListening(child: ChildProcess, ports: readonly number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('Azurite exited before listening; see .data/azurite/azurite.log');
    const listening = await Promise.all(ports.map((port) => isListening('127.0.0.1', port)));
    if (listening.every(Boolean)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`Azurite did not listen on ports ${ports.join(', ')} within ${timeoutMs / 1000} s; see .data/azurite/azurite.log`);
}
