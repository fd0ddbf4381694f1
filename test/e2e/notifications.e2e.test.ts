import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { QueueClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAzurite } from '../../devhost/azurite';
import type { ApiClient } from '../helpers/api-client';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { asCloudEvent, emailDeliveryReport, smsDeliveryReport, smsReceived, subscriptionValidation, type EventGridEvent } from '../helpers/fake-providers/acs-events';
import type { EmailDelivery, SmsDelivery } from '../helpers/fake-providers/fake-acs';
import { FAKE_SMS_FROM, startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import type { LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Notification settings and the fan-out end to end: the local host with SQLite and Azurite, the
 * announcement workflow over HTTP, and fake Expo and Azure Communication Services servers. Publish
 * → one ledger row per recipient × channel; a redelivered message sends nothing twice; a provider
 * 500 then success sends once; a stale push token is removed; an opted-out SMS recipient is
 * suppressed; a hard bounce is marked; the spend guard warns at 80 % and stops at the cap; a
 * message that keeps failing lands in the poison queue; and no address, number, token or text
 * appears in stdout or the audit log.
 */
const FANOUT_QUEUE = 'notification-fanout';
const SMS_CAP_USD = 30;
const SMS_UNIT_USD = 0.0075;

let env: AuthTestHost;
let databaseFile: string;
let azurite: RunningAzurite;
let fakes: FakeProviders;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();
let admin: { token: string; userId: string };
/** The malformed message that already failed four times before the host started. */
let poisonText: string;

interface Person {
  token: string;
  userId: string;
  email: string | null;
  phone: string | null;
  devices: string[];
}

let counter = 0;
const unique = (): string => `${(counter += 1)}${randomBytes(3).toString('hex')}`;

function fanoutQueue(name = FANOUT_QUEUE): QueueClient {
  return new QueueClient(azurite.connectionString, name);
}

function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/**
 * Puts `text` on the fan-out queue as a message that has already been received (and failed)
 * `times` times, so the host's next failure is the last one `maxDequeueCount` allows.
 */
async function enqueueAged(text: string, times: number): Promise<void> {
  const queue = fanoutQueue();
  await queue.createIfNotExists();
  await queue.sendMessage(text);
  for (let n = 0; n < times; n += 1) {
    const [message] = (await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 30 })).receivedMessageItems;
    if (!message) throw new Error('the aged message vanished');
    await queue.updateMessage(message.messageId, message.popReceipt, undefined, 0);
  }
}

async function signIn(sub: string, contact: { email?: string; phone?: string } = {}): Promise<{ token: string; userId: string }> {
  const idToken = env.idToken(sub, {
    ...(contact.email ? { email: contact.email, email_verified: true } : {}),
    ...(contact.phone ? { phone_number: contact.phone, phone_number_verified: true } : {}),
  });
  const { token, userId, response } = await api.signInAdult(idToken);
  expect(response.status).toBe(200);
  return { token, userId };
}

/** A new adult with a verified address and/or number and `devices` registered devices (all canaries). */
async function person(options: { email?: boolean; phone?: boolean; devices?: number }): Promise<Person> {
  const id = unique();
  const email = options.email ? `member.${id}@canary-mail.test` : null;
  const phone = options.phone ? `+1555${String(1000000 + counter).slice(-7)}` : null;
  canaries.add(...[email, phone].filter((value): value is string => value !== null));
  const session = await signIn(`member-${id}`, { ...(email ? { email } : {}), ...(phone ? { phone } : {}) });
  const devices: string[] = [];
  for (let n = 0; n < (options.devices ?? 0); n += 1) devices.push(await registerDevice(session.token));
  return { ...session, email, phone, devices };
}

async function registerDevice(sessionToken: string): Promise<string> {
  const token = `ExponentPushToken[canary${unique()}Dev]`;
  canaries.add(token, token.slice('ExponentPushToken['.length, -1));
  const response = await api.request('PUT', '/api/v1/me/push-tokens', { token: sessionToken, body: { token } });
  expect(response.status).toBe(204);
  return token;
}

/** Creates, submits, approves and publishes an announcement as the administrator; its text is a canary. */
async function publish(channels: string[]): Promise<{ id: string; title: string; body: string }> {
  const n = unique();
  const title = `Canary notice ${n}`;
  const body = `Canary notice text ${n}: the hall is closed on Friday`;
  canaries.add(title, body);
  const created = await api.request('POST', '/api/v1/announcements', { token: admin.token, body: { title, body, channels } });
  expect(created.status).toBe(201);
  const id = String(created.body.id);
  for (const action of ['submit', 'approve', 'publish']) {
    expect((await api.request('POST', `/api/v1/announcements/${id}/${action}`, { token: admin.token })).status).toBe(200);
  }
  return { id, title, body };
}

/** Waits until `round` first messages of the announcement were handled and all their batches delivered. */
async function fanOutDone(announcementId: string, round = 1, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const initiated = host.lines.filter((l) => l.message === 'fan-out initiated' && l.announcementId === announcementId);
    const batches = initiated.slice(0, round).reduce((sum, l) => sum + Number(l.batches), 0);
    const delivered = host.lines.filter((l) => l.message === 'fan-out batch delivered' && l.announcementId === announcementId).length;
    if (initiated.length >= round && delivered >= batches) return;
    if (Date.now() > deadline) throw new Error(`fan-out ${announcementId} round ${round} not done: ${initiated.length} initiated, ${delivered}/${batches} batches`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface LedgerRow {
  userId: string;
  channel: string;
  result: string;
  attempts: number;
  providerCode: string | null;
}

function ledger(announcementId: string): LedgerRow[] {
  return readRows<LedgerRow>(
    databaseFile,
    'SELECT userId, channel, result, attempts, providerCode FROM NotificationDeliveries WHERE announcementId = @announcementId',
    { announcementId },
  );
}

function rowsOf(announcementId: string, userId: string): Record<string, string> {
  return Object.fromEntries(ledger(announcementId).filter((row) => row.userId === userId).map((row) => [row.channel, row.result]));
}

/** Lines of `message` about `announcementId`. */
function linesAbout(message: string, announcementId: string): Record<string, unknown>[] {
  return host.lines.filter((l) => l.message === message && l.announcementId === announcementId);
}

/** Sets this month's SMS spend (the guard's counter) to `spentUsd`, with no warning or cap yet recorded. */
function seedSmsSpend(spentUsd: number): void {
  const db = new DatabaseSync(databaseFile);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    const now = new Date().toISOString();
    db.prepare(
      `INSERT OR REPLACE INTO SmsMonthlySpend (month, spentMicroUsd, messages, warnedAt, capReachedAt, updatedAt)
       VALUES (@month, @spent, 0, NULL, NULL, @now)`,
    ).run({ month: now.slice(0, 7), spent: Math.round(spentUsd * 1_000_000), now });
  } finally {
    db.close();
  }
}

/** Where Event Grid delivers to the `communication-events` function (the Functions host's webhook). */
const eventsUrl = () => `${host.baseUrl}/runtime/webhooks/eventgrid?functionName=communication-events`;

/** Posts events as Event Grid does (Event Grid schema array, or a CloudEvents batch); the host's status. */
async function postEvents(events: readonly object[], schema: 'eventgrid' | 'cloudevents' = 'eventgrid'): Promise<number> {
  const response = await fetch(eventsUrl(), {
    method: 'POST',
    headers: {
      'aeg-event-type': 'Notification',
      'content-type': schema === 'cloudevents' ? 'application/cloudevents-batch+json; charset=utf-8' : 'application/json',
    },
    body: JSON.stringify(events),
  });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  fakes = await startFakeProviders();
  poisonText = base64Json({ announcementId: 'not-an-announcement-id' });
  env = await startAuthTestHost(
    'notifications',
    canaries,
    {
      BOOTSTRAP_ADMIN_SUBJECTS: 'notify-admin',
      FANOUT_BATCH_SIZE: '2',
      SMS_MONTHLY_CAP_USD: String(SMS_CAP_USD),
      SMS_UNIT_COST_USD: String(SMS_UNIT_USD),
      ...fakes.env,
    },
    {
      azurite: true,
      // Received four times before the host starts: the host's own fifth failure poisons it.
      beforeStart: async (started) => {
        azurite = started as RunningAzurite;
        await enqueueAged(poisonText, 4);
      },
    },
  );
  ({ host, api, databaseFile } = env);
  admin = await signIn('notify-admin');
});

afterAll(async () => {
  await env?.stop();
  await fakes?.close();
});

describe('notification settings', () => {
  it('registers and removes a device, refusing malformed tokens and anonymous callers', async () => {
    const { token } = await signIn(`settings-${unique()}`);
    const device = `ExpoPushToken[canary${unique()}Settings]`;
    canaries.add(device);
    expect((await api.request('PUT', '/api/v1/me/push-tokens', { token, body: { token: device } })).status).toBe(204);
    expect((await api.request('PUT', '/api/v1/me/push-tokens', { token, body: { token: device } })).status).toBe(204);
    expect(readRows(databaseFile, 'SELECT userId FROM PushTokens WHERE token = @device', { device })).toHaveLength(1);
    for (const body of [{ token: 'not-a-push-token' }, { token: device, extra: 1 }, {}]) {
      const refused = await api.request('PUT', '/api/v1/me/push-tokens', { token, body });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).not.toContain('not-a-push-token');
    }
    expect((await api.request('PUT', '/api/v1/me/push-tokens', { body: { token: device } })).status).toBe(401);
    expect((await api.request('DELETE', '/api/v1/me/push-tokens', { token, body: { token: device } })).status).toBe(204);
    expect((await api.request('DELETE', '/api/v1/me/push-tokens', { token, body: { token: device } })).status).toBe(204);
    expect(readRows(databaseFile, 'SELECT userId FROM PushTokens WHERE token = @device', { device })).toHaveLength(0);
    expect(host.lines.some((l) => l.message === 'push token registered' && l.devices === 1)).toBe(true);
  });

  it('reads and changes channel preferences: all on by default', async () => {
    const { token } = await signIn(`prefs-${unique()}`);
    const read = await api.request('GET', '/api/v1/me/notification-preferences', { token });
    expect(read).toMatchObject({ status: 200, body: { push: true, sms: true, email: true } });
    const changed = await api.request('PATCH', '/api/v1/me/notification-preferences', { token, body: { email: false } });
    expect(changed).toMatchObject({ status: 200, body: { push: true, sms: true, email: false } });
    expect((await api.request('GET', '/api/v1/me/notification-preferences', { token })).body).toEqual({ push: true, sms: true, email: false });
    for (const body of [{}, { sms: 'no' }, { fax: true }]) {
      expect((await api.request('PATCH', '/api/v1/me/notification-preferences', { token, body })).status).toBe(400);
    }
    expect((await api.request('GET', '/api/v1/me/notification-preferences')).status).toBe(401);
  });
});

describe('the fan-out', () => {
  let everyone: Person;
  let mailOnly: Person;
  let phoneAndDevices: Person;
  let child: { userId: string; device: string };
  let unscopedChildDevice: string;
  let first: { id: string; title: string; body: string };

  beforeAll(async () => {
    everyone = await person({ email: true, phone: true, devices: 1 });
    mailOnly = await person({ email: true });
    phoneAndDevices = await person({ phone: true, devices: 2 });
    const kids = [];
    for (const scopes of [['announcements'], ['events']]) {
      const username = `kid-${unique()}`;
      const pin = '739164';
      const created = await api.createChild(everyone.token, { username, pin, scopes });
      expect(created.status).toBe(201);
      const session = await api.signInChild(username, pin, { headers: { 'x-forwarded-for': `198.51.100.${counter % 200}` } });
      expect(session.status).toBe(200);
      kids.push({ userId: String(created.body.id), device: await registerDevice(String(session.body.token)) });
    }
    child = kids[0] as { userId: string; device: string };
    unscopedChildDevice = (kids[1] as { device: string }).device;
    first = await publish(['push', 'sms', 'email']);
    await fanOutDone(first.id);
  });

  it('publish → one ledger row per recipient × channel, each delivered once', () => {
    expect(rowsOf(first.id, everyone.userId)).toEqual({ push: 'success', sms: 'accepted', email: 'accepted' });
    expect(rowsOf(first.id, mailOnly.userId)).toEqual({ email: 'accepted' });
    expect(rowsOf(first.id, phoneAndDevices.userId)).toEqual({ push: 'success', sms: 'accepted' });
    expect(rowsOf(first.id, child.userId)).toEqual({ push: 'success' });
    expect(rowsOf(first.id, admin.userId)).toEqual({});
    for (const token of [...everyone.devices, ...phoneAndDevices.devices, child.device]) expect(fakes.expo.deliveriesTo(token)).toHaveLength(1);
    expect(fakes.expo.deliveriesTo(unscopedChildDevice)).toHaveLength(0);
    expect(fakes.expo.deliveriesTo(child.device)[0]).toMatchObject({ title: first.title, body: first.body, data: { announcementId: first.id } });
    expect(fakes.acs.smsTo(everyone.phone as string)).toEqual([
      expect.objectContaining({ enableDeliveryReport: true, tag: `${first.id}/${everyone.userId}`, message: `${first.title}\n${first.body}` }),
    ]);
    // No e-mail waits for its operation: nothing but the sends reached ACS.
    expect(fakes.acs.requests.emailStatus).toBe(0);
    expect(fakes.acs.emailsTo(mailOnly.email as string)).toEqual([expect.objectContaining({ subject: first.title, plainText: first.body })]);

    const initiated = linesAbout('fan-out initiated', first.id);
    expect(initiated).toEqual([
      expect.objectContaining({ level: 'info', service: 'notifications', channels: ['push', 'sms', 'email'], userId: null }),
    ]);
    expect(initiated[0]?.recipients).toBe(new Set(ledger(first.id).map((row) => row.userId)).size);
    const attempts = linesAbout('delivery attempt', first.id);
    expect(attempts).toHaveLength(ledger(first.id).length);
    expect(attempts.every((l) => l.level === 'info' && ['success', 'accepted'].includes(String(l.result)) && typeof l.recipientUserId === 'string')).toBe(true);
    // Everything the queue function wrote, telemetry lines included, is a notifications line.
    const fanoutTrace = String(initiated[0]?.traceId);
    const traceLines = host.lines.filter((l) => l.traceId === fanoutTrace);
    expect(traceLines.some((l) => l.message === 'telemetry event')).toBe(true);
    expect(traceLines.every((l) => l.service === 'notifications')).toBe(true);
    const events = host.lines.filter((l) => l.message === 'telemetry event');
    expect(events.some((l) => l.event === 'notification.fanout' && (l.properties as Record<string, unknown>).announcementId === first.id)).toBe(true);
    expect(events.filter((l) => l.event === 'notification.delivery').length).toBeGreaterThanOrEqual(attempts.length);
  });

  it('sends nothing twice when the same message is delivered again', async () => {
    const before = { ...fakes.expo.requests, ...fakes.acs.requests, deliveries: fakes.expo.deliveries.length };
    await fanoutQueue().sendMessage(base64Json({ announcementId: first.id }));
    await fanOutDone(first.id, 2);
    expect({ ...fakes.expo.requests, ...fakes.acs.requests, deliveries: fakes.expo.deliveries.length }).toEqual(before);
    expect(ledger(first.id).every((row) => row.attempts === 1 && ['success', 'accepted'].includes(row.result))).toBe(true);
  });

  it('retries a provider 500 inside the SDK and sends once', async () => {
    const flaky = await person({ phone: true });
    fakes.acs.scriptSms(flaky.phone as string, { httpStatus: 500 }, 'ok');
    const notice = await publish(['sms']);
    await fanOutDone(notice.id);
    expect(fakes.acs.smsTo(flaky.phone as string)).toHaveLength(1);
    expect(rowsOf(notice.id, flaky.userId)).toEqual({ sms: 'accepted' });
    expect(linesAbout('delivery attempt failed; retrying', notice.id)).toEqual([
      expect.objectContaining({ level: 'warn', recipientUserId: flaky.userId, channel: 'sms', providerCode: 'http_500', failedTries: 1 }),
    ]);
    expect(linesAbout('delivery attempt', notice.id).filter((l) => l.recipientUserId === flaky.userId)).toEqual([
      expect.objectContaining({ result: 'accepted', tries: 2 }),
    ]);
  });

  it('removes a stale push token with a warn line', async () => {
    const gone = await person({ devices: 1 });
    const stale = gone.devices[0] as string;
    fakes.expo.script(stale, 'device_not_registered');
    const notice = await publish(['push']);
    await fanOutDone(notice.id);
    expect(readRows(databaseFile, 'SELECT userId FROM PushTokens WHERE token = @stale', { stale })).toEqual([]);
    expect(rowsOf(notice.id, gone.userId)).toEqual({ push: 'stale_token' });
    expect(linesAbout('stale push token removed', notice.id)).toEqual([
      expect.objectContaining({ level: 'warn', recipientUserId: gone.userId, providerCode: 'DeviceNotRegistered' }),
    ]);
  });

  it('suppresses an SMS to a recipient who opted out, with an info line', async () => {
    const quiet = await person({ phone: true });
    const patched = await api.request('PATCH', '/api/v1/me/notification-preferences', { token: quiet.token, body: { sms: false } });
    expect(patched.status).toBe(200);
    const notice = await publish(['sms']);
    await fanOutDone(notice.id);
    expect(fakes.acs.smsTo(quiet.phone as string)).toEqual([]);
    expect(rowsOf(notice.id, quiet.userId)).toEqual({ sms: 'opted_out' });
    expect(linesAbout('sms suppressed: recipient opted out', notice.id)).toEqual([
      expect.objectContaining({ level: 'info', recipientUserId: quiet.userId, reason: 'user_choice' }),
    ]);
  });

  it('marks an address whose delivery report says Bounced, and never tries it again', async () => {
    const bouncing = await person({ email: true });
    fakes.acs.scriptEmail(bouncing.email as string, 'hard_bounce');
    const notice = await publish(['email']);
    await fanOutDone(notice.id);
    expect(rowsOf(notice.id, bouncing.userId)).toEqual({ email: 'accepted' });
    const [sent] = fakes.acs.emailsTo(bouncing.email as string);
    expect(await postEvents([emailDeliveryReport(sent as EmailDelivery, 'Bounced')])).toBe(202);
    expect(rowsOf(notice.id, bouncing.userId)).toEqual({ email: 'hard_bounce' });
    expect(readRows(databaseFile, 'SELECT providerCode FROM EmailHardBounces WHERE email = @email', { email: bouncing.email })).toHaveLength(1);
    const sends = fakes.acs.requests.emailSend;
    const next = await publish(['email']);
    await fanOutDone(next.id);
    expect(rowsOf(next.id, bouncing.userId)).toEqual({});
    expect(fakes.acs.requests.emailSend - sends).toBe(ledger(next.id).length);
  });

  it('warns once at 80 % of the monthly SMS cap and sends no SMS past it', async () => {
    await person({ phone: true });
    await person({ phone: true });
    seedSmsSpend(SMS_CAP_USD * 0.8 - SMS_UNIT_USD);
    const nearing = await publish(['sms']);
    await fanOutDone(nearing.id);
    const sent = ledger(nearing.id).filter((row) => row.result === 'accepted').length;
    expect(sent).toBeGreaterThanOrEqual(3);
    expect(ledger(nearing.id).some((row) => row.result === 'budget_exceeded')).toBe(false);
    const warnings = host.lines.filter((l) => l.message === 'sms spend reached 80% of the monthly cap');
    expect(warnings).toEqual([expect.objectContaining({ level: 'warn', capUsd: SMS_CAP_USD })]);
    expect(Number(warnings[0]?.spentUsd)).toBeGreaterThanOrEqual(SMS_CAP_USD * 0.8);

    seedSmsSpend(SMS_CAP_USD - 2 * SMS_UNIT_USD);
    const capped = await publish(['sms']);
    await fanOutDone(capped.id);
    const results = ledger(capped.id).map((row) => row.result);
    expect(results.filter((result) => result === 'accepted')).toHaveLength(2);
    expect(results.filter((result) => result === 'budget_exceeded').length).toBe(sent - 2);
    expect(fakes.acs.smsDeliveries.filter((sms) => String(sms.message).startsWith(capped.title))).toHaveLength(2);
    expect(host.lines.filter((l) => l.message === 'sms monthly spend cap reached; messages that would cross it are not sent')).toHaveLength(1);
    expect(linesAbout('sms suppressed: monthly spend cap reached', capped.id)).toHaveLength(sent - 2);
  });
});

describe('delivery reports over Event Grid', () => {
  // The spend guard's test above left this month at the cap.
  beforeAll(() => seedSmsSpend(0));

  it('answers the subscription handshakes of both schemas', async () => {
    const validation = subscriptionValidation('3d0f7c40-5e0b-4b6b-9a51-2f5d1e9e7c11');
    const answer = await fetch(eventsUrl(), {
      method: 'POST',
      headers: { 'aeg-event-type': 'SubscriptionValidation', 'content-type': 'application/json' },
      body: JSON.stringify([validation]),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ validationResponse: '3d0f7c40-5e0b-4b6b-9a51-2f5d1e9e7c11' });
    const options = await fetch(eventsUrl(), { method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'eventgrid.azure.net' } });
    expect(options.status).toBe(200);
    expect(options.headers.get('webhook-allowed-origin')).toBe('eventgrid.azure.net');
  });

  it('settles SMS and e-mail by their reports in either schema; duplicates and late reports change nothing', async () => {
    const reader = await person({ email: true, phone: true });
    const notice = await publish(['sms', 'email']);
    await fanOutDone(notice.id);
    expect(rowsOf(notice.id, reader.userId)).toEqual({ sms: 'accepted', email: 'accepted' });
    const sms = fakes.acs.smsTo(reader.phone as string)[0] as SmsDelivery;
    const email = fakes.acs.emailsTo(reader.email as string)[0] as EmailDelivery;
    const delivered = smsDeliveryReport(sms, 'Delivered');
    expect(await postEvents([delivered])).toBe(202);
    expect(await postEvents([asCloudEvent(emailDeliveryReport(email, 'Delivered'))], 'cloudevents')).toBe(202);
    expect(rowsOf(notice.id, reader.userId)).toEqual({ sms: 'delivered', email: 'delivered' });
    // The same event again, then a Failed report that arrives after the Delivered one.
    expect(await postEvents([delivered, smsDeliveryReport(sms, 'Failed')])).toBe(202);
    expect(rowsOf(notice.id, reader.userId)).toEqual({ sms: 'delivered', email: 'delivered' });
    const applied = host.lines.filter((l) => l.message === 'communication event applied' && l.announcementId === notice.id);
    expect(applied).toEqual([
      expect.objectContaining({ level: 'info', service: 'notifications', channel: 'sms', result: 'delivered', recipientUserId: reader.userId }),
      expect.objectContaining({ level: 'info', service: 'notifications', channel: 'email', result: 'delivered', recipientUserId: reader.userId }),
    ]);
    const events = host.lines.filter((l) => l.message === 'telemetry event' && l.event === 'notification.delivery' && l.service === 'notifications');
    expect(events.filter((l) => (l.properties as Record<string, unknown>).result === 'delivered').length).toBeGreaterThanOrEqual(2);
  });

  it('a STOP reply stops the next SMS and START brings it back, whatever order the replies arrive in', async () => {
    const reader = await person({ phone: true });
    const phone = reader.phone as string;
    const at = Date.now();
    const stop = smsReceived(phone, FAKE_SMS_FROM, 'STOP', new Date(at));
    const start = smsReceived(phone, FAKE_SMS_FROM, 'start', new Date(at + 60_000));
    canaries.add(stop.data.messageId as string, start.data.messageId as string);
    expect(await postEvents([stop])).toBe(202);
    const stopped = await publish(['sms']);
    await fanOutDone(stopped.id);
    expect(rowsOf(stopped.id, reader.userId)).toEqual({ sms: 'opted_out' });
    expect(fakes.acs.smsTo(phone)).toEqual([]);
    expect(linesAbout('sms suppressed: recipient opted out', stopped.id).filter((l) => l.recipientUserId === reader.userId)).toEqual([
      expect.objectContaining({ reason: 'provider_stop' }),
    ]);
    // START, then the STOP delivered again late: the later keyword (START) stays in force.
    expect(await postEvents([asCloudEvent(start)], 'cloudevents')).toBe(202);
    expect(await postEvents([{ ...stop, id: `${stop.id}-redelivered` }])).toBe(202);
    const resumed = await publish(['sms']);
    await fanOutDone(resumed.id);
    expect(rowsOf(resumed.id, reader.userId)).toEqual({ sms: 'accepted' });
    expect(fakes.acs.smsTo(phone)).toHaveLength(1);
  });

  it('acknowledges a malformed event with a warn line and refuses a body that is not events', async () => {
    const broken: EventGridEvent = smsReceived('+15550109999', FAKE_SMS_FROM, 'STOP');
    delete (broken.data as { from?: unknown }).from;
    expect(await postEvents([broken])).toBe(202);
    expect(host.lines.filter((l) => l.message === 'communication event refused').at(-1)).toMatchObject({
      level: 'warn',
      service: 'notifications',
      eventType: 'Microsoft.Communication.SMSReceived',
      reason: 'data: from: invalid_type',
    });
    const notJson = await fetch(eventsUrl(), { method: 'POST', headers: { 'aeg-event-type': 'Notification' }, body: '{"events": [' });
    expect(notJson.status).toBe(400);
    expect(readRows(databaseFile, 'SELECT phone FROM SmsOptOuts WHERE phone = @phone', { phone: '+15550109999' })).toEqual([]);
  });
});

describe('a message that keeps failing', () => {
  it('reaches the poison queue after maxDequeueCount with error lines', async () => {
    const moved = await host.waitForLine((l) => l.message === 'queue message moved to poison queue', 20_000);
    expect(moved).toMatchObject({ level: 'error', errorCode: 'poison_message', queueName: FANOUT_QUEUE, dequeueCount: 5 });
    const failed = host.lines.find((l) => l.message === 'background function failed' && l.functionName === 'notification-fanout');
    expect(failed).toMatchObject({ level: 'error', service: 'notifications', stack: expect.stringContaining('FanoutError: invalid_fanout_message') });
    const poisoned = await fanoutQueue(`${FANOUT_QUEUE}-poison`).peekMessages({ numberOfMessages: 32 });
    expect(poisoned.peekedMessageItems.map((message) => message.messageText)).toContain(poisonText);
  });
});

describe('privacy', () => {
  it('writes no address, phone number, push token or announcement text to stdout or the audit log', () => {
    expect(canaries.size).toBeGreaterThan(30);
    expect(host.invalidLines).toEqual([]);
    // Positive controls: the search finds a number and a device token the fakes received.
    expect(canaries.findIn(`"${fakes.acs.smsDeliveries[0]?.to ?? 'none'}"`)).toHaveLength(1);
    expect(canaries.findIn(`"${fakes.expo.deliveries[0]?.to ?? 'none'}"`).length).toBeGreaterThanOrEqual(1);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
