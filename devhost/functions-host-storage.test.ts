import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isListening } from './azurite';
import { ensureFunctionsHostStorage, type AzuritePorts } from './functions-host-storage';

/** Azurite for `func start`, on free ports instead of 10000-10002 so a developer's own emulator is left alone. */
let appRoot: string;
let servers: Server[] = [];
const notes: string[] = [];
const note = (message: string): void => void notes.push(message);

function listen(port = 0): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(port, '127.0.0.1', () => resolve(server));
    servers.push(server);
  });
}

async function freePorts(): Promise<AzuritePorts> {
  const held = await Promise.all([listen(), listen(), listen()]);
  const [blob, queue, table] = held.map((server) => (server.address() as { port: number }).port) as [number, number, number];
  await closeAll();
  return { blob, queue, table };
}

async function closeAll(): Promise<void> {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
}

const allListening = async (ports: AzuritePorts): Promise<boolean[]> =>
  Promise.all([ports.blob, ports.queue, ports.table].map((port) => isListening('127.0.0.1', port)));

beforeEach(() => {
  appRoot = mkdtempSync(path.join(tmpdir(), 'func-storage-'));
  notes.length = 0;
});

afterEach(async () => {
  await closeAll();
  rmSync(appRoot, { recursive: true, force: true });
});

describe('Azurite for func start', () => {
  it('starts blob, queue and table behind the development storage, with its data under .data/azurite, and stops them', async () => {
    const ports = await freePorts();
    const storage = await ensureFunctionsHostStorage(appRoot, 'UseDevelopmentStorage=true', note, ports);
    expect(storage).toBeDefined();
    expect(await allListening(ports)).toEqual([true, true, true]);
    expect(notes).toEqual(['started Azurite (blob, queue, table) with its data under .data/azurite/']);
    await storage?.stop();
    expect(await allListening(ports)).toEqual([false, false, false]);
  });

  it('leaves a real storage account alone', async () => {
    const ports = await freePorts();
    const setting = 'DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=a2V5;EndpointSuffix=core.windows.net';
    expect(await ensureFunctionsHostStorage(appRoot, setting, note, ports)).toBeUndefined();
    expect(await allListening(ports)).toEqual([false, false, false]);
  });

  it('uses an emulator already listening on all three ports', async () => {
    const ports = await freePorts();
    await Promise.all([listen(ports.blob), listen(ports.queue), listen(ports.table)]);
    expect(await ensureFunctionsHostStorage(appRoot, 'UseDevelopmentStorage=true;', note, ports)).toBeUndefined();
    expect(notes).toEqual([`using the storage emulator already listening on ports ${ports.blob}, ${ports.queue}, ${ports.table}`]);
  });

  it('refuses when only some of the ports are taken, naming them', async () => {
    const ports = await freePorts();
    await listen(ports.queue);
    await expect(ensureFunctionsHostStorage(appRoot, 'UseDevelopmentStorage=true', note, ports)).rejects.toThrow(
      `port ${ports.queue} taken but not all of ${ports.blob}, ${ports.queue}, ${ports.table}`,
    );
  });
});
