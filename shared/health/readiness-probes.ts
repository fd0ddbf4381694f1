import type { QueueServiceClient } from '@azure/storage-queue';
import type { Config } from '../config';
import type { DatabaseProvider } from '../db/lazy-database';
import { createQueueServiceClient } from '../storage/queue-service';
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
export function queueProbe(storage: NonNullable<Config['queueStorage']>): ReadinessProbe {
  let client: QueueServiceClient | undefined;
  return {
    dependency: 'queue',
    async check(signal) {
      client ??= createQueueServiceClient(storage, { retryOptions: { maxTries: 1 } });
      await client.getProperties({ abortSignal: signal });
    },
  };
}
