import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownTimings } from '../../shared/settings/shutdown-timings';
import { ApiClient } from '../helpers/api-client';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { readRows } from '../helpers/sqlite-reader';

/**
 * SIGTERM in the middle of a fan-out, on the local host with a 6 s grace
 * (deadline 4 s). With the e-mail provider hanging, one batch of 18 recipients has 16 e-mails
 * hanging (the batch's concurrency) and 2 waiting for a slot: the process must exit inside the
 * grace, with every row it held and did not finish released (pending, no live lease). With
 * responsive providers it must stop without waiting for the deadline. Either way a restarted host
 * delivers what was released once each, and nothing is sent twice.
 */
const GRACE_SECONDS = 6;
const timings = shutdownTimings(GRACE_SECONDS * 1000);
const RECIPIENTS = 18;
const CONCURRENCY = 16;
/** Phones and devices for the first few: SMS and push answer at once and must not be sent again. */
const WITH_PHONE_AND_DEVICE = 3;

let env: AuthTestHost;
let fakes: FakeProviders;
let api: ApiClient;
let restarted: LocalHost | undefined;
const canaries = new CanaryTracker();

interface Member {
  userId: string;
  email: string;
  phone: string | null;
  device: string | null;
}

interface LedgerRow {
  userId: string;
  channel: string;
  result: string;
  providerCode: string | null;
  claimedUntil: string | null;
}

const unique = (): string => randomBytes(4).toString('hex');
let phones = 0;

async function signIn(sub: string, contact: { email?: string; phone?: string } = {}): Promise<{ token: string; userId: string }> {
  const idToken = env.idToken(sub, {
    ...(contact.email ? { email: contact.email, email_verified: true } : {}),
    ...(contact.phone ? { phone_number: contact.phone, phone_number_verified: true } : {}),
  });
  const { token, userId, response } = await api.signInAdult(idToken);
  expect(response.status).toBe(200);
  return { token, userId };
}

async function member(index: number): Promise<Member> {
  const id = unique();
  const email = `member.${id}@canary-mail.test`;
  const phone = index < WITH_PHONE_AND_DEVICE ? `+1555${String(2000000 + (phones += 1)).slice(-7)}` : null;
  canaries.add(email, ...(phone ? [phone] : []));
  const session = await signIn(`member-${id}`, { email, ...(phone ? { phone } : {}) });
  let device: string | null = null;
  if (phone) {
    device = `ExponentPushToken[canary${unique()}Shutdown]`;
    canaries.add(device, device.slice('ExponentPushToken['.length, -1));
    const registered = await api.request('PUT', '/api/v1/me/push-tokens', { token: session.token, body: { token: device } });
    expect(registered.status).toBe(204);
  }
  return { userId: session.userId, email, phone, device };
}

/** Creates, submits, approves and publishes an announcement on every channel; its text is a canary. */
async function publish(adminToken: string): Promise<{ id: string; title: string }> {
  const title = `Canary shutdown notice ${unique()}`;
  const body = `Canary shutdown text ${unique()}: the hall is closed on Friday`;
  canaries.add(title, body);
  const created = await api.request('POST', '/api/v1/announcements', { token: adminToken, body: { title, body, channels: ['push', 'sms', 'email'] } });
  expect(created.status).toBe(201);
  const id = String(created.body.id);
  for (const action of ['submit', 'approve', 'publish']) {
    expect((await api.request('POST', `/api/v1/announcements/${id}/${action}`, { token: adminToken })).status).toBe(200);
  }
  return { id, title };
}

function ledger(announcementId: string): LedgerRow[] {
  return readRows<LedgerRow>(
    env.databaseFile,
    'SELECT userId, channel, result, providerCode, claimedUntil FROM NotificationDeliveries WHERE announcementId = @announcementId',
    { announcementId },
  );
}

async function waitFor(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fakes = await startFakeProviders();
  env = await startAuthTestHost(
    'shutdown',
    canaries,
    { BOOTSTRAP_ADMIN_SUBJECTS: 'shutdown-admin', FANOUT_BATCH_SIZE: '50', SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), ...fakes.env },
    { azurite: true },
  );
  ({ api } = env);
});

afterAll(async () => {
  await restarted?.stop();
  await env?.stop();
  await fakes?.close();
});

describe('SIGTERM during a fan-out', () => {
  it('with the e-mail provider hanging, exits inside the grace period with its rows released, and a restarted host delivers them once', async () => {
    const admin = await signIn('shutdown-admin');
    const members: Member[] = [];
    for (let index = 0; index < RECIPIENTS; index += 1) members.push(await member(index));
    for (const { email } of members) fakes.acs.scriptEmail(email, 'hang');

    const { id: announcementId } = await publish(admin.token);

    // Mid-fan-out: SMS and push answered, every concurrency slot held by a hanging e-mail.
    await waitFor('the e-mails to hang', () => fakes.acs.requests.emailHung >= CONCURRENCY, 20_000);
    expect(fakes.acs.smsDeliveries).toHaveLength(WITH_PHONE_AND_DEVICE);
    expect(fakes.expo.deliveries).toHaveLength(WITH_PHONE_AND_DEVICE);

    const { host } = env;
    const signalledAt = Date.now();
    const exitCode = await host.stop();
    const tookMs = Date.now() - signalledAt;

    expect(exitCode).toBe(0);
    // Inside the grace, and not before the deadline: the hanging calls were waited for until then, not dropped.
    expect(tookMs).toBeLessThan(timings.graceMs);
    expect(tookMs).toBeGreaterThanOrEqual(timings.deadlineMs - 250);
    // No e-mail was tried again (16 sends, all cut off at the one deadline) and none queued behind them was started.
    expect(fakes.acs.requests.emailSend).toBe(CONCURRENCY);

    const now = Date.now();
    const rows = ledger(announcementId);
    const emailRows = rows.filter((row) => row.channel === 'email');
    expect(emailRows).toHaveLength(RECIPIENTS);
    for (const row of emailRows) {
      expect(row.result).toBe('pending');
      // Released, not left to a lease running out: another instance may claim it at once.
      expect(row.claimedUntil === null || Date.parse(row.claimedUntil) <= now).toBe(true);
    }
    expect(rows.filter((row) => row.channel === 'sms').map((row) => row.result)).toEqual(Array(WITH_PHONE_AND_DEVICE).fill('accepted'));
    expect(rows.filter((row) => row.channel === 'push').map((row) => row.result)).toEqual(Array(WITH_PHONE_AND_DEVICE).fill('success'));

    const lines = host.lines;
    const begun = lines.find((line) => line.message === 'shutdown begun');
    expect(begun).toMatchObject({ level: 'info', reason: 'SIGTERM' });
    expect(Number(begun?.deadlineMs)).toBeGreaterThan(timings.deadlineMs - 100);
    expect(Number(begun?.deadlineMs)).toBeLessThanOrEqual(timings.deadlineMs);
    expect(lines.filter((line) => line.message === 'fan-out batch interrupted by shutdown')).toEqual([
      expect.objectContaining({ level: 'warn', service: 'notifications', announcementId, emailResults: { pending: RECIPIENTS } }),
    ]);
    // Cut short is not failed: no error line or exception per row.
    expect(lines.filter((line) => line.message === 'delivery attempt' && line.channel === 'email')).toEqual([]);
    expect(lines.filter((line) => String(line.message).includes('did not stop'))).toEqual([]);
    expect(lines.map((line) => line.message)).toEqual(expect.arrayContaining(['app stopping', 'app stopped']));
    expect(lines.at(-1)).toMatchObject({ message: 'local host stopped' });
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);

    // The provider is back; the message reappears after the queue's visibilityTimeout and another host takes it.
    fakes.acs.releaseHung();
    for (const { email } of members) fakes.acs.scriptEmail(email, 'ok');
    restarted = await startLocalHost(env.hostEnv);
    const second = restarted;
    await waitFor('the restarted host to deliver', () => ledger(announcementId).filter((row) => row.channel === 'email' && row.result === 'accepted').length === RECIPIENTS, 45_000);
    await second.waitForLine((line) => line.message === 'fan-out batch delivered' && line.announcementId === announcementId);

    for (const { email, phone, device } of members) {
      expect(fakes.acs.emailsTo(email)).toHaveLength(1);
      if (phone) expect(fakes.acs.smsTo(phone)).toHaveLength(1);
      if (device) expect(fakes.expo.deliveriesTo(device)).toHaveLength(1);
    }
    expect(second.lines.filter((line) => line.message === 'delivery attempt' && line.channel === 'email')).toHaveLength(RECIPIENTS);
    expect(await second.stop()).toBe(0);
    restarted = undefined;
    expect(second.invalidLines).toEqual([]);
    expect(canaries.findIn(second.stdout.join('\n'))).toEqual([]);
  }, 120_000);

  it('with responsive providers, stops at once: sends in flight finish, the rest is released, and nothing is sent twice', async () => {
    const first = await startLocalHost(env.hostEnv);
    api = new ApiClient(first.baseUrl, canaries);
    let second: LocalHost | undefined;
    try {
      const admin = await signIn('shutdown-admin');
      const members: Member[] = [];
      for (let index = 0; index < RECIPIENTS; index += 1) members.push(await member(index));
      fakes.reset();
      fakes.setDelay(150);
      const { id: announcementId, title } = await publish(admin.token);
      // Mid-fan-out: some SMS and e-mails sent, others not started.
      await waitFor('the first sends', () => fakes.acs.smsDeliveries.length + fakes.acs.emailDeliveries.length >= 4, 20_000);

      const signalledAt = Date.now();
      expect(await first.stop()).toBe(0);
      // Responsive calls end long before the deadline; nothing waited for it.
      expect(Date.now() - signalledAt).toBeLessThan(timings.deadlineMs);
      const now = Date.now();
      const held = ledger(announcementId).filter((row) => row.result === 'pending');
      expect(held.length).toBeGreaterThan(0);
      for (const row of held) expect(row.claimedUntil === null || Date.parse(row.claimedUntil) <= now).toBe(true);
      expect(first.lines.some((line) => line.message === 'fan-out batch interrupted by shutdown' && line.announcementId === announcementId)).toBe(true);

      fakes.setDelay(0);
      second = await startLocalHost(env.hostEnv);
      await waitFor('the restarted host to finish', () => ledger(announcementId).every((row) => row.result !== 'pending'), 45_000);
      const rows = ledger(announcementId);
      members.forEach(({ userId }, index) => {
        const expected = index < WITH_PHONE_AND_DEVICE ? ['email:accepted', 'push:success', 'sms:accepted'] : ['email:accepted'];
        expect(rows.filter((row) => row.userId === userId).map((row) => `${row.channel}:${row.result}`).sort()).toEqual(expected);
      });
      // Exactly once each, over both hosts.
      const sentTwice = (values: string[]) => values.filter((value, index) => values.indexOf(value) !== index);
      expect(sentTwice(fakes.acs.emailDeliveries.filter((d) => d.subject === title).map((d) => d.to))).toEqual([]);
      expect(sentTwice(fakes.acs.smsDeliveries.filter((d) => String(d.message).startsWith(title)).map((d) => d.to))).toEqual([]);
      expect(sentTwice(fakes.expo.deliveries.filter((d) => d.title === title).map((d) => d.to))).toEqual([]);
      for (const { email, phone, device } of members) {
        expect(fakes.acs.emailsTo(email)).toHaveLength(1);
        if (phone) expect(fakes.acs.smsTo(phone)).toHaveLength(1);
        if (device) expect(fakes.expo.deliveriesTo(device)).toHaveLength(1);
      }
      expect(first.invalidLines).toEqual([]);
      expect(canaries.findIn(first.stdout.join('\n'))).toEqual([]);
    } finally {
      fakes.setDelay(0);
      await first.stop();
      await second?.stop();
    }
  }, 120_000);
});
