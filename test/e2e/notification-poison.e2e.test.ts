import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { QueueClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client';
import { alertLineFilter } from '../helpers/alert-line-match';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import { PROJECT_ROOT, type LocalHost } from '../helpers/local-host';
import { readRows } from '../helpers/sqlite-reader';

/**
 * The poison path end to end, on the local host with SQLite, Azurite and the fake providers:
 * providers that keep failing → each batch message is tried five times and poisoned → its
 * unfinished rows are `failed` / `poisoned` (none `pending`), the one delivered and the one a
 * provider refused keep their results → the app's poison line is the one the alert's query counts
 * → providers healthy again → `redrive-poison` (the built script, as `npm run redrive-poison` runs
 * it), dry run first → each family gets each message exactly once, the refused SMS never.
 * The host retries at once (the `visibilityTimeout` app setting overrides host.json's 10 seconds,
 * as it would on the Functions host) so the five tries take seconds.
 */
const POISON_QUEUE = 'notification-fanout-poison';
const ALERT = 'notification-poison-messages';

let env: AuthTestHost;
let fakes: FakeProviders;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();

interface Family {
  userId: string;
  email: string;
  phone: string;
  device: string;
}

let counter = 0;
const unique = (): string => `${(counter += 1)}${randomBytes(3).toString('hex')}`;

async function family(): Promise<Family> {
  const id = unique();
  const email = `family.${id}@canary-mail.test`;
  const phone = `+1555${String(2000000 + counter).slice(-7)}`;
  const device = `ExponentPushToken[canary${unique()}Poison]`;
  canaries.add(email, phone, device, device.slice('ExponentPushToken['.length, -1));
  const idToken = env.idToken(`family-${id}`, { email, email_verified: true, phone_number: phone, phone_number_verified: true });
  const { token, userId, response } = await api.signInAdult(idToken);
  expect(response.status).toBe(200);
  expect((await api.request('PUT', '/api/v1/me/push-tokens', { token, body: { token: device } })).status).toBe(204);
  return { userId, email, phone, device };
}

interface LedgerRow {
  userId: string;
  channel: string;
  result: string;
  providerCode: string | null;
}

function ledger(announcementId: string): LedgerRow[] {
  return readRows<LedgerRow>(env.databaseFile, 'SELECT userId, channel, result, providerCode FROM NotificationDeliveries WHERE announcementId = @announcementId', {
    announcementId,
  });
}

function resultsOf(announcementId: string, who: Family): Record<string, string> {
  return Object.fromEntries(
    ledger(announcementId)
      .filter((row) => row.userId === who.userId)
      .map((row) => [row.channel, row.result === 'failed' || row.result === 'provider_error' ? `${row.result}:${row.providerCode}` : row.result]),
  );
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `dist/scripts/redrive-poison.js` (what `npm run redrive-poison` runs after its build) with the host's settings. */
function redrive(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; lines: Record<string, unknown>[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/scripts/redrive-poison.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', APP_ENV: 'test', SQLITE_PATH: env.databaseFile, AzureWebJobsStorage: env.azurite?.connectionString ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    // Node's own notice that node:sqlite is experimental is not the script's output.
    const ownStderr = () => stderr.split('\n').filter((line) => line !== '' && !/ExperimentalWarning|--trace-warnings/.test(line)).join('\n');
    child.once('exit', (code) =>
      resolve({ code, stdout, stderr: ownStderr(), lines: stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) }),
    );
  });
}

async function poisonQueueTexts(): Promise<string[]> {
  const queue = new QueueClient(env.azurite?.connectionString ?? '', POISON_QUEUE);
  if (!(await queue.exists())) return [];
  return (await queue.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((item) => item.messageText);
}

beforeAll(async () => {
  fakes = await startFakeProviders();
  env = await startAuthTestHost(
    'poison',
    canaries,
    {
      BOOTSTRAP_ADMIN_SUBJECTS: 'poison-admin',
      FANOUT_BATCH_SIZE: '2',
      AzureFunctionsJobHost__extensions__queues__visibilityTimeout: '00:00:00',
      ...fakes.env,
    },
    { azurite: true },
  );
  ({ host, api } = env);
});

afterAll(async () => {
  await env?.stop();
  await fakes?.close();
});

describe('a fan-out whose providers keep failing', () => {
  let admin: string;
  let allFailing: Family;
  let mailWorks: Family;
  let smsRefused: Family;
  let announcementId: string;

  beforeAll(async () => {
    const signedIn = await api.signInAdult(env.idToken('poison-admin'));
    admin = signedIn.token;
    [allFailing, mailWorks, smsRefused] = [await family(), await family(), await family()];
    for (const who of [allFailing, mailWorks, smsRefused]) fakes.expo.script(who.device, { httpStatus: 503 });
    for (const who of [allFailing, mailWorks]) fakes.acs.scriptSms(who.phone, { httpStatus: 503 });
    fakes.acs.scriptSms(smsRefused.phone, { recipientStatus: 400 });
    for (const who of [allFailing, smsRefused]) fakes.acs.scriptEmail(who.email, { httpStatus: 503 });

    const title = `Canary poison notice ${unique()}`;
    const body = `Canary poison text ${unique()}: the pool is closed`;
    canaries.add(title, body);
    const created = await api.request('POST', '/api/v1/announcements', { token: admin, body: { title, body, channels: ['push', 'sms', 'email'] } });
    expect(created.status).toBe(201);
    announcementId = String(created.body.id);
    for (const step of ['submit', 'approve', 'publish']) {
      expect((await api.request('POST', `/api/v1/announcements/${announcementId}/${step}`, { token: admin })).status).toBe(200);
    }
    // Three families in batches of two: two batch messages, each poisoned after its fifth try.
    // The local host's line comes last, once the message is in the poison queue.
    await until('two poisoned batch messages', () => host.lines.filter((l) => l.message === 'queue message moved to poison queue').length >= 2);
  }, 120_000);

  it('tries each batch message five times, then moves it to the poison queue', async () => {
    const tries = host.lines.filter((l) => l.message === 'function failed' && l.functionName === 'notification-fanout');
    expect(tries.map((l) => l.dequeueCount).sort()).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    expect(host.lines.filter((l) => l.message === 'queue message moved to poison queue')).toEqual([
      expect.objectContaining({ dequeueCount: 5, poisonQueue: POISON_QUEUE }),
      expect.objectContaining({ dequeueCount: 5, poisonQueue: POISON_QUEUE }),
    ]);
    expect(await poisonQueueTexts()).toHaveLength(2);
  });

  it('leaves no row pending: what was still owed is failed / poisoned, the rest keeps its result', () => {
    expect(resultsOf(announcementId, allFailing)).toEqual({ push: 'failed:poisoned', sms: 'failed:poisoned', email: 'failed:poisoned' });
    expect(resultsOf(announcementId, mailWorks)).toEqual({ push: 'failed:poisoned', sms: 'failed:poisoned', email: 'accepted' });
    expect(resultsOf(announcementId, smsRefused)).toEqual({ push: 'failed:poisoned', sms: 'provider_error:http_400', email: 'failed:poisoned' });
    expect(ledger(announcementId).filter((row) => row.result === 'pending')).toEqual([]);
    const marked = host.lines.filter((l) => l.message === 'fan-out message poisoned' && l.announcementId === announcementId);
    expect(marked).toHaveLength(2);
    expect(marked.every((l) => l.level === 'warn' && l.service === 'notifications' && l.kind === 'batch' && l.errorCode === 'delivery_incomplete')).toBe(true);
    expect(marked.reduce((sum, l) => sum + Number(l.failedDeliveries), 0)).toBe(7);
  });

  it('writes the poison line the alert counts, once per poisoned message and on no other line', () => {
    const filter = alertLineFilter(ALERT);
    const counted = host.lines.filter((line) => filter.matches(line));
    expect(counted).toHaveLength(2);
    expect(counted.every((l) => l.message === 'message moved to the poison queue' && l.functionName === 'notification-fanout' && l.level === 'error')).toBe(true);
    // The local host's own line about the move carries the same error code but is not the app's: not counted twice.
    expect(host.lines.filter((l) => l.errorCode === 'poison_message')).toHaveLength(4);
  });

  it('re-drives once the providers are healthy: a dry run first, then each family gets each message exactly once', async () => {
    for (const who of [allFailing, mailWorks, smsRefused]) {
      fakes.expo.script(who.device, 'ok');
      fakes.acs.scriptSms(who.phone, 'ok');
      fakes.acs.scriptEmail(who.email, 'ok');
    }
    const dry = await redrive(['--dry-run']);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    const listed = dry.lines.filter((line) => !('summary' in line));
    expect(listed).toHaveLength(2);
    expect(listed.every((line) => line.action === 'would_redrive' && line.announcementId === announcementId && line.kind === 'batch')).toBe(true);
    expect(listed.reduce((sum, line) => sum + Number(line.notYetDelivered), 0)).toBe(7);
    expect(dry.lines.at(-1)).toEqual({ summary: { dryRun: true, messages: 2, redriven: 2, skipped: 0, notYetDelivered: 7, reset: 0 } });
    expect(ledger(announcementId).filter((row) => row.providerCode === 'poisoned')).toHaveLength(7);
    expect(await poisonQueueTexts()).toHaveLength(2);

    const run = await redrive([]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.lines.at(-1)).toMatchObject({ summary: { dryRun: false, messages: 2, redriven: 2, reset: 7 } });
    await until('every row final again', () => ledger(announcementId).every((row) => row.result !== 'pending' && row.providerCode !== 'poisoned'), 20_000);

    for (const who of [allFailing, mailWorks, smsRefused]) {
      expect(fakes.expo.deliveriesTo(who.device), 'push').toHaveLength(1);
      expect(fakes.acs.emailsTo(who.email), 'email').toHaveLength(1);
    }
    expect(fakes.acs.smsTo(allFailing.phone)).toHaveLength(1);
    expect(fakes.acs.smsTo(mailWorks.phone)).toHaveLength(1);
    // Refused by the provider: a final result, never sent again.
    expect(fakes.acs.smsTo(smsRefused.phone)).toEqual([]);
    expect(resultsOf(announcementId, smsRefused)).toEqual({ push: 'success', sms: 'provider_error:http_400', email: 'accepted' });
    expect(await poisonQueueTexts()).toEqual([]);

    const again = await redrive([]);
    expect(again.code).toBe(0);
    expect(again.lines).toEqual([{ summary: { dryRun: false, messages: 0, redriven: 0, skipped: 0, notYetDelivered: 0, reset: 0 } }]);
    expect(canaries.findIn(`${dry.stdout}${run.stdout}${again.stdout}`)).toEqual([]);
  });

  it('writes no address, number, token or text to stdout', () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(`"${fakes.acs.smsDeliveries[0]?.to ?? 'none'}"`)).toHaveLength(1);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
  });
});
