import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LogSink } from '../../test/helpers/log-sink';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import { createLogger } from '../logging/logger';
import { DATABASE_RETRY_POLICY } from '../resilience/retry-with-backoff';
import { createMssqlDatabase } from './mssql-database';

/** Without a SQL Server here, the adapter's connection handling is tested against a port that refuses. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('createMssqlDatabase without a reachable server', () => {
  it('rejects ping with DependencyUnavailableError after its retries, tries again on the next call, and closes cleanly', async () => {
    const port = await closedPort();
    const sink = new LogSink();
    const db = createMssqlDatabase(`Server=127.0.0.1,${port};Database=platform;User Id=app;Password=CanaryS3cret;Connection Timeout=5`, {
      logger: createLogger({ service: 'api', level: 'info', destination: sink }),
      retry: { sleep: async () => undefined },
    });
    cleanups.push(() => db.close());

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await db.ping().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(String((error as Error).message)).not.toContain('CanaryS3cret');
    }
    // The real driver's refused connection is one that never sent anything: retried every time.
    const retries = sink.withMessage('database operation failed for a passing reason: retrying');
    expect(retries).toHaveLength(2 * (DATABASE_RETRY_POLICY.maxAttempts - 1));
    expect(retries[0]).toMatchObject({ level: 'warn', operation: 'query', driverCode: 'ESOCKET' });
    expect(sink.text).not.toContain('CanaryS3cret');
    await expect(db.transaction(async () => 1)).rejects.toBeInstanceOf(DependencyUnavailableError);
    await db.close();
    await expect(db.ping()).rejects.toThrow(/closed/);
  });
});
