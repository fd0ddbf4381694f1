import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueueServiceClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseLogLine } from '../test/helpers/log-schema';
import { startAzuriteQueue, type RunningAzurite } from './azurite';
import type { QueueSettings } from './host-json';
import { startQueueListener, type QueueListener } from './queue-listener';
import { captureHostLogs } from './test-fixtures/host-log-capture';

const workDir = mkdtempSync(path.join(tmpdir(), 'local-host-queue-'));
const { logger, lines, allLines, logged } = captureHostLogs();
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
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
const listeners: QueueListener[] = [];

beforeAll(async () => {
  // Port 0: never collides with a developer's Azurite on 10001.
  azurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log'), startTimeoutMs: 10_000 });
  service = QueueServiceClient.fromConnectionString(azurite.connectionString);
});

afterAll(async () => {
  await Promise.all(listeners.map((listener) => listener.stop()));
  await azurite?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const queueName = () => `q-${randomBytes(6).toString('hex')}`;

async function allMessages(name: string): Promise<string[]> {
  const response = await service.getQueueClient(name).peekMessages({ numberOfMessages: 32 });
  return response.peekedMessageItems.map((message) => message.messageText);
}

describe('queue listener against Azurite', () => {
  it('deletes handled messages, retries failures, and poisons after maxDequeueCount or when undecodable', async () => {
    const name = queueName();
    const queue = service.getQueueClient(name);
    await queue.create();
    const attempts: Record<string, number[]> = { good: [], flaky: [], bad: [] };
    const bad = base64(JSON.stringify({ kind: 'bad' }));
    await queue.sendMessage(base64(JSON.stringify({ kind: 'good' })));
    await queue.sendMessage(base64(JSON.stringify({ kind: 'flaky' })));
    await queue.sendMessage(bad);
    await queue.sendMessage('this is not base64!');

    listeners.push(
      startQueueListener({
        functionName: 'fan-out',
        queue,
        poisonQueue: service.getQueueClient(`${name}-poison`),
        settings,
        logger,
        invoke: async (input, metadata) => {
          const { kind } = input as { kind: string };
          attempts[kind]?.push(metadata.dequeueCount as number);
          if (kind === 'bad') throw new Error('always fails');
          if (kind === 'flaky' && (metadata.dequeueCount as number) < 3) throw new Error('fails twice');
        },
      }),
    );

    await eventually(async () => (await service.getQueueClient(`${name}-poison`).exists()) && (await allMessages(`${name}-poison`)).length === 2);
    await eventually(async () => (await allMessages(name)).length === 0 && attempts.flaky?.length === 3);

    expect(attempts).toEqual({ good: [1], flaky: [1, 2, 3], bad: [1, 2, 3] });
    expect((await allMessages(`${name}-poison`)).sort()).toEqual([bad, 'this is not base64!'].sort());
    expect((await queue.getProperties()).approximateMessagesCount).toBe(0);

    const errors = logged().filter((line) => line.level === 'error');
    expect(errors.filter((line) => line.message === 'function failed')).toHaveLength(5);
    const poisoned = errors.filter((line) => line.message === 'queue message moved to poison queue');
    expect(poisoned.map((line) => line.reason).sort()).toEqual(['maxDequeueCount reached', 'not valid base64']);
    expect(poisoned[0]).toMatchObject({ functionName: 'fan-out', queueName: name, poisonQueue: `${name}-poison` });
    expect(lines.join('\n')).not.toContain('kind');
  });

  it('creates a missing queue and keeps a failed message invisible for visibilityTimeout', async () => {
    const name = queueName();
    const queue = service.getQueueClient(name);
    const seenAt: number[] = [];
    listeners.push(
      startQueueListener({
        functionName: 'slow-retry',
        queue,
        poisonQueue: service.getQueueClient(`${name}-poison`),
        settings: { ...settings, visibilityTimeoutMs: 1_000, maxDequeueCount: 2, messageEncoding: 'none' },
        logger,
        invoke: async () => {
          seenAt.push(Date.now());
          throw new Error('fails');
        },
      }),
    );
    await eventually(() => queue.exists());
    await queue.sendMessage('plain text');
    await eventually(() => seenAt.length === 2);
    expect(seenAt[1]! - seenAt[0]!).toBeGreaterThanOrEqual(900);
    await eventually(async () => (await allMessages(`${name}-poison`)).length === 1);
  });

  it('keeps a message invisible while its function runs past the invisibility, and lets a killed one come back', async () => {
    const name = queueName();
    const queue = service.getQueueClient(name);
    await queue.create();
    const invocations: string[] = [];
    const processingVisibility = { seconds: 1, renewEveryMs: 300 };
    // Two hosts on one queue: while the first runs the function (3 s, three times the invisibility), the second never sees it.
    for (const host of ['first', 'second']) {
      listeners.push(
        startQueueListener({
          functionName: `long-${host}`,
          queue,
          poisonQueue: service.getQueueClient(`${name}-poison`),
          settings: { ...settings, messageEncoding: 'none' },
          logger,
          processingVisibility,
          invoke: async () => {
            invocations.push(host);
            await new Promise((resolve) => setTimeout(resolve, 3_000));
          },
        }),
      );
    }
    await queue.sendMessage('long work');
    await eventually(() => invocations.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(invocations).toHaveLength(1);
    await eventually(async () => (await queue.getProperties()).approximateMessagesCount === 0);

    // A message a killed host had taken (invisible for one lease, never renewed, never deleted) comes back after it.
    const orphanedAt = Date.now();
    await queue.sendMessage('orphaned', { visibilityTimeout: processingVisibility.seconds });
    await eventually(() => invocations.length === 2, 5_000);
    expect(Date.now() - orphanedAt).toBeGreaterThanOrEqual(900);
  });

  it("takes a message for the Functions host's 10 minutes at the dequeue and renews it halfway, by default", async () => {
    const name = queueName();
    const real = service.getQueueClient(name);
    await real.create();
    const asked: { receive: number[]; update: number[] } = { receive: [], update: [] };
    // The real client, recording the invisibility each call asks Azurite for.
    const queue = new Proxy(real, {
      get(target, property, receiver) {
        if (property === 'receiveMessages') {
          return (options: { visibilityTimeout?: number }) => {
            asked.receive.push(options.visibilityTimeout ?? -1);
            return target.receiveMessages(options as never);
          };
        }
        if (property === 'updateMessage') {
          return (id: string, pop: string, text: string | undefined, seconds?: number) => {
            asked.update.push(seconds ?? -1);
            return target.updateMessage(id, pop, text, seconds);
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    let release: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const listener = startQueueListener({
        functionName: 'host-lease',
        queue,
        poisonQueue: service.getQueueClient(`${name}-poison`),
        settings: { ...settings, messageEncoding: 'none' },
        logger,
        invoke: async () => {
          started = true;
          await running;
        },
      });
      listeners.push(listener);
      await real.sendMessage('work');
      await eventually(() => started);
      expect(new Set(asked.receive)).toEqual(new Set([600]));
      // Not renewed before it is halfway to expiring; renewed for another 10 minutes when it is.
      await vi.advanceTimersByTimeAsync(299_000);
      expect(asked.update).toEqual([]);
      await vi.advanceTimersByTimeAsync(1_000);
      await eventually(() => asked.update.length === 1);
      expect(asked.update).toEqual([600]);
      // Meanwhile no other receive sees it.
      expect((await real.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 1 })).receivedMessageItems).toEqual([]);
      release();
      await eventually(async () => (await real.getProperties()).approximateMessagesCount === 0);
    } finally {
      release();
      vi.useRealTimers();
    }
  });

  it('stops promptly while waiting on an empty queue', async () => {
    const name = queueName();
    const listener = startQueueListener({
      functionName: 'idle',
      queue: service.getQueueClient(name),
      poisonQueue: service.getQueueClient(`${name}-poison`),
      settings: { ...settings, maxPollingIntervalMs: 60_000 },
      logger,
      invoke: async () => undefined,
    });
    await eventually(() => service.getQueueClient(name).exists());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await listener.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('log lines', () => {
  it('all fit the log-line schema (error lines with errorCode and stack)', () => {
    expect(allLines.length).toBeGreaterThan(0);
    for (const line of allLines) expect(() => parseLogLine(line)).not.toThrow();
  });
});
