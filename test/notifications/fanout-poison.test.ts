import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../shared/errors/dependency-unavailable';
import { deliveriesOf } from '../../shared/notifications/ledger/delivery-ledger';
import type { FanoutDeps } from '../../shared/notifications/engine/fanout-deps';
import { FanoutError } from '../../shared/notifications/engine/fanout-error';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import { handleFanoutMessage } from '../../shared/notifications/jobs/handle-fanout-message';
import { resetPoisonedDeliveries } from '../../shared/notifications/ledger/poisoned-deliveries';
import { createFanoutHarness, expectNoFanoutLeaks, type FanoutHarness, type TestRecipient } from './fanout-harness';
import { transient500 } from './notification-fixtures';

/**
 * The last try of a fan-out message (the trigger's dequeue count at host.json's maximum): what
 * it leaves in the ledger and the log when it fails, so that nothing stays `pending` once the host
 * has moved the message to the poison queue; and that resetting the poisoned rows lets the
 * message, sent again, deliver exactly what was not delivered.
 */
let f: FanoutHarness;

beforeEach(async () => {
  f = await createFanoutHarness({ FANOUT_BATCH_SIZE: '10' });
});

afterEach(async () => {
  expectNoFanoutLeaks(f);
  await f.close();
});

const LAST = { lastAttempt: true };
const lines = (message: string) => f.h.sink.withMessage(message);

/** Two readers whose every channel keeps failing transiently, one who gets everything, and the batch message of the three. */
async function failingBatch(): Promise<{ failing: TestRecipient[]; healthy: TestRecipient; announcementId: string; batch: FanoutMessage }> {
  const failing = [await f.recipient(), await f.recipient()];
  const healthy = await f.recipient();
  for (const reader of failing) for (const address of [reader.email, reader.phone, ...reader.tokens]) f.providers.script(address as string, transient500);
  const announcement = await f.announcement(['push', 'sms', 'email']);
  await f.handle({ announcementId: announcement.id });
  const [batch] = f.queue.messages as FanoutMessage[];
  if (!batch?.batch) throw new Error('the split made no batch message');
  return { failing, healthy, announcementId: announcement.id, batch };
}

async function resultsByUser(announcementId: string): Promise<Map<string, string[]>> {
  const byUser = new Map<string, string[]>();
  for (const row of await deliveriesOf(f.db, announcementId)) {
    byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), `${row.channel}:${row.result}:${row.providerCode ?? ''}`]);
  }
  return byUser;
}

describe('the last try of a batch message', () => {
  it('marks the deliveries it still owes failed / poisoned, keeps the others, logs them counted, and still fails', async () => {
    const { failing, healthy, announcementId, batch } = await failingBatch();
    const error = await handleFanoutMessage(batch, f.deps, LAST).then(() => undefined, (e: unknown) => e);
    expect((error as FanoutError).errorCode).toBe('delivery_incomplete');
    const results = await resultsByUser(announcementId);
    for (const reader of failing) {
      expect(results.get(reader.user.id)?.sort()).toEqual(['email:failed:poisoned', 'push:failed:poisoned', 'sms:failed:poisoned']);
    }
    expect(results.get(healthy.user.id)?.sort()).toEqual(['email:accepted:', 'push:success:', 'sms:accepted:']);
    expect((await deliveriesOf(f.db, announcementId)).some((row) => row.result === 'pending')).toBe(false);
    expect(lines('fan-out message poisoned')).toEqual([
      expect.objectContaining({
        level: 'warn',
        service: 'notifications',
        announcementId,
        kind: 'batch',
        afterUserId: batch.batch?.afterUserId,
        throughUserId: batch.batch?.throughUserId,
        failedDeliveries: 6,
        errorCode: 'delivery_incomplete',
      }),
    ]);
  });

  it('leaves the rows pending on any earlier try, for the redelivered message', async () => {
    const { announcementId, batch } = await failingBatch();
    await expect(handleFanoutMessage(batch, f.deps, { lastAttempt: false })).rejects.toBeInstanceOf(FanoutError);
    await expect(handleFanoutMessage(batch, f.deps)).rejects.toBeInstanceOf(FanoutError);
    expect((await deliveriesOf(f.db, announcementId)).filter((row) => row.result === 'pending')).toHaveLength(6);
    expect(lines('fan-out message poisoned')).toEqual([]);
  });

  it('once its poisoned rows are reset, the message sent again delivers exactly those, once each', async () => {
    const { failing, healthy, announcementId, batch } = await failingBatch();
    await handleFanoutMessage(batch, f.deps, LAST).catch(() => undefined);
    for (const reader of failing) for (const address of [reader.email, reader.phone, ...reader.tokens]) f.providers.script(address as string);
    const accepted = () => [...f.providers.accepted.push.map((m) => m.to), ...f.providers.accepted.sms.map((m) => m.to), ...f.providers.accepted.email.map((m) => m.to)];
    const before = accepted();
    // Sent again without the reset: the poisoned rows are final, nothing goes out.
    await handleFanoutMessage(batch, f.deps);
    expect(accepted()).toEqual(before);
    const range = { announcementId, afterUserId: batch.batch?.afterUserId ?? '', throughUserId: batch.batch?.throughUserId };
    expect(await resetPoisonedDeliveries(f.db, range, f.h.clock.now().toISOString())).toBe(6);
    await handleFanoutMessage(batch, f.deps);
    const sent = [...accepted()];
    for (const to of before) sent.splice(sent.indexOf(to), 1);
    expect(sent.sort()).toEqual(failing.flatMap((reader) => [reader.email, reader.phone, ...reader.tokens] as string[]).sort());
    expect(accepted().filter((to) => [healthy.email, healthy.phone, ...healthy.tokens].includes(to))).toHaveLength(3);
    expect((await deliveriesOf(f.db, announcementId)).every((row) => ['accepted', 'success'].includes(row.result))).toBe(true);
  });
});

describe('the last try of other messages', () => {
  it('a first message marks nothing (its batches may still be trying) and says so', async () => {
    await f.recipient();
    const announcement = await f.announcement(['email']);
    const queueDown: FanoutDeps = {
      ...f.deps,
      queue: { enqueue: () => Promise.reject(new DependencyUnavailableError('queue', { cause: new Error('ECONNREFUSED') })) },
    };
    await expect(handleFanoutMessage({ announcementId: announcement.id }, queueDown, LAST)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(lines('fan-out message poisoned')).toEqual([
      expect.objectContaining({ level: 'warn', announcementId: announcement.id, kind: 'split', failedDeliveries: 0, errorCode: 'service_unavailable' }),
    ]);
    expect(await deliveriesOf(f.db, announcement.id)).toEqual([]);
  });

  it('a batch whose database is down says the rows could not be marked, and rethrows the first failure', async () => {
    const { batch } = await failingBatch();
    const failure = new DependencyUnavailableError('database', { cause: new Error('ETIMEOUT') });
    const databaseDown: FanoutDeps = { ...f.deps, database: { get: () => Promise.reject(failure) } };
    await expect(handleFanoutMessage(batch, databaseDown, LAST)).rejects.toBe(failure);
    expect(lines("fan-out message poisoned; its unfinished deliveries could not be marked failed")).toEqual([
      expect.objectContaining({ level: 'warn', kind: 'batch', errorCode: 'service_unavailable', errorType: 'DependencyUnavailableError' }),
    ]);
  });

  it('a malformed message has no rows: it fails as before, with nothing to mark', async () => {
    const error = await handleFanoutMessage({ announcementId: 'nope' }, f.deps, LAST).then(() => undefined, (e: unknown) => e);
    expect((error as FanoutError).errorCode).toBe('invalid_fanout_message');
    expect(lines('fan-out message poisoned')).toEqual([]);
  });
});
