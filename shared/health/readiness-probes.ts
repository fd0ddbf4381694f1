import type { DatabaseProvider } from '../db/lazy-database';
import type { ReadinessProbe } from './check-readiness';

/** The database answers a real statement (opening it first if it never opened). */
export function databaseProbe(database: DatabaseProvider): ReadinessProbe {
  return {
    dependency: 'database',
    async check() {
      const db = await database.get();
      await db.ping();
    },
  };
}

/** The queue service of `AzureWebJobsStorage` answers a service-properties call. */
export function queueProbe(connectionString: string): ReadinessProbe {
  let client: import('@azure/storage-queue').QueueServiceClient | undefined;
  return {
    dependency: 'queue',
    async check(signal) {
      // Loaded on the first probe, not at start-up: the storage SDK is a large share of a cold start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { QueueServiceClient } = require('@azure/storage-queue') as typeof import('@azure/storage-queue');
      client ??= QueueServiceClient.fromConnectionString(connectionString, { retryOptions: { maxTries: 1 } });
      await client.getProperties({ abortSignal: signal });
    },
  };
}
