import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { DEVELOPMENT_STORAGE } from '../shared/config';
import type { Logger } from '../shared/logging/logger';
import { AZURITE_QUEUE_PORT, isListening, startAzuriteQueue, type RunningAzurite } from './azurite';

/**
 * Which Azurite the local host may use for development storage, and when it refuses.
 *
 * The queue endpoint comes from `AzureWebJobsStorage`, the one setting both hosts and the app read:
 * `UseDevelopmentStorage=true` means 127.0.0.1:10001; an Azurite connection string (account
 * `devstoreaccount1`, a loopback `QueueEndpoint`) names another port. Nothing listening there: the
 * host starts Azurite on it (data in `.data/azurite/`) and leaves a marker with Azurite's process
 * id, so a second local host of this project uses that one. Something listening there:
 * - not Azurite's queue service (its answers lack `Server: Azurite-Queue/…`): refused;
 * - an Azurite a local host of this project started (the marker names the port and a live pid): used;
 * - another Azurite (another project's, or one run by hand): used when the connection string names
 *   its port explicitly (the developer chose it), refused behind `UseDevelopmentStorage=true`,
 *   where it would silently share another project's queues.
 * A refusal is an `AzuriteRefusedError` whose message says what to do; the host exits 1 with it.
 */

/** The Azurite queue endpoint the storage connection string asks for, when it is development storage. */
export interface DevelopmentQueueEndpoint {
  port: number;
  /** `UseDevelopmentStorage=true`: the port was not chosen, so only our own Azurite may answer on it. */
  implicit: boolean;
}

export class AzuriteRefusedError extends Error {
  override readonly name = 'AzuriteRefusedError';
}

const MARKER_FILE = 'local-host-azurite.json';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The Azurite endpoint of a storage connection string: `UseDevelopmentStorage=true` (port 10001),
 * or an Azurite connection string with a loopback `QueueEndpoint`; undefined for anything else.
 */
export function developmentQueueEndpoint(connectionString: string | undefined): DevelopmentQueueEndpoint | undefined {
  if (!connectionString) return undefined;
  const parts = new Map(
    connectionString
      .split(';')
      .filter((part) => part.includes('='))
      .map((part) => [part.slice(0, part.indexOf('=')).trim().toLowerCase(), part.slice(part.indexOf('=') + 1).trim()]),
  );
  if (connectionString.trim().replace(/;$/, '') === DEVELOPMENT_STORAGE || parts.get('usedevelopmentstorage')?.toLowerCase() === 'true') {
    return { port: AZURITE_QUEUE_PORT, implicit: true };
  }
  if (parts.get('accountname') !== 'devstoreaccount1') return undefined;
  const queueEndpoint = parts.get('queueendpoint');
  if (!queueEndpoint) return undefined;
  try {
    const url = new URL(queueEndpoint);
    if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname)) return undefined;
    return { port: Number(url.port || 80), implicit: false };
  } catch {
    return undefined;
  }
}

/**
 * Makes sure our Azurite serves `endpoint`: starts one when the port is free, uses the one there
 * when the rules above allow it, else throws `AzuriteRefusedError`.
 * @returns the Azurite it started (the caller stops it), or undefined when it uses a running one.
 */
export async function ensureAzurite(appRoot: string, endpoint: DevelopmentQueueEndpoint, logger: Logger): Promise<RunningAzurite | undefined> {
  const location = path.join(appRoot, '.data', 'azurite');
  if (await isListening('127.0.0.1', endpoint.port)) {
    await checkRunningAzurite(location, endpoint, logger);
    return undefined;
  }
  let azurite: RunningAzurite;
  try {
    azurite = await startAzuriteQueue({ port: endpoint.port, location, logFile: path.join(location, 'azurite.log') });
  } catch (error) {
    // Another local host may have started one between the check and the start: the same rules apply.
    if (await isListening('127.0.0.1', endpoint.port)) {
      await checkRunningAzurite(location, endpoint, logger);
      return undefined;
    }
    throw error;
  }
  const marker = path.join(location, MARKER_FILE);
  writeFileSync(marker, JSON.stringify({ pid: azurite.pid, port: azurite.port }));
  logger.info({ port: azurite.port }, 'azurite queue service started');
  return {
    ...azurite,
    stop: async () => {
      await azurite.stop();
      if (readMarker(location)?.pid === azurite.pid) rmSync(marker, { force: true });
    },
  };
}

async function checkRunningAzurite(location: string, endpoint: DevelopmentQueueEndpoint, logger: Logger): Promise<void> {
  const { port } = endpoint;
  if (!(await answersAsAzurite(port))) {
    throw new AzuriteRefusedError(
      `Port ${port} on 127.0.0.1 (the queue endpoint of AzureWebJobsStorage) is taken by a process that is not Azurite's queue service. ` +
        'Stop that process, or give Azurite another port: set AzureWebJobsStorage to the Azurite connection string with ' +
        `QueueEndpoint=http://127.0.0.1:<free port>/devstoreaccount1 (docs/configuration.md, AzureWebJobsStorage).`,
    );
  }
  const marker = readMarker(location);
  if (marker?.port === port && isAlive(marker.pid)) {
    logger.info({ port }, 'using the azurite queue service another local host started');
    return;
  }
  if (endpoint.implicit) {
    throw new AzuriteRefusedError(
      `An Azurite this project did not start listens on 127.0.0.1:${port} (another project's, or one started by hand); ` +
        "UseDevelopmentStorage=true would share its queues. Stop it and let the local host start its own, or use it on purpose: set AzureWebJobsStorage to its connection string with " +
        `QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1 (docs/configuration.md, AzureWebJobsStorage).`,
    );
  }
  logger.info({ port }, 'using the azurite queue service AzureWebJobsStorage names');
}

/** True when the port answers HTTP as Azurite's queue service does (`Server: Azurite-Queue/<version>`). */
export function answersAsAzurite(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request({ host: '127.0.0.1', port, path: '/devstoreaccount1?comp=list', method: 'GET', timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(/^Azurite-Queue\//.test(String(response.headers.server ?? '')));
    });
    probe.on('timeout', () => probe.destroy());
    probe.on('error', () => resolve(false));
    probe.end();
  });
}

function readMarker(location: string): { pid: number; port: number } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path.join(location, MARKER_FILE), 'utf8')) as { pid?: unknown; port?: unknown };
    return typeof parsed.pid === 'number' && typeof parsed.port === 'number' ? { pid: parsed.pid, port: parsed.port } : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
