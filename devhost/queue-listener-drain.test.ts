import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueueServiceClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzuriteQueue, type RunningAzurite } from './azurite';
import type { QueueSettings } from './host-json';
import { startQueueListener } from './queue-listener';
import { captureHostLogs } from './test-fixtures/host-log-capture';

/**
 * A shutdown inside the platform's grace period: `stop(drainMs)` waits for messages in flight no
 * longer than `drainMs`, so a function that hangs cannot hold the host past its grace.
 */
const workDir = mkdtempSync(path.join(tmpdir(), 'local-host-queue-drain-'));
const { logger, logged } = captureHostLogs();
const settings: QueueSettings = {
  batchSize: 4,
  newBatchThreshold: 2,
  maxDequeueCount: 3,
  visibilityTimeoutMs: 0,
  maxPollingIntervalMs: 200,
  messageEncoding: 'base64',
};

let azurite: RunningAzurite;
let service: QueueServiceClient;

beforeAll(async () => {
  azurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log'), startTimeoutMs: 10_000 });
  service = QueueServiceClient.fromConnectionString(azurite.connectionString);
});

afterAll(async () => {
  await azurite?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

async function listenerWithOneRunningMessage(invoke: () => Promise<void>) {
  const name = `q-${randomBytes(6).toString('hex')}`;
  const queue = service.getQueueClient(name);
  await queue.create();
  await queue.sendMessage(Buffer.from('{"kind":"slow"}').toString('base64'));
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (started = resolve));
  const listener = startQueueListener({
    functionName: 'slow',
    queue,
    poisonQueue: service.getQueueClient(`${name}-poison`),
    settings,
    logger,
    invoke: async () => {
      started();
      await invoke();
    },
  });
  await running;
  return listener;
}

describe('queue listener stop(drainMs)', () => {
  it('stops waiting for a message still running once drainMs has passed', async () => {
    let finish: () => void = () => undefined;
    const listener = await listenerWithOneRunningMessage(() => new Promise<void>((resolve) => (finish = resolve)));
    const stoppingAt = Date.now();
    await listener.stop(300);
    const tookMs = Date.now() - stoppingAt;
    expect(tookMs).toBeGreaterThanOrEqual(290);
    expect(tookMs).toBeLessThan(2_000);
    expect(logged().find((line) => line.message === 'queue listener stopped with messages still running')).toMatchObject({
      level: 'warn',
      functionName: 'slow',
      inFlight: 1,
      drainMs: 300,
    });
    finish();
  });

  it('waits for a message that finishes within drainMs, and for nothing more', async () => {
    const listener = await listenerWithOneRunningMessage(() => new Promise<void>((resolve) => setTimeout(resolve, 100)));
    const stoppingAt = Date.now();
    await listener.stop(5_000);
    expect(Date.now() - stoppingAt).toBeLessThan(2_000);
  });
});
