import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildSignIn } from '../../../shared/auth/sign-in-child';
import { updateChild } from '../../../shared/family/update-child';
import type { AppServices } from '../../../shared/composition-root';
import { problemBody } from '../../../shared/errors/problem';
import type { User } from '../../../shared/users/user';
import { createFlowHarness, detailsOf, expectNoLeaks, SECOND, type FlowHarness } from './flow-harness';

/**
 * Child sign-in throttling and lockout (contract section 6) through `signInChild` on a real SQLite
 * file, with the clock moved by hand: the exponential wait after 3 failures, the lock at 10, the
 * lock's answer being the wrong-PIN answer, the parent's new PIN lifting it, the per-address cap,
 * and counters shared by two service instances on one database.
 */

let h: FlowHarness;
let parent: User;

beforeAll(async () => {
  h = await createFlowHarness();
  parent = await h.insertAdult();
});

afterAll(async () => {
  await h?.close();
});

/** What a client sees of an attempt: the code (or ok) and the Retry-After header. */
function outcome(result: ChildSignIn): { code: string; retryAfter?: string } {
  if (result.ok) return { code: 'ok' };
  const retryAfter = result.problem.headers?.['Retry-After'];
  return { code: result.problem.code, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

const refused = { code: 'invalid_credentials' };
const waitFor = (seconds: number) => ({ code: 'too_many_attempts', retryAfter: String(seconds) });

describe('per-username throttling and lockout', () => {
  it('makes attempts wait 1, 2, 4 … s after 3 failures, locks at 10, refuses the right PIN of a locked account like a wrong one, and a new PIN from the parent lifts the lock', async () => {
    const rightPin = '4829173';
    const child = await h.createChild(parent, 'canary-kid-mira', rightPin);
    const wrongPins = ['5930281', '6041392', '7152403', '8263514', '9374625', '1485736', '2596847', '3607958', '4718069', '5829170'];
    h.canaries.add(...wrongPins);
    let wrongIndex = 0;
    const wrong = () => h.signInChild('canary-kid-mira', wrongPins[wrongIndex++ % wrongPins.length] ?? '0000000');
    const right = () => h.signInChild('canary-kid-mira', rightPin);

    // Three free failures.
    for (let n = 1; n <= 3; n += 1) expect(outcome(await wrong())).toEqual(refused);

    // The 4th attempt must wait 1 s; refused at the door, before any Argon2 work.
    const verificationsBefore = h.hasher.stats.verifications;
    const mark = h.auditMark();
    const throttled = await wrong();
    expect(outcome(throttled)).toEqual(waitFor(1));
    expect(h.hasher.stats.verifications).toBe(verificationsBefore);
    if (!throttled.ok) expect(problemBody(throttled.problem, 't')).toMatchObject({ status: 429, code: 'too_many_attempts' });
    const [throttleRow] = h.auditAfter(mark);
    expect(throttleRow).toMatchObject({ eventType: 'authn_login_fail', outcome: 'failure', reason: 'throttled', subjectUserId: null });
    expect(detailsOf(throttleRow)).toEqual({ accountType: 'child', scope: 'username', retryAfterSeconds: 1 });
    h.clock.advance(1 * SECOND);

    // Failures 4 … 9 each double the wait; a client that waits Retry-After seconds is let through.
    for (let n = 4; n <= 9; n += 1) {
      expect(outcome(await wrong()), `failure ${n}`).toEqual(refused);
      const wait = 2 ** (n - 3);
      expect(outcome(await wrong()), `right after failure ${n}`).toEqual(waitFor(wait));
      h.clock.advance((wait - 1) * SECOND);
      expect(outcome(await wrong()), `1 s before the end of wait ${wait}`).toEqual(waitFor(1));
      h.clock.advance(1 * SECOND);
    }

    // The 10th consecutive failure locks the account.
    const lockMark = h.auditMark();
    expect(outcome(await wrong())).toEqual(refused);
    const lockRows = h.auditAfter(lockMark);
    expect(lockRows.map((row) => [row.eventType, row.reason])).toEqual([
      ['authn_login_fail', 'bad_credentials'],
      ['authn_login_lock', null],
    ]);
    expect(lockRows[1]).toMatchObject({ subjectUserId: child.id, actorUserId: null, outcome: 'success' });
    expect(detailsOf(lockRows[1])).toEqual({ consecutiveFailures: 10 });
    expect(h.rows('SELECT lockedAt FROM ChildAccounts WHERE userId = @id', { id: child.id })).toEqual([
      { lockedAt: h.clock.now().toISOString() },
    ]);
    expect(h.sink.withMessage('child account locked')).toHaveLength(1);
    expect(h.sink.withMessage('child account locked')[0]).toMatchObject({ level: 'warn', consecutiveFailures: 10 });

    // The 11th attempt, with the RIGHT PIN, after the wait: the same 401 as a wrong PIN, no session.
    expect(outcome(await right())).toEqual(waitFor(128));
    h.clock.advance(128 * SECOND);
    const sessionsBefore = h.rows('SELECT id FROM Sessions WHERE userId = @id', { id: child.id }).length;
    const lockedMark = h.auditMark();
    const lockedAnswer = await right();
    expect(outcome(lockedAnswer)).toEqual(refused);
    expect(h.auditAfter(lockedMark).map((row) => [row.eventType, row.reason])).toEqual([['authn_login_fail', 'locked']]);
    expect(h.rows('SELECT id FROM Sessions WHERE userId = @id', { id: child.id })).toHaveLength(sessionsBefore);

    // Waits keep growing up to the 15-minute cap (2^10 s would be 1024 s).
    h.clock.advance(256 * SECOND);
    const wrongAnswer = await wrong();
    expect(outcome(wrongAnswer)).toEqual(refused);
    if (!lockedAnswer.ok && !wrongAnswer.ok) {
      expect(problemBody(lockedAnswer.problem, 'trace')).toEqual(problemBody(wrongAnswer.problem, 'trace'));
      expect(lockedAnswer.problem.headers).toEqual(wrongAnswer.problem.headers);
    }
    h.clock.advance(512 * SECOND);
    expect(outcome(await wrong())).toEqual(refused);
    expect(outcome(await right())).toEqual(waitFor(900));
    h.clock.advance(900 * SECOND);
    expect(outcome(await right())).toEqual(refused);
    expect(outcome(await right())).toEqual(waitFor(900));
    // Only one lock row, however many failures followed.
    expect(h.auditRows().filter((row) => row.eventType === 'authn_login_lock' && row.subjectUserId === child.id)).toHaveLength(1);

    // The parent sets a new PIN: lock and failure count are gone, the child signs in at once.
    const newPin = '7305194';
    h.canaries.add(newPin);
    const updated = await updateChild(parent, child.id, { secret: { kind: 'pin', value: newPin } }, h.services.childAccountPorts);
    expect(updated).toMatchObject({ ok: true, child: { locked: false } });
    expect(h.rows('SELECT lockedAt FROM ChildAccounts WHERE userId = @id', { id: child.id })).toEqual([{ lockedAt: null }]);
    const signedIn = await h.signInChild('canary-kid-mira', newPin);
    expect(outcome(signedIn)).toEqual({ code: 'ok' });
    if (signedIn.ok) expect(signedIn.user.id).toBe(child.id);
    // The old PIN is simply wrong now, and the count starts from zero again.
    expect(outcome(await right())).toEqual(refused);
    expect(outcome(await h.signInChild('canary-kid-mira', newPin))).toEqual({ code: 'ok' });
  });

  it('counts unknown usernames the same way, case-insensitively', async () => {
    const unknown = 'canary-ghost-kid';
    for (let n = 1; n <= 3; n += 1) expect(outcome(await h.signInChild(unknown, '3918264'))).toEqual(refused);
    expect(outcome(await h.signInChild(unknown, '3918264'))).toEqual(waitFor(1));
    expect(outcome(await h.signInChild('Canary-GHOST-Kid', '3918264'))).toEqual(waitFor(1));
    // A different username is not affected.
    expect(outcome(await h.signInChild('canary-other-ghost', '3918264'))).toEqual(refused);
  });

  it('counts every spelling of a name under the name: after failures as `KID `, ` kid` and `ｋｉｄ`, the right PIN under `kid` waits', async () => {
    const pin = '5072841';
    await h.createChild(parent, 'kid', pin);
    const mark = h.auditMark();
    for (const spelling of ['KID ', ' kid', 'ｋｉｄ']) {
      // The right PIN, even: a spelling that is not the stored name is an unknown username.
      expect(outcome(await h.signInChild(spelling, pin)), JSON.stringify(spelling)).toEqual(refused);
    }
    expect(outcome(await h.signInChild('kid', pin))).toEqual(waitFor(1));
    expect(h.auditAfter(mark).map((row) => row.reason)).toEqual(['user_not_found', 'user_not_found', 'user_not_found', 'throttled']);
    h.clock.advance(1 * SECOND);
    expect(outcome(await h.signInChild('KID', pin))).toEqual({ code: 'ok' });
  });
});

describe('per-address cap', () => {
  it('refuses an address after 30 failures in 10 minutes across usernames, until the oldest leaves the window', async () => {
    const address = '203.0.113.77';
    const pin = '8036152';
    await h.createChild(parent, 'canary-kid-theo', pin);
    const t0 = h.clock.now().getTime();
    for (let i = 0; i < 30; i += 1) {
      expect(outcome(await h.signInChild(`canary-nobody-${i}`, '6184027', { address })), `failure ${i + 1}`).toEqual(refused);
      h.clock.advance(10 * SECOND);
    }
    // 30 failures at t0 … t0+290 s; now t0+300 s: the oldest leaves the window at t0+600 s.
    const mark = h.auditMark();
    expect(outcome(await h.signInChild('canary-nobody-new', '6184027', { address }))).toEqual(waitFor(300));
    expect(detailsOf(h.auditAfter(mark)[0])).toEqual({ accountType: 'child', scope: 'address', retryAfterSeconds: 300 });
    // The address is closed for a right PIN too (nothing tells a right guess from a wrong one) …
    expect(outcome(await h.signInChild('canary-kid-theo', pin, { address }))).toEqual(waitFor(300));
    // … while other addresses are not affected.
    expect(outcome(await h.signInChild('canary-kid-theo', pin, { address: '203.0.113.78' }))).toEqual({ code: 'ok' });

    h.clock.set(new Date(t0 + 599 * SECOND));
    expect(outcome(await h.signInChild('canary-kid-theo', pin, { address }))).toEqual(waitFor(1));
    h.clock.set(new Date(t0 + 600 * SECOND));
    expect(outcome(await h.signInChild('canary-kid-theo', pin, { address }))).toEqual({ code: 'ok' });
    // One slot freed: one more failure closes the address again until the next oldest (t0+10 s) leaves.
    expect(outcome(await h.signInChild('canary-nobody-later', '6184027', { address }))).toEqual(refused);
    expect(outcome(await h.signInChild('canary-nobody-later2', '6184027', { address }))).toEqual(waitFor(10));
  });
});

describe('without a client address (the per-address limit is on wherever the service runs)', () => {
  const message = 'child sign-ins without a client address share one address limit';

  it('counts every address-less attempt under one shared limit (fail closed), and says so once per instance', async () => {
    const a: AppServices = h.services;
    const b: AppServices = h.instance();
    h.clock.advance(3600 * SECOND);
    const before = h.sink.withMessage(message).length;
    // 35 usernames sprayed from "nowhere", split over two instances: the 31st is refused for the address.
    for (let i = 0; i < 30; i += 1) {
      const on = i % 2 === 0 ? a : b;
      expect(outcome(await h.signInChild(`canary-sprayed-${i}`, '6184027', { address: null, services: on })), `failure ${i + 1}`).toEqual(refused);
    }
    for (let i = 30; i < 35; i += 1) {
      expect(outcome(await h.signInChild(`canary-sprayed-${i}`, '6184027', { address: null }))).toEqual(waitFor(600));
    }
    // A client with an address is not affected by the shared bucket.
    expect(outcome(await h.signInChild('canary-sprayed-elsewhere', '6184027', { address: '198.51.100.99' }))).toEqual(refused);

    const warnings = h.sink.withMessage(message).slice(before);
    expect(warnings).toHaveLength(2);
    for (const line of warnings) {
      expect(line).toMatchObject({ level: 'warn', trustProxyHops: 1, reason: 'no_forwarded_address', maxFailures: 30 });
    }
  });
});

describe('two service instances on one database', () => {
  it('share the username and address counters', async () => {
    const a: AppServices = h.services;
    const b: AppServices = h.instance();
    const pin = '2749183';
    await h.createChild(parent, 'canary-kid-juno', pin, ['events'], a);

    for (let n = 1; n <= 3; n += 1) {
      expect(outcome(await h.signInChild('canary-kid-juno', '9051736', { services: n % 2 === 0 ? b : a }))).toEqual(refused);
    }
    expect(outcome(await h.signInChild('canary-kid-juno', pin, { services: b }))).toEqual(waitFor(1));
    h.clock.advance(1 * SECOND);
    expect(outcome(await h.signInChild('canary-kid-juno', '9051736', { services: b }))).toEqual(refused);
    expect(outcome(await h.signInChild('canary-kid-juno', pin, { services: a }))).toEqual(waitFor(2));
    h.clock.advance(2 * SECOND);
    // A success on one instance resets the count the other one sees.
    expect(outcome(await h.signInChild('canary-kid-juno', pin, { services: a }))).toEqual({ code: 'ok' });
    expect(outcome(await h.signInChild('canary-kid-juno', '9051736', { services: b }))).toEqual(refused);
    expect(outcome(await h.signInChild('canary-kid-juno', pin, { services: b }))).toEqual({ code: 'ok' });

    // Address failures split across the instances add up.
    const address = '192.0.2.200';
    for (let i = 0; i < 30; i += 1) {
      const on = i % 2 === 0 ? a : b;
      expect(outcome(await h.signInChild(`canary-roamer-${i}`, '5173920', { address, services: on }))).toEqual(refused);
    }
    expect(outcome(await h.signInChild('canary-roamer-x', '5173920', { address, services: a }))).toEqual(waitFor(600));
    expect(outcome(await h.signInChild('canary-roamer-y', '5173920', { address, services: b }))).toEqual(waitFor(600));
  });
});

describe('leaks', () => {
  it('writes no PIN, username, hash, token or pepper to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 60);
  });
});
