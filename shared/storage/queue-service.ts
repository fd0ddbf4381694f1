import type { QueueServiceClient, StoragePipelineOptions } from '@azure/storage-queue';
import type { Config } from '../config';

/**
 * The queue service of the app's storage account: by connection string (Azurite locally), or by
 * the app's managed identity in Azure. The SDKs are loaded on first use: they are a large share
 * of a cold start.
 */
export function createQueueServiceClient(
  storage: NonNullable<Config['queueStorage']>,
  options: StoragePipelineOptions = {},
): QueueServiceClient {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const queues = require('@azure/storage-queue') as typeof import('@azure/storage-queue');
  if (storage.kind === 'connection-string') return queues.QueueServiceClient.fromConnectionString(storage.connectionString, options);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const identity = require('@azure/identity') as typeof import('@azure/identity');
  const credential = storage.clientId
    ? new identity.ManagedIdentityCredential({ clientId: storage.clientId })
    : new identity.DefaultAzureCredential();
  return new queues.QueueServiceClient(storage.queueServiceUri, credential, options);
}
