import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueueClient } from '@azure/storage-queue';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAzuriteQueue, type RunningAzurite } from '../../devhost/azurite';
import type { Database } from '../../shared/db/database';
import { migrateDatabase } from '../../shared/db/migrate';
import { createSqliteDatabase } from '../../shared/db/sqlite-database';
import { DependencyUnavailableError } from '../../shared/errors/dependency-unavailable';
import { claimDelivery, deliveriesOf, finishDelivery, releaseDelivery, type DeliveryKey } from '../../shared/notifications/ledger/delivery-ledger';
import { encodeFanoutMessage, FANOUT_QUEUE_NAME, type FanoutMessage } from '../../shared/messages/fanout-message';
import { FANOUT_POISON_QUEUE_NAME, storagePoisonQueue } from '../../shared/notifications/jobs/poison-queue';
import { markPoisonedDeliveries } from '../../shared/notifications/ledger/poisoned-deliveries';
import { runRedriveCommand } from '../../scripts/redrive-command';
import type { RedriveEntry, RedriveSummary } from '../../shared/notifications/jobs/redrive-poison';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, numberedId } from '../contract/store-fixtures';
import { CanaryTracker } from '../helpers/canaries';
import { addPublishedAnnouncement } from './notification-fixtures';

/**
 * `npm run redrive-poison` as the script runs it (`runRedriveCommand` with an environment), against
 * a real Azurite queue service and a real SQLite file: the dry run lists and changes nothing; the
 * run resets only poisoned rows, re-enqueues and deletes each valid message, and leaves the ones
 * that cannot succeed; a second run sends nothing more; a failure halfway loses nothing.
 */
let azurite: RunningAzurite;
let workDir: string;
let databaseFile: string;
let db: Database;
const canaries = new CanaryTracker();

const T0 = '2031-05-10T08:00:00.000Z';
const LEASE = '2031-05-10T08:05:00.000Z';
const user = (n: number): string => numberedId(n);
/** Announcement A's two batches (users 1-2, 3-4), its own first message, B's first message, D a draft. */
const A = numberedId(1, 'a');
const B = numberedId(2, 'a');
const DRAFT = numberedId(3, 'a');
const FIRST_BATCH: FanoutMessage = { announcementId: A, batch: { afterUserId: '', throughUserId: user(2), size: 2 } };
const SECOND_BATCH: FanoutMessage = { announcementId: A, batch: { afterUserId: user(2), throughUserId: user(4), size: 2 } };
const B_SPLIT: FanoutMessage = { announcementId: B };
const UNKNOWN: FanoutMessage = { announcementId: randomUUID() };

const env = () => ({ APP_ENV: 'test', SQLITE_PATH: databaseFile, AzureWebJobsStorage: azurite.connectionString });
const queue = (name: string) => new QueueClient(azurite.connectionString, name);

async function run(argv: string[], ports: Partial<Parameters<typeof runRedriveCommand>[2]> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runRedriveCommand(argv, env(), { stdout: (t) => out.push(t), stderr: (t) => err.push(t), ...ports });
  const lines = out.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  const entries = lines.filter((line) => !('summary' in line)) as unknown as RedriveEntry[];
  const summary = lines.find((line) => 'summary' in line)?.summary as RedriveSummary | undefined;
  return { code, out: out.join(''), err: err.join(''), entries, summary };
}

/** The texts on a queue, every message visible now (peek sees only visible ones). */
async function visibleTexts(name: string): Promise<string[]> {
  const client = queue(name);
  if (!(await client.exists())) return [];
  return (await client.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((item) => item.messageText);
}

const key = (n: number, channel: DeliveryKey['channel']): DeliveryKey => ({ announcementId: A, userId: user(n), channel });

async function resultsOfA(): Promise<Record<string, string>> {
  return Object.fromEntries(
    (await deliveriesOf(db, A)).map((row) => [`${Number.parseInt(row.userId.slice(-4), 16)}/${row.channel}`, `${row.result}${row.providerCode ? `:${row.providerCode}` : ''}`]),
  );
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'redrive-poison-'));
  databaseFile = path.join(workDir, 'platform.sqlite');
  azurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log') });
  db = createSqliteDatabase(databaseFile);
  await migrateDatabase(db);
});

afterAll(async () => {
  await db?.close();
  await azurite?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

beforeEach(async () => {
  for (const name of [FANOUT_QUEUE_NAME, FANOUT_POISON_QUEUE_NAME]) await queue(name).deleteIfExists();
  for (const table of ['NotificationDeliveries', 'Announcements']) await db.execute(`DELETE FROM ${table}`);
  await db.execute('DELETE FROM Users');
  for (let n = 1; n <= 4; n += 1) {
    const email = `poisoned.reader${n}@canary-mail.test`;
    const phone = `+1555010${String(n).padStart(4, '0')}`;
    canaries.add(email, phone);
    await insertUser(db, adultUser(n, { email, phone }));
  }
  for (const [id, status] of [[A, 'published'], [B, 'published'], [DRAFT, 'draft']] as const) {
    await addPublishedAnnouncement(db, user(1), { id, channels: ['sms', 'email'], status, title: 'Canary poisoned title', body: 'Canary poisoned body text' });
  }
  canaries.add('Canary poisoned title', 'Canary poisoned body text');
  // A's first batch: 1/sms given back and poisoned, 1/email delivered, 2/sms failed by the provider, 2/email poisoned.
  // Its second batch: 3/sms poisoned, 3/email pending (claimed and given back after the poisoning), 4 never reached.
  for (const k of [key(1, 'sms'), key(1, 'email'), key(2, 'sms'), key(2, 'email'), key(3, 'sms')]) await claimDelivery(db, k, T0, LEASE);
  await finishDelivery(db, key(1, 'email'), { result: 'delivered' }, T0);
  await finishDelivery(db, key(2, 'sms'), { result: 'failed', providerCode: 'Failed' }, T0);
  for (const k of [key(1, 'sms'), key(2, 'email'), key(3, 'sms')]) await releaseDelivery(db, k, T0, 'http_503');
  await markPoisonedDeliveries(db, { announcementId: A, afterUserId: '', throughUserId: user(4) }, T0);
  await claimDelivery(db, key(3, 'email'), T0, LEASE);
  await releaseDelivery(db, key(3, 'email'), T0);

  const poison = queue(FANOUT_POISON_QUEUE_NAME);
  await poison.create();
  for (const message of [FIRST_BATCH, SECOND_BATCH, B_SPLIT, UNKNOWN, { announcementId: DRAFT }]) await poison.sendMessage(encodeFanoutMessage(message));
  await poison.sendMessage('not a fan-out message');
});

const byKind = (entries: RedriveEntry[]) => ({
  first: entries.find((e) => e.announcementId === A && e.afterUserId === ''),
  second: entries.find((e) => e.announcementId === A && e.afterUserId === user(2)),
  split: entries.find((e) => e.announcementId === B),
  skipped: entries.filter((e) => e.action === 'skipped').map((e) => e.reason).sort(),
});

describe('npm run redrive-poison', () => {
  it('--dry-run lists every message with counts only, and changes nothing', async () => {
    const before = { ledger: await resultsOfA(), poison: (await visibleTexts(FANOUT_POISON_QUEUE_NAME)).sort() };
    const result = await run(['--dry-run']);
    expect(result).toMatchObject({ code: 0, err: '' });
    const { first, second, split, skipped } = byKind(result.entries);
    expect(first).toEqual({
      messageId: expect.any(String),
      poisonedAt: expect.stringMatching(/^\d{4}-/),
      action: 'would_redrive',
      announcementId: A,
      kind: 'batch',
      afterUserId: '',
      throughUserId: user(2),
      recipients: 2,
      notYetDelivered: 2,
      pending: 0,
      poisoned: 2,
    });
    expect(second).toMatchObject({ action: 'would_redrive', recipients: 2, notYetDelivered: 4, pending: 1, poisoned: 1 });
    expect(split).toMatchObject({ action: 'would_redrive', kind: 'split', recipients: 4, notYetDelivered: 0 });
    expect(split).not.toHaveProperty('afterUserId');
    expect(skipped).toEqual(['announcement_not_found', 'announcement_not_published', 'invalid_fanout_message']);
    expect(result.summary).toEqual({ dryRun: true, messages: 6, redriven: 3, skipped: 3, notYetDelivered: 6, reset: 0 });
    expect(canaries.findIn(result.out)).toEqual([]);
    expect({ ledger: await resultsOfA(), poison: (await visibleTexts(FANOUT_POISON_QUEUE_NAME)).sort() }).toEqual(before);
    expect(await visibleTexts(FANOUT_QUEUE_NAME)).toEqual([]);
  });

  it('re-drives each valid message once: poisoned rows pending again, the message back on the fan-out queue, gone from the poison queue', async () => {
    const result = await run([]);
    expect(result).toMatchObject({ code: 0, err: '' });
    const { first, second, split, skipped } = byKind(result.entries);
    expect([first?.action, second?.action, split?.action]).toEqual(['redriven', 'redriven', 'redriven']);
    expect([first?.reset, second?.reset, split?.reset]).toEqual([2, 1, 0]);
    expect(skipped).toEqual(['announcement_not_found', 'announcement_not_published', 'invalid_fanout_message']);
    expect(result.summary).toMatchObject({ dryRun: false, messages: 6, redriven: 3, skipped: 3, reset: 3 });
    expect(await resultsOfA()).toEqual({
      '1/email': 'delivered',
      '1/sms': 'pending',
      '2/email': 'pending',
      '2/sms': 'failed:Failed',
      '3/email': 'pending',
      '3/sms': 'pending',
    });
    const requeued = (await visibleTexts(FANOUT_QUEUE_NAME)).map((text) => JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as unknown);
    expect(requeued).toHaveLength(3);
    // Sent again as every message now goes: with its kind.
    const withKind = (message: FanoutMessage) => ({ kind: 'announcement', ...message });
    expect(requeued).toEqual(expect.arrayContaining([FIRST_BATCH, SECOND_BATCH, B_SPLIT].map(withKind)));
    // What cannot succeed stays, visible at once for the operator.
    expect(await visibleTexts(FANOUT_POISON_QUEUE_NAME)).toHaveLength(3);
    expect(canaries.findIn(result.out)).toEqual([]);

    const again = await run([]);
    expect(again.code).toBe(0);
    expect(again.summary).toMatchObject({ messages: 3, redriven: 0, skipped: 3, reset: 0 });
    expect(await visibleTexts(FANOUT_QUEUE_NAME)).toHaveLength(3);
  });

  it('--announcement re-drives one announcement and leaves the others untouched and unreported', async () => {
    const result = await run(['--announcement', B.toUpperCase()]);
    expect(result.code).toBe(0);
    expect(result.entries).toEqual([expect.objectContaining({ action: 'redriven', announcementId: B, kind: 'split' })]);
    expect(result.summary).toMatchObject({ messages: 1, redriven: 1, skipped: 0 });
    expect(await visibleTexts(FANOUT_POISON_QUEUE_NAME)).toHaveLength(5);
    expect((await resultsOfA())['1/sms']).toBe('failed:poisoned');
  });

  it('loses nothing when the fan-out queue fails halfway: the message stays, visible, and the next run sends it', async () => {
    const storage = { kind: 'connection-string' as const, connectionString: azurite.connectionString };
    const poison = storagePoisonQueue(storage);
    const failing = await run(['--announcement', A], {
      queues: { poison, fanout: { enqueue: () => Promise.reject(new DependencyUnavailableError('queue', { cause: new Error('down') })) } },
    });
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.err)).toEqual({ error: 'redrive_failed', errorType: 'DependencyUnavailableError (cause: Error)' });
    expect(failing.entries).toEqual([]);
    expect(await visibleTexts(FANOUT_POISON_QUEUE_NAME)).toHaveLength(6);
    // The rows of the message tried were reset before its enqueue failed; the next run resets the rest and sends both.
    const poisonedLeft = Object.values(await resultsOfA()).filter((result) => result === 'failed:poisoned').length;
    expect([1, 2]).toContain(poisonedLeft);
    const next = await run(['--announcement', A]);
    expect(next.summary).toMatchObject({ messages: 2, redriven: 2, reset: poisonedLeft });
    expect(Object.values(await resultsOfA()).filter((result) => result === 'failed:poisoned')).toEqual([]);
    expect(await visibleTexts(FANOUT_QUEUE_NAME)).toHaveLength(2);
    expect(await visibleTexts(FANOUT_POISON_QUEUE_NAME)).toHaveLength(4);
  });

  it('finds nothing when no message was ever poisoned, and refuses bad arguments and a missing queue setting', async () => {
    await queue(FANOUT_POISON_QUEUE_NAME).delete();
    const empty = await run([]);
    expect(empty).toMatchObject({ code: 0, entries: [] });
    expect(empty.summary).toEqual({ dryRun: false, messages: 0, redriven: 0, skipped: 0, notYetDelivered: 0, reset: 0 });
    expect((await run(['--everything'])).code).toBe(2);
    expect((await run(['--announcement', 'not-a-uuid'])).code).toBe(2);
    const help = await run(['--help']);
    expect(help).toMatchObject({ code: 0, out: expect.stringContaining('--dry-run') });
    const out: string[] = [];
    const unconfigured = await runRedriveCommand([], { APP_ENV: 'test', SQLITE_PATH: databaseFile }, { stdout: (t) => out.push(t), stderr: (t) => out.push(t) });
    expect(unconfigured).toBe(1);
    expect(JSON.parse(out.join(''))).toEqual({ error: 'queue_storage_not_configured', setting: 'AzureWebJobsStorage' });
  });
});
