import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { describe, it, type ExpectStatic } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { busyTurns, processState, waitFor } from '../helpers/crash-kit';
import { startProviderGate, type GateChannel, type GatedRequest, type ProviderGate } from '../helpers/fake-providers/provider-gate';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers/start-fake-providers';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { readRows } from '../helpers/sqlite-reader';

/**
 * The local host, which keeps a running queue message invisible for
 * the Functions host's 10 minutes (renewed halfway), is killed with SIGKILL in the middle of a
 * fan-out, then restarted on the same SQLite file and Azurite queue, and the fake providers count
 * what was really sent. The batch messages the killed host held stay invisible for 10 minutes, so
 * delivery can only resume from the ledger (the recovery timer re-drives rows whose lease ran out
 * with no live holder). Three kill moments, each its own host, run side by side:
 * - `push`: the pushes are at Expo (every push request held, then executed with its answer lost:
 *   the app never heard); SMS and e-mail recorded;
 * - `sms`: the SMS are going out: pushes answered and recorded, a few SMS answered and recorded, the
 *   rest held, then half of those executed with answers the stopped process never reads, and the
 *   e-mails not yet called;
 * - `email`: the e-mails are going out, the same way, after every push and SMS was recorded.
 * The gate (`provider-gate.ts`) holds the chosen requests; the host is stopped (SIGSTOP) before
 * held requests are executed, then killed. Afterwards: every family exactly once on SMS and
 * e-mail, pushed at least once and a second time only when its push request was unanswered at the
 * kill, the delivery done within 2 minutes of the restart by re-driven batches only (the host's
 * own messages still invisible), and the SQLite file passes `integrity_check` after the kill.
 */
const FAMILIES = 40;
const BATCH_SIZE = 20;
/** Requests of the moment's ACS channel answered (and recorded) per batch before the rest are held. */
const PASSED_BEFORE_HOLDING = 2;
/** The app gives up on a provider try after 10 s (`DEFAULT_REQUEST_TIMEOUT_MS`) and retries: the kill must come first. */
const HOLD_BUDGET_MS = 8_000;
const RESUME_LIMIT_MS = 120_000;

type Moment = 'push' | 'sms' | 'email';
type Step = 'recorded' | 'answered_unread' | 'in_flight' | 'not_called';

interface Family {
  userId: string;
  email: string;
  phone: string;
  device: string;
  batch: number;
}

interface LedgerRow {
  userId: string;
  channel: string;
  result: string;
}

const unique = (): string => randomBytes(4).toString('hex');
let phones = 0;

/** What the restarted host counted of rows marked first-sent with no answer, which it sent again inside ACS's window. */
function resumedSends(host: LocalHost): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of host.lines.filter((l) => l.message === 'fan-out batch resent interrupted sends under their first request')) {
    counts[String(line.channel)] = (counts[String(line.channel)] ?? 0) + Number(line.resumedSends);
  }
  return counts;
}

const provided = (request: GatedRequest): boolean => request.channel !== 'other' && request.channel !== 'queue';

/**
 * The busy part of each scenario (sign-ups, fan-out, kill, restart) runs one at a time; only the
 * waits for the re-drive overlap, so the three load the machine (and the test files beside them)
 * no more than one would.
 */
const takeBusyTurn = busyTurns();

/** One kill at `moment` and a restart, on a host, database, queue and providers of its own. */
async function killAndResume(moment: Moment, expect: ExpectStatic): Promise<void> {
  const turn = takeBusyTurn();
  await turn.ready;
  const canaries = new CanaryTracker();
  const fakes: FakeProviders = await startFakeProviders();
  // The app talks to the gates; the gates forward to the fakes, which count what is really sent.
  const expoGate: ProviderGate = await startProviderGate(new URL(fakes.expo.url).origin);
  const acsGate: ProviderGate = await startProviderGate(fakes.acs.endpoint);
  let env: AuthTestHost | undefined;
  let restarted: LocalHost | undefined;
  try {
    env = await startAuthTestHost(
      `crash-resume-${moment}`,
      canaries,
      {
        BOOTSTRAP_ADMIN_SUBJECTS: 'crash-admin',
        FANOUT_BATCH_SIZE: String(BATCH_SIZE),
        ...fakes.env,
        EXPO_PUSH_URL: `${expoGate.origin}${new URL(fakes.expo.url).pathname}`,
        ACS_CONNECTION_STRING: fakes.acs.connectionString.replace(fakes.acs.endpoint, acsGate.origin),
      },
      { azurite: true },
    );
    const host = env;
    const { api } = host;

    const signIn = async (sub: string, contact: { email?: string; phone?: string } = {}): Promise<{ token: string; userId: string }> => {
      const idToken = host.idToken(sub, {
        ...(contact.email ? { email: contact.email, email_verified: true } : {}),
        ...(contact.phone ? { phone_number: contact.phone, phone_number_verified: true } : {}),
      });
      const { token, userId, response } = await api.signInAdult(idToken);
      expect(response.status).toBe(200);
      return { token, userId };
    };
    /** An adult with a verified address and number and one push device (all canaries). */
    const family = async (): Promise<Omit<Family, 'batch'>> => {
      const id = unique();
      const email = `family.${id}@canary-mail.test`;
      const phone = `+1555${String(3000000 + (phones += 1)).slice(-7)}`;
      const device = `ExponentPushToken[canary${unique()}Crash]`;
      canaries.add(email, phone, device, device.slice('ExponentPushToken['.length, -1));
      const session = await signIn(`family-${id}`, { email, phone });
      const registered = await api.request('PUT', '/api/v1/me/push-tokens', { token: session.token, body: { token: device } });
      expect(registered.status).toBe(204);
      return { userId: session.userId, email, phone, device };
    };
    const ledger = (announcementId: string): LedgerRow[] =>
      readRows<LedgerRow>(host.databaseFile, 'SELECT userId, channel, result FROM NotificationDeliveries WHERE announcementId = @announcementId', {
        announcementId,
      });

    const admin = await signIn('crash-admin');
    const signedUp: Omit<Family, 'batch'>[] = [];
    for (let n = 0; n < FAMILIES; n += 1) signedUp.push(await family());
    // Batches are ranges of the user-id order (the admin, with no address, number or device, is no recipient).
    const families: Family[] = [...signedUp]
      .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0))
      .map((member, index) => ({ ...member, batch: Math.floor(index / BATCH_SIZE) }));
    const byRecipient = new Map<string, Family>();
    for (const member of families) for (const value of [member.email, member.phone, member.device]) byRecipient.set(value, member);
    const batchOf = (recipients: string[]): number => {
      const batches = new Set(recipients.map((recipient) => byRecipient.get(recipient)?.batch));
      if (batches.size !== 1 || batches.has(undefined)) throw new Error('a provider request spans batches or names a stranger');
      return [...batches][0] as number;
    };

    // The moment's channel: a few requests per batch pass, then every one is held; the others pass.
    const passedOf = new Map<number, number>();
    expoGate.setPlan(() => (moment === 'push' ? 'hold' : 'pass'));
    acsGate.setPlan(({ channel, recipients }) => {
      if (channel !== moment) return 'pass';
      const batch = batchOf(recipients);
      const passed = (passedOf.get(batch) ?? 0) + 1;
      passedOf.set(batch, passed);
      return passed <= PASSED_BEFORE_HOLDING ? 'pass' : 'hold';
    });

    const title = `Canary crash notice ${unique()}`;
    const text = `Canary crash text ${unique()}: the hall is closed on Friday`;
    canaries.add(title, text);
    const created = await api.request('POST', '/api/v1/announcements', { token: admin.token, body: { title, body: text, channels: ['push', 'sms', 'email'] } });
    expect(created.status).toBe(201);
    const announcementId = String(created.body.id);
    for (const action of ['submit', 'approve', 'publish']) {
      expect((await api.request('POST', `/api/v1/announcements/${announcementId}/${action}`, { token: admin.token })).status).toBe(200);
    }
    const first = host.host;
    const initiated = await first.waitForLine((line) => line.message === 'fan-out initiated' && line.announcementId === announcementId, 20_000);
    expect(initiated).toMatchObject({ recipients: FAMILIES, batches: FAMILIES / BATCH_SIZE });

    // Steady state: the answered rows are in the ledger, and nothing new reaches a provider for a second.
    const sent = (): GatedRequest[] => [...expoGate.requests, ...acsGate.requests].filter(provided);
    const held = (channel: GateChannel): GatedRequest[] => [...expoGate.held(), ...acsGate.held()].filter((request) => request.channel === channel);
    const recordedIn = (rows: LedgerRow[], channel: string) => rows.filter((row) => row.channel === channel && row.result !== 'pending').length;
    const passedTo = (channel: GateChannel) =>
      sent()
        .filter((request) => request.channel === channel && request.fate === 'passed' && request.forwardedAt !== undefined)
        .reduce((sum, request) => sum + request.recipients.length, 0);
    await waitFor(
      'the fan-out to settle with requests held',
      () => {
        const all = sent();
        if (all.length === 0 || Date.now() - Math.max(...all.map((request) => request.arrivedAt)) < 1_000) return false;
        if (held(moment).length === 0) return false;
        if (all.some((request) => request.fate === 'passed' && request.forwardedAt === undefined)) return false;
        const rows = ledger(announcementId);
        return (['push', 'sms', 'email'] as const).every((channel) => recordedIn(rows, channel) === passedTo(channel));
      },
      HOLD_BUDGET_MS,
    );

    // SIGSTOP, then the answers the stopped process will never read, then SIGKILL.
    const firstHeldAt = Math.min(...sent().filter((request) => request.fate === 'held').map((request) => request.arrivedAt));
    const settled = sent().length;
    process.kill(first.pid, 'SIGSTOP');
    await waitFor('the host to stop', () => processState(first.pid) === 'T', 2_000, 5);
    const heldForMs = Date.now() - firstHeldAt;
    expect(heldForMs, 'the kill must come before the app times out a held request').toBeLessThan(HOLD_BUDGET_MS);
    expect(sent(), 'no provider request after the fan-out settled').toHaveLength(settled);
    const heldAcs = acsGate.held();
    await Promise.all([
      // Half the held ACS requests are executed and answered; the stopped process never reads the answers.
      ...heldAcs.filter((_, index) => index % 2 === 0).map((request) => acsGate.release(request, { answer: true })),
      // Expo takes the held push requests and sends them; their answers never come back.
      ...expoGate.held().map((request) => expoGate.release(request, { answer: false })),
    ]);
    process.kill(first.pid, 'SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const killedAt = Date.now();

    // What each row had reached at the kill, from the gate's records.
    const stepOf = new Map<string, Step>();
    const pushUnanswered = new Set<string>();
    for (const request of sent()) {
      for (const recipient of request.recipients) {
        const member = byRecipient.get(recipient) as Family;
        const key = `${member.userId}/${request.channel}`;
        expect(stepOf.has(key), `${request.channel} requested twice for one family before the kill`).toBe(false);
        stepOf.set(key, request.fate === 'passed' ? 'recorded' : request.fate === 'answered_late' ? 'answered_unread' : 'in_flight');
        if (request.channel === 'push' && request.fate !== 'passed') pushUnanswered.add(recipient);
      }
    }
    const step = (member: Family, channel: string): Step => stepOf.get(`${member.userId}/${channel}`) ?? 'not_called';
    const census = Object.fromEntries(
      ['push', 'sms', 'email'].map((channel) => [
        channel,
        Object.fromEntries((['recorded', 'answered_unread', 'in_flight', 'not_called'] as const).map((s) => [s, families.filter((m) => step(m, channel) === s).length])),
      ]),
    );
    console.info(`[${moment}] stopped ${heldForMs} ms after the first held request; rows at the kill, per channel and step: ${JSON.stringify(census)}`);
    // The moment was caught: its channel in flight, the channels before it recorded.
    if (moment === 'push') {
      expect(census.push?.in_flight).toBe(FAMILIES);
      expect(census.sms?.recorded).toBe(FAMILIES);
      expect(census.email?.recorded).toBe(FAMILIES);
    } else {
      expect(census.push?.recorded).toBe(FAMILIES);
      for (const s of ['recorded', 'answered_unread', 'in_flight'] as const) expect(census[moment]?.[s], `${moment} rows ${s} at the kill`).toBeGreaterThan(0);
      if (moment === 'email') expect(census.sms?.recorded).toBe(FAMILIES);
      else expect(census.email?.not_called).toBeGreaterThan(0);
    }

    // The file survived the kill, and holds every answer that was recorded: exactly those rows are final.
    const db = new DatabaseSync(host.databaseFile);
    try {
      expect(db.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      db.close();
    }
    const afterKill = ledger(announcementId);
    expect(afterKill).toHaveLength(FAMILIES * 3);
    for (const row of afterKill) {
      const member = families.find((m) => m.userId === row.userId) as Family;
      expect(`${row.channel}:${row.result !== 'pending'}`).toBe(`${row.channel}:${step(member, row.channel) === 'recorded'}`);
    }
    expect(canaries.findIn(first.stdout.join('\n'))).toEqual([]);

    // Restart on the same database and queue; the providers answer everything from now on.
    expoGate.setPlan(() => 'pass');
    acsGate.setPlan(() => 'pass');
    const beforeRestart = new Set(sent());
    const restartedAt = Date.now();
    restarted = await startLocalHost(host.hostEnv);
    turn.done();
    const second = restarted;
    await waitFor('the restarted host to finish the fan-out', () => ledger(announcementId).every((row) => row.result !== 'pending'), RESUME_LIMIT_MS + 30_000, 250);
    const doneAt = Date.now();
    const resent = sent().filter((request) => !beforeRestart.has(request));
    const lastDeliveryAt = Math.max(...resent.map((request) => request.forwardedAt ?? Number.POSITIVE_INFINITY));
    console.info(
      `[${moment}] kill→restart ${restartedAt - killedAt} ms; restart→first request ${Math.min(...resent.map((r) => r.arrivedAt)) - restartedAt} ms; ` +
        `restart→last delivery ${lastDeliveryAt - restartedAt} ms; restart→no pending row ${doneAt - restartedAt} ms`,
    );
    expect.soft(lastDeliveryAt - restartedAt, 'restart to the last delivery (ms)').toBeLessThanOrEqual(RESUME_LIMIT_MS);
    expect.soft(doneAt - restartedAt, 'restart to a ledger without pending rows (ms)').toBeLessThanOrEqual(RESUME_LIMIT_MS);
    // Resumed from the ledger: the batches the killed host held were re-driven, their own messages still invisible.
    // Re-driven batches overlap (a stalled message and its stalled rows are both re-driven; the later
    // one finds the rows busy), and a batch's last rows are written before its summary line: wait
    // until the summaries account for every row pending at the kill, not for the first summary.
    const pendingAtKill = afterKill.filter((row) => row.result === 'pending').length;
    // The host has delivered only this announcement.
    const summaries = () => second.lines.filter((line) => line.message === 'fan-out batch delivered');
    const settledInSummaries = () =>
      summaries().reduce((sum, line) => {
        for (const field of ['pushResults', 'smsResults', 'emailResults']) {
          for (const [result, count] of Object.entries((line[field] ?? {}) as Record<string, number>)) {
            // `outcome_unknown` rows are also counted under `accepted`.
            if (!['busy', 'pending', 'outcome_unknown'].includes(result)) sum += count;
          }
        }
        return sum;
      }, 0);
    await waitFor('summary lines for every row pending at the kill', () => settledInSummaries() >= pendingAtKill, 10_000);
    expect(settledInSummaries(), 'rows settled in the re-driven batches\' summaries').toBe(pendingAtKill);
    const delivered = summaries();
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((line) => line.redriven === true)).toBe(true);

    // Counted at the fakes (really sent, not requests): exactly once per family on SMS and e-mail.
    const smsNotOnce = families
      .map((m) => ({ step: step(m, 'sms'), sent: fakes.acs.smsTo(m.phone).filter((d) => String(d.message).startsWith(title)).length }))
      .filter(({ sent: count }) => count !== 1);
    const emailNotOnce = families
      .map((m) => ({ step: step(m, 'email'), sent: fakes.acs.emailsTo(m.email).filter((d) => d.subject === title).length }))
      .filter(({ sent: count }) => count !== 1);
    expect.soft(smsNotOnce, `[${moment}] families whose SMS was not sent exactly once`).toEqual([]);
    expect.soft(emailNotOnce, `[${moment}] families whose e-mail was not sent exactly once`).toEqual([]);
    // Counted on recovery: every row marked first-sent whose answer was not recorded (answered unread or in flight), no other.
    if (moment !== 'push') {
      const interrupted = (census[moment]?.answered_unread ?? 0) + (census[moment]?.in_flight ?? 0);
      // A batch's count of resent sends is the line after its summary; a shortfall is the soft assertion's to report.
      await waitFor('the counts of resent sends', () => (resumedSends(second)[moment] ?? 0) >= interrupted, 2_000).catch(() => undefined);
      expect.soft(resumedSends(second), `[${moment}] interrupted sends counted on recovery`).toEqual({ [moment]: interrupted });
    }
    // Push: never missing; a second copy only where the family's request was unanswered at the kill.
    const pushWrong = families
      .map((m) => ({ step: step(m, 'push'), unanswered: pushUnanswered.has(m.device), sent: fakes.expo.deliveriesTo(m.device).filter((d) => d.title === title).length }))
      .filter(({ unanswered, sent: count }) => count < 1 || count > (unanswered ? 2 : 1));
    expect.soft(pushWrong, `[${moment}] families with a missing push or a second push of an answered request`).toEqual([]);
    // Nobody else heard anything.
    expect(fakes.acs.smsDeliveries.every((d) => byRecipient.has(d.to))).toBe(true);
    expect(fakes.acs.emailDeliveries.every((d) => byRecipient.has(d.to))).toBe(true);
    expect(fakes.expo.deliveries.every((d) => byRecipient.has(d.to))).toBe(true);
    console.info(
      `[${moment}] after the restart: ${resent.filter((r) => r.channel === 'sms').length} SMS requests, ${resent.filter((r) => r.channel === 'email').length} e-mail sends, ` +
        `${resent.filter((r) => r.channel === 'push').length} push requests; fake ACS repeats answered from its table: ${fakes.acs.requests.repeats}; ` +
        `families pushed twice: ${families.filter((m) => fakes.expo.deliveriesTo(m.device).length > 1).length}; ` +
        `rows found marked first-sent with no answer and resent under their first request: ${JSON.stringify(resumedSends(second))}`,
    );

    const final = ledger(announcementId);
    expect(final.filter((row) => row.channel === 'push').map((row) => row.result)).toEqual(Array(FAMILIES).fill('success'));
    expect(final.filter((row) => row.channel === 'sms').map((row) => row.result)).toEqual(Array(FAMILIES).fill('accepted'));
    expect(final.filter((row) => row.channel === 'email').map((row) => row.result)).toEqual(Array(FAMILIES).fill('accepted'));
    expect(second.invalidLines).toEqual([]);
    expect(canaries.findIn(second.stdout.join('\n'))).toEqual([]);
    expect(await second.stop()).toBe(0);
    restarted = undefined;
  } finally {
    turn.done();
    await restarted?.stop();
    await env?.stop();
    await expoGate.close();
    await acsGate.close();
    await fakes.close();
  }
}

// Side by side: each waits about a minute and a half for its re-drive while the next one sets up.
describe.concurrent('SIGKILL during a fan-out under the Functions host\'s 10-minute queue lease, then a restart on the same database', () => {
  for (const moment of ['push', 'sms', 'email'] as const) {
    it(`killed while the ${moment === 'push' ? 'pushes are at Expo' : `${moment === 'sms' ? 'SMS' : 'e-mails'} are going out`}: resumed from the ledger within 2 minutes, every SMS and e-mail once, only unanswered pushes again`, async ({ expect }) => {
      // The test's own expect: soft assertions of concurrent tests need it.
      await killAndResume(moment, expect);
    }, 360_000);
  }
});
