import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { QueueClient } from '@azure/storage-queue';
import { describe, it, type ExpectStatic } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { busyTurns, processState, waitFor } from '../helpers/crash-kit';
import { queueMessageTexts, startProviderGate, type GatedRequest, type ProviderGate } from '../helpers/fake-providers/provider-gate';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { readRows, seedNineFailures } from '../helpers/sqlite-reader';

/**
 * The crash points the ledger's row leases do not cover by themselves, each killed with SIGKILL
 * under the Functions host's 10-minute queue lease (the local host keeps a running message
 * invisible for 10 minutes), then restarted on the same SQLite file and Azurite queue:
 * - `batch`: batch messages taken from the queue by the host, which dies before any claim of
 *   theirs committed (the gate in front of Azurite forwards the host's dequeue and never gives it
 *   the answer: the messages are invisible, and nothing of them is in the database);
 * - `split`: the first message of a fan-out killed while splitting (its first batch enqueued and
 *   delivered, the second batch's enqueue held at the gate);
 * - `notice`: an account notice (a child's account locked) killed with its push at Expo and its
 *   e-mail at ACS (the e-mail executed, its answer never read; the push executed, unanswered).
 * Each must be taken up again from the database within 2 minutes of the restart, the host's own
 * messages still invisible: every SMS and e-mail exactly once at the fakes, every push at least
 * once and twice only where its request was unanswered at the kill, and the SQLite file intact.
 */
const FAMILIES = 40;
const BATCH_SIZE = 20;
const RESUME_LIMIT_MS = 120_000;
const PEPPER = 'e2e-crash-points-pepper-0123456789abcdef';
const FANOUT_QUEUE = 'notification-fanout';

type Scenario = 'batch' | 'split' | 'notice';

const unique = (): string => randomBytes(4).toString('hex');
let phones = 0;
let addresses = 0;
const takeBusyTurn = busyTurns();

interface Family {
  userId: string;
  email: string;
  phone: string;
  device: string;
}

interface Rig {
  fakes: FakeProviders;
  expoGate: ProviderGate;
  acsGate: ProviderGate;
  queueGate: ProviderGate;
  env: AuthTestHost;
  canaries: CanaryTracker;
  queue: QueueClient;
}

/** A host whose providers and queue service are each behind a gate, on a database and Azurite of its own. */
async function startRig(name: string): Promise<Rig> {
  const canaries = new CanaryTracker();
  const fakes = await startFakeProviders();
  const expoGate = await startProviderGate(new URL(fakes.expo.url).origin);
  const acsGate = await startProviderGate(fakes.acs.endpoint);
  let queueGate: ProviderGate | undefined;
  const env: Record<string, string> = {
    BOOTSTRAP_ADMIN_SUBJECTS: 'crash-admin',
    FANOUT_BATCH_SIZE: String(BATCH_SIZE),
    TRUST_PROXY_HOPS: '1',
    CHILD_SECRET_PEPPER: PEPPER,
    ...fakes.env,
    EXPO_PUSH_URL: `${expoGate.origin}${new URL(fakes.expo.url).pathname}`,
    ACS_CONNECTION_STRING: fakes.acs.connectionString.replace(fakes.acs.endpoint, acsGate.origin),
  };
  const host = await startAuthTestHost(`crash-points-${name}`, canaries, env, {
    azurite: true,
    beforeStart: async (azurite) => {
      const endpoint = /QueueEndpoint=(http:\/\/[^/;]+)/.exec(String(azurite?.connectionString))?.[1] as string;
      queueGate = await startProviderGate(endpoint);
      // Shared Key signatures name the account and path, not the host: the gate is transparent.
      env.AzureWebJobsStorage = String(azurite?.connectionString).replace(endpoint, queueGate.origin);
    },
  });
  const queue = new QueueClient(String(host.azurite?.connectionString), FANOUT_QUEUE);
  return { fakes, expoGate, acsGate, queueGate: queueGate as ProviderGate, env: host, canaries, queue };
}

/**
 * One scenario in its busy turn, on a rig of its own: `body` kills the first host and `restart`s it
 * (which ends the turn), and returns the restarted host, whose log must be schema-valid and free of
 * canaries and which must stop cleanly.
 */
async function inRig(
  name: string,
  expect: ExpectStatic,
  body: (rig: Rig, restart: () => Promise<LocalHost>) => Promise<LocalHost>,
): Promise<void> {
  const turn = takeBusyTurn();
  await turn.ready;
  let rig: Rig | undefined;
  let restarted: LocalHost | undefined;
  try {
    rig = await startRig(name);
    const r = rig;
    const second = await body(r, async () => {
      restarted = await startLocalHost(r.env.hostEnv);
      turn.done();
      return restarted;
    });
    expect(second.invalidLines).toEqual([]);
    expect(r.canaries.findIn(second.stdout.join('\n'))).toEqual([]);
    expect(await second.stop()).toBe(0);
    restarted = undefined;
  } finally {
    turn.done();
    await restarted?.stop();
    await rig?.env.stop();
    await Promise.all([rig?.expoGate.close(), rig?.acsGate.close(), rig?.queueGate.close()]);
    await rig?.fakes.close();
  }
}

async function signIn(rig: Rig, sub: string, expect: ExpectStatic, contact: { email?: string; phone?: string } = {}): Promise<{ token: string; userId: string }> {
  const idToken = rig.env.idToken(sub, {
    ...(contact.email ? { email: contact.email, email_verified: true } : {}),
    ...(contact.phone ? { phone_number: contact.phone, phone_number_verified: true } : {}),
  });
  const { token, userId, response } = await rig.env.api.signInAdult(idToken);
  expect(response.status).toBe(200);
  return { token, userId };
}

/** An adult with a verified address and number and one push device (all canaries). */
async function newFamily(rig: Rig, expect: ExpectStatic): Promise<Family & { token: string }> {
  const id = unique();
  const email = `family.${id}@canary-mail.test`;
  const phone = `+1555${String(4000000 + (phones += 1)).slice(-7)}`;
  const device = `ExponentPushToken[canary${unique()}Points]`;
  rig.canaries.add(email, phone, device, device.slice('ExponentPushToken['.length, -1));
  const session = await signIn(rig, `family-${id}`, expect, { email, phone });
  const registered = await rig.env.api.request('PUT', '/api/v1/me/push-tokens', { token: session.token, body: { token: device } });
  expect(registered.status).toBe(204);
  return { userId: session.userId, email, phone, device, token: session.token };
}

/** Visible messages and all messages (visible or under a lease) of the fan-out queue, read at Azurite itself. */
async function queueCounts(queue: QueueClient): Promise<{ visible: number; all: number }> {
  const [peeked, properties] = await Promise.all([queue.peekMessages({ numberOfMessages: 32 }), queue.getProperties()]);
  return { visible: peeked.peekedMessageItems.length, all: properties.approximateMessagesCount ?? 0 };
}

const kindOf = (text: string): 'split' | 'batch' | 'notice' | 'other' => {
  try {
    const message = JSON.parse(text) as Record<string, unknown>;
    return 'notice' in message ? 'notice' : 'batch' in message ? 'batch' : 'announcementId' in message ? 'split' : 'other';
  } catch {
    return 'other';
  }
};

async function killHost(host: LocalHost, expect: ExpectStatic, beforeKill: () => Promise<void> = async () => undefined): Promise<number> {
  process.kill(host.pid, 'SIGSTOP');
  await waitFor('the host to stop', () => processState(host.pid) === 'T', 2_000, 5);
  await beforeKill();
  process.kill(host.pid, 'SIGKILL');
  expect(await host.exited).toEqual({ code: null, signal: 'SIGKILL' });
  return Date.now();
}

function integrityOk(file: string, expect: ExpectStatic): void {
  const db = new DatabaseSync(file);
  try {
    expect(db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
  } finally {
    db.close();
  }
}

/** Provider requests (not queue traffic) a gate saw. */
const providerRequests = (rig: Rig): GatedRequest[] =>
  [...rig.expoGate.requests, ...rig.acsGate.requests].filter((request) => request.channel === 'push' || request.channel === 'sms' || request.channel === 'email');

/** An announcement to every family, killed at the scenario's point, then resumed. */
async function fanoutScenario(scenario: 'batch' | 'split', expect: ExpectStatic): Promise<void> {
  await inRig(scenario, expect, async (r, restart) => {
    const admin = await signIn(r, 'crash-admin', expect);
    const families: Family[] = [];
    for (let n = 0; n < FAMILIES; n += 1) families.push(await newFamily(r, expect));
    families.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    const firstBatch = new Set(families.slice(0, BATCH_SIZE).map((f) => f.userId));
    const ledger = (announcementId: string) =>
      readRows<{ userId: string; channel: string; result: string }>(
        r.env.databaseFile,
        'SELECT userId, channel, result FROM NotificationDeliveries WHERE announcementId = @announcementId',
        { announcementId },
      );

    if (scenario === 'batch') {
      // Once a dequeue has brought a message (the split), every later dequeue is held.
      r.queueGate.setPlan(({ method }) =>
        method === 'GET' && r.queueGate.requests.some((q) => q.channel === 'queue' && queueMessageTexts(q.answerText ?? '').length > 0) ? 'hold' : 'pass',
      );
    } else {
      // The split's enqueue of any batch but the first is held: the split is stuck half done.
      r.queueGate.setPlan(({ method, recipients }) =>
        method === 'POST' && recipients.some((text) => kindOf(text) === 'batch' && (JSON.parse(text) as { batch: { afterUserId: string } }).batch.afterUserId !== '')
          ? 'hold'
          : 'pass',
      );
    }

    const title = `Canary point notice ${unique()}`;
    const text = `Canary point text ${unique()}: the pool opens at nine`;
    r.canaries.add(title, text);
    const created = await r.env.api.request('POST', '/api/v1/announcements', { token: admin.token, body: { title, body: text, channels: ['push', 'sms', 'email'] } });
    expect(created.status).toBe(201);
    const announcementId = String(created.body.id);
    for (const action of ['submit', 'approve', 'publish']) {
      expect((await r.env.api.request('POST', `/api/v1/announcements/${announcementId}/${action}`, { token: admin.token })).status).toBe(200);
    }
    const first = r.env.host;
    expect(await first.waitForLine((line) => line.message === 'fan-out initiated' && line.announcementId === announcementId, 20_000)).toMatchObject({
      recipients: FAMILIES,
      batches: FAMILIES / BATCH_SIZE,
    });

    let killedAt: number;
    if (scenario === 'batch') {
      // The split is done (its message gone, both batch messages visible), the host's next dequeue held.
      await waitFor('the host\'s next dequeue held', () => r.queueGate.held().some((q) => q.path.endsWith(`/${FANOUT_QUEUE}/messages`)), 10_000);
      let counts = { visible: 0, all: 0 };
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        counts = await queueCounts(r.queue);
        if (counts.visible === 2 && counts.all === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(counts, 'the split done, its two batches waiting').toEqual({ visible: 2, all: 2 });
      killedAt = await killHost(first, expect, async () => {
        // Azurite hands both batches over (invisible for the host's 10 minutes); the host never hears.
        const dequeue = r.queueGate.held().find((q) => q.path.endsWith(`/${FANOUT_QUEUE}/messages`));
        await r.queueGate.release(dequeue as GatedRequest, { answer: false });
        expect(queueMessageTexts(dequeue?.answerText ?? '').map(kindOf)).toEqual(['batch', 'batch']);
      });
      expect(await queueCounts(r.queue)).toEqual({ visible: 0, all: 2 });
      expect(ledger(announcementId), 'no claim of either batch committed').toEqual([]);
      expect(providerRequests(r)).toEqual([]);
    } else {
      // The first batch delivered in full while the split waits on the second batch's enqueue.
      await waitFor(
        'the first batch delivered, the second batch held at the queue',
        () => {
          const rows = ledger(announcementId);
          return r.queueGate.held().length === 1 && rows.length === BATCH_SIZE * 3 && rows.every((row) => row.result !== 'pending');
        },
        30_000,
      );
      // Delivered means its message finished too: the host deletes it right after the ledger's last
      // write, and a kill in between would leave it beside the split message.
      let counts = { visible: 0, all: 0 };
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        counts = await queueCounts(r.queue);
        if (counts.all === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(counts, 'the first batch\'s message done, the split message alone under the lease').toEqual({ visible: 0, all: 1 });
      killedAt = await killHost(first, expect);
      const rows = ledger(announcementId);
      expect(rows.every((row) => firstBatch.has(row.userId)), 'only the first batch has ledger rows').toBe(true);
      expect(await queueCounts(r.queue), 'the split message under the dead host\'s lease').toEqual({ visible: 0, all: 1 });
    }
    integrityOk(r.env.databaseFile, expect);
    expect(r.canaries.findIn(first.stdout.join('\n'))).toEqual([]);

    r.queueGate.setPlan(() => 'pass');
    const beforeRestart = new Set(providerRequests(r));
    const restartedAt = Date.now();
    const second = await restart();
    const allDone = () => {
      const rows = ledger(announcementId);
      return rows.length === FAMILIES * 3 && rows.every((row) => row.result !== 'pending');
    };
    await waitFor(`[${scenario}] every delivery of the announcement made after the restart`, allDone, RESUME_LIMIT_MS + 30_000, 250);
    const doneAt = Date.now();
    const resent = providerRequests(r).filter((request) => !beforeRestart.has(request));
    console.info(
      `[${scenario}] kill→restart ${restartedAt - killedAt} ms; restart→first provider request ${Math.min(...resent.map((q) => q.arrivedAt)) - restartedAt} ms; ` +
        `restart→every row final ${doneAt - restartedAt} ms`,
    );
    expect(doneAt - restartedAt, 'restart to every delivery made (ms)').toBeLessThanOrEqual(RESUME_LIMIT_MS);
    // The host's own messages were still invisible: the work was taken up from the database.
    expect((await queueCounts(r.queue)).all, 'the dead host\'s messages still under its lease').toBeGreaterThan(0);

    for (const member of families) {
      expect.soft(r.fakes.acs.smsTo(member.phone).filter((d) => String(d.message).startsWith(title)), `[${scenario}] SMS once`).toHaveLength(1);
      expect.soft(r.fakes.acs.emailsTo(member.email).filter((d) => d.subject === title), `[${scenario}] e-mail once`).toHaveLength(1);
      // No push was in flight at the kill: each exactly once.
      expect.soft(r.fakes.expo.deliveriesTo(member.device).filter((d) => d.title === title), `[${scenario}] push once`).toHaveLength(1);
    }
    const final = ledger(announcementId);
    expect(final.filter((row) => row.channel === 'push').map((row) => row.result)).toEqual(Array(FAMILIES).fill('success'));
    expect(final.filter((row) => row.channel !== 'push').map((row) => row.result)).toEqual(Array(FAMILIES * 2).fill('accepted'));
    return second;
  });
}

/** A child's account locks; its notice to the parent is killed with both sends at the providers, then resumed. */
async function noticeScenario(expect: ExpectStatic): Promise<void> {
  await inRig('notice', expect, async (r, restart) => {
    const parent = await newFamily(r, expect);
    const username = `otter.${unique()}`;
    expect((await r.env.api.createChild(parent.token, { username, pin: '739164', scopes: ['events'] })).status).toBe(201);
    r.canaries.add(username);
    // The next wrong PIN is the tenth, and locks the account.
    seedNineFailures(r.env.databaseFile, PEPPER, username);
    r.expoGate.setPlan(() => 'hold');
    r.acsGate.setPlan(({ channel }) => (channel === 'email' ? 'hold' : 'pass'));
    r.canaries.add('480213');
    const tenth = await r.env.api.signInChild(username, '480213', { headers: { 'x-forwarded-for': `198.51.100.${(addresses += 1)}` } });
    expect(tenth.status).toBe(401);
    const first = r.env.host;
    const notices = () =>
      readRows<{ channel: string; result: string }>(
        r.env.databaseFile,
        'SELECT d.channel, d.result FROM AccountNoticeDeliveries d JOIN AccountNotices n ON n.id = d.noticeId WHERE n.recipientUserId = @userId ORDER BY d.channel',
        { userId: parent.userId },
      );
    await waitFor('the notice\'s push and e-mail held at the providers', () => r.expoGate.held().length === 1 && r.acsGate.held().length === 1, 20_000);
    const killedAt = await killHost(first, expect, async () => {
      await Promise.all([
        // ACS executes the e-mail and answers; the stopped process never reads it.
        ...r.acsGate.held().map((request) => r.acsGate.release(request, { answer: true })),
        // Expo takes the push; its answer never comes back.
        ...r.expoGate.held().map((request) => r.expoGate.release(request, { answer: false })),
      ]);
    });
    expect(notices()).toEqual([
      { channel: 'email', result: 'pending' },
      { channel: 'push', result: 'pending' },
    ]);
    expect(await queueCounts(r.queue), 'the notice message under the dead host\'s lease').toEqual({ visible: 0, all: 1 });
    integrityOk(r.env.databaseFile, expect);
    expect(r.canaries.findIn(first.stdout.join('\n'))).toEqual([]);

    r.expoGate.setPlan(() => 'pass');
    r.acsGate.setPlan(() => 'pass');
    const restartedAt = Date.now();
    const second = await restart();
    await waitFor('[notice] the notice delivered after the restart', () => notices().every((row) => row.result !== 'pending'), RESUME_LIMIT_MS + 30_000, 250);
    const doneAt = Date.now();
    console.info(`[notice] kill→restart ${restartedAt - killedAt} ms; restart→notice delivered ${doneAt - restartedAt} ms`);
    expect(doneAt - restartedAt, 'restart to the notice delivered (ms)').toBeLessThanOrEqual(RESUME_LIMIT_MS);
    // The re-driven copy is deleted once its invocation returns, a moment after its rows are final.
    let left = await queueCounts(r.queue);
    for (const deadline = Date.now() + 10_000; left.all > 1 && Date.now() < deadline; left = await queueCounts(r.queue)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(left, 'only the dead host\'s message is left, still under its lease').toEqual({ visible: 0, all: 1 });
    expect(notices()).toEqual([
      { channel: 'email', result: 'accepted' },
      { channel: 'push', result: 'success' },
    ]);
    const subject = `${username}'s account is locked`;
    expect(r.fakes.acs.emailsTo(parent.email).filter((d) => d.subject === subject), 'the notice e-mailed once').toHaveLength(1);
    // The push request was unanswered at the kill: a second copy is what Expo's lack of a key costs.
    expect(r.fakes.expo.deliveriesTo(parent.device).filter((d) => d.title === subject).length).toBeGreaterThanOrEqual(1);
    expect(r.fakes.expo.deliveriesTo(parent.device).length).toBeLessThanOrEqual(2);
    return second;
  });
}

const TITLES: Record<Scenario, string> = {
  batch: 'batch messages taken by the host, which dies before any claim of theirs committed',
  split: 'a fan-out killed while splitting (one batch enqueued and delivered, the next enqueue pending)',
  notice: "a child's lock notice killed with its push at Expo and its e-mail executed at ACS",
};

// Side by side: each waits for its recovery while the next one sets up.
describe.concurrent("SIGKILL at the points the ledger's row leases do not cover, under the Functions host's 10-minute queue lease", () => {
  for (const scenario of ['batch', 'split', 'notice'] as const) {
    it(`${TITLES[scenario]}: taken up again from the database within 2 minutes, every SMS and e-mail once`, async ({ expect }) => {
      await (scenario === 'notice' ? noticeScenario(expect) : fanoutScenario(scenario, expect));
    }, 360_000);
  }
});
