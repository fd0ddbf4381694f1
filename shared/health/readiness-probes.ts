import { QueueServiceClient } from '@azure/storage-queue';
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
  const client = QueueServiceClient.fromConnectionString(connectionString, { retryOptions: { maxTries: 1 } });
  return {
    dependency: 'queue',
    async check(signal) {
      await client.getProperties({ abortSignal: signal });
    },
  };
}
