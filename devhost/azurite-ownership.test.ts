import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { azuriteQueueConnectionString, startAzuriteQueue, type RunningAzurite } from './azurite';
import { AzuriteRefusedError, answersAsAzurite, developmentQueueEndpoint, ensureAzurite } from './azurite-ownership';
import { captureHostLogs } from './test-fixtures/host-log-capture';

const workDir = mkdtempSync(path.join(tmpdir(), 'azurite-ownership-'));
const { logger, logged } = captureHostLogs();
let foreignAzurite: RunningAzurite;

beforeAll(async () => {
  // Another project's Azurite: running, but not started by a local host of this app root.
  foreignAzurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'foreign-azurite.log'), startTimeoutMs: 10_000 });
});

afterAll(async () => {
  await foreignAzurite?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

async function listen<T extends Server | HttpServer>(server: T): Promise<{ server: T; port: number }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function freePort(): Promise<number> {
  const { server, port } = await listen(createTcpServer());
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const appRoot = (name: string): string => mkdtempSync(path.join(workDir, `${name}-`));

describe('developmentQueueEndpoint', () => {
  it('reads the Azurite port from development storage or an Azurite connection string, nothing else', () => {
    expect(developmentQueueEndpoint('UseDevelopmentStorage=true')).toEqual({ port: 10001, implicit: true });
    expect(developmentQueueEndpoint(azuriteQueueConnectionString(10_501))).toEqual({ port: 10_501, implicit: false });
    expect(developmentQueueEndpoint(azuriteQueueConnectionString(10_502, 'localhost'))).toEqual({ port: 10_502, implicit: false });
    expect(developmentQueueEndpoint(undefined)).toBeUndefined();
    expect(developmentQueueEndpoint('DefaultEndpointsProtocol=https;AccountName=prodaccount;AccountKey=abc;EndpointSuffix=core.windows.net')).toBeUndefined();
    // The emulator's account on a host elsewhere is not this machine's Azurite to manage.
    expect(developmentQueueEndpoint(azuriteQueueConnectionString(10_001, '10.0.0.5'))).toBeUndefined();
  });
});

describe('ensureAzurite', () => {
  it('tells Azurite from other listeners by its answers', async () => {
    expect(await answersAsAzurite(foreignAzurite.port)).toBe(true);
    const { server, port } = await listen(createHttpServer((_, res) => res.end('hello')));
    try {
      expect(await answersAsAzurite(port)).toBe(false);
    } finally {
      server.close();
    }
  });

  it('refuses a port held by a process that is not Azurite (an HTTP server, a silent TCP listener), with what to do', async () => {
    const http = await listen(createHttpServer((_, res) => res.end('not azurite')));
    const held = new Set<Socket>();
    const silent = await listen(createTcpServer((socket) => void held.add(socket)));
    try {
      for (const port of [http.port, silent.port]) {
        for (const implicit of [true, false]) {
          const refused = await ensureAzurite(appRoot('foreign'), { port, implicit }, logger).catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(AzuriteRefusedError);
          expect((refused as Error).message).toContain(`Port ${port} on 127.0.0.1`);
          expect((refused as Error).message).toContain('not Azurite');
          expect((refused as Error).message).toContain('AzureWebJobsStorage');
        }
      }
    } finally {
      http.server.close();
      for (const socket of held) socket.destroy();
      silent.server.close();
    }
  });

  it('refuses an Azurite it did not start behind UseDevelopmentStorage=true, and uses it when the connection string names its port', async () => {
    const refused = await ensureAzurite(appRoot('implicit'), { port: foreignAzurite.port, implicit: true }, logger).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AzuriteRefusedError);
    expect((refused as Error).message).toContain('did not start');
    expect(await ensureAzurite(appRoot('explicit'), { port: foreignAzurite.port, implicit: false }, logger)).toBeUndefined();
    expect(logged()).toContainEqual(expect.objectContaining({ message: 'using the azurite queue service AzureWebJobsStorage names', port: foreignAzurite.port }));
  });

  it('starts its own Azurite on a free port with a marker, which a second local host of the project then uses; stopping removes the marker', async () => {
    const root = appRoot('own');
    const port = await freePort();
    const started = await ensureAzurite(root, { port, implicit: true }, logger);
    expect(started?.port).toBe(port);
    const marker = path.join(root, '.data', 'azurite', 'local-host-azurite.json');
    try {
      expect(JSON.parse(readFileSync(marker, 'utf8'))).toEqual({ pid: started?.pid, port });
      // A second local host of the same project, behind UseDevelopmentStorage=true: ours, so used.
      expect(await ensureAzurite(root, { port, implicit: true }, logger)).toBeUndefined();
      expect(logged()).toContainEqual(expect.objectContaining({ message: 'using the azurite queue service another local host started', port }));
      // The same Azurite is foreign to another project's root.
      await expect(ensureAzurite(appRoot('other-project'), { port, implicit: true }, logger)).rejects.toBeInstanceOf(AzuriteRefusedError);
    } finally {
      await started?.stop();
    }
    expect(existsSync(marker)).toBe(false);
  }, 30_000);
});
