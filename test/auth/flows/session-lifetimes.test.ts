import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signOut } from '../../../shared/auth/sign-out';
import { deleteChild, updateChild } from '../../../shared/family/update-child';
import { changeUserRole } from '../../../shared/data-rights/administer-users';
import type { User } from '../../../shared/users/user';
import { createFlowHarness, DAY, detailsOf, expectNoLeaks, HOUR, MINUTE, SECOND, type FlowHarness } from './flow-harness';

/**
 * Sessions against an injected clock (contract section 5): idle and absolute lifetimes of adult
 * and child sessions, the hourly `lastUsedAt` write, sign-out, and the revocations on a child's
 * secret change, disabling and deletion, and on an adult's role change.
 */

let h: FlowHarness;
let parent: User;
let counter = 0;

beforeAll(async () => {
  h = await createFlowHarness({ identityProvider: true });
  const signedIn = await h.signInAdult(h.idToken('canary-sub-parent-olga', { email: 'olga.parent@example.org', phone: '+15550104477' }));
  if (!signedIn.ok) throw new Error('the parent could not sign in');
  parent = signedIn.user;
});

afterAll(async () => {
  await h?.close();
});

async function adultSession(sub = 'canary-sub-parent-olga'): Promise<{ token: string; sessionId: string; user: User }> {
  const result = await h.signInAdult(h.idToken(sub));
  if (!result.ok) throw new Error(`adult sign-in refused: ${result.problem.code}`);
  return { token: result.started.token, sessionId: result.started.session.id, user: result.user };
}

async function newChild(pin: string): Promise<{ id: string; username: string; pin: string }> {
  counter += 1;
  const username = `canary-kid-session-${counter}`;
  const child = await h.createChild(parent, username, pin);
  return { id: child.id, username, pin };
}

async function childSession(child: { username: string; pin: string }): Promise<{ token: string; sessionId: string }> {
  const result = await h.signInChild(child.username, child.pin);
  if (!result.ok) throw new Error(`child sign-in refused: ${result.problem.code}`);
  return { token: result.started.token, sessionId: result.started.session.id };
}

function sessionRow(id: string) {
  return h.rows<{ lastUsedAt: string; idleExpiresAt: string; absoluteExpiresAt: string; endedAt: string | null; endReason: string | null }>(
    'SELECT lastUsedAt, idleExpiresAt, absoluteExpiresAt, endedAt, endReason FROM Sessions WHERE id = @id',
    { id },
  )[0];
}

async function expectUnauthenticated(token: string): Promise<void> {
  const result = await h.authenticate(token);
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.problem.code).toBe('unauthenticated');
    expect(result.problem.headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe('adult sessions', () => {
  it('expire after 14 days unused (idle), with one session_expired row and the duration', async () => {
    const t0 = h.clock.now().getTime();
    const used = await adultSession();
    const unused = await adultSession();

    h.clock.advance(14 * DAY - SECOND);
    expect((await h.authenticate(used.token)).ok).toBe(true);
    h.clock.advance(SECOND);
    const mark = h.auditMark();
    await expectUnauthenticated(unused.token);
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.reason])).toEqual([['session_expired', 'idle']]);
    expect(rows[0]).toMatchObject({ subjectUserId: parent.id, actorUserId: null, targetType: 'session', targetId: unused.sessionId });
    expect(detailsOf(rows[0])).toEqual({ durationSeconds: 14 * 24 * 3600, accountType: 'adult' });
    expect(sessionRow(unused.sessionId)).toMatchObject({ endedAt: iso(t0 + 14 * DAY), endReason: 'idle' });
    expect(h.sink.withMessage('session expired').at(-1)).toMatchObject({ reason: 'idle', accountType: 'adult' });

    // Presented again: still 401, no second row. The used one lives on.
    await expectUnauthenticated(unused.token);
    expect(h.auditAfter(mark)).toHaveLength(1);
    expect((await h.authenticate(used.token)).ok).toBe(true);
  });

  it('expire 30 days after sign-in even when used every day (absolute)', async () => {
    const t0 = h.clock.now().getTime();
    const session = await adultSession();
    expect(sessionRow(session.sessionId)).toMatchObject({ absoluteExpiresAt: iso(t0 + 30 * DAY), idleExpiresAt: iso(t0 + 14 * DAY) });
    for (let day = 1; day <= 29; day += 1) {
      h.clock.advance(DAY);
      expect((await h.authenticate(session.token)).ok, `day ${day}`).toBe(true);
    }
    // The idle expiry never reaches past the absolute one.
    expect(sessionRow(session.sessionId)).toMatchObject({ idleExpiresAt: iso(t0 + 30 * DAY) });
    h.clock.advance(DAY - 1);
    expect((await h.authenticate(session.token)).ok).toBe(true);
    h.clock.advance(1);
    const mark = h.auditMark();
    await expectUnauthenticated(session.token);
    const [row] = h.auditAfter(mark);
    expect(row).toMatchObject({ eventType: 'session_expired', reason: 'absolute', targetId: session.sessionId });
    expect(detailsOf(row)).toEqual({ durationSeconds: 30 * 24 * 3600, accountType: 'adult' });
    expect(sessionRow(session.sessionId)).toMatchObject({ endReason: 'absolute' });
  });

  it('write lastUsedAt at most once an hour', async () => {
    const t0 = h.clock.now().getTime();
    const session = await adultSession();
    h.clock.advance(30 * MINUTE);
    expect((await h.authenticate(session.token)).ok).toBe(true);
    expect(sessionRow(session.sessionId)).toMatchObject({ lastUsedAt: iso(t0), idleExpiresAt: iso(t0 + 14 * DAY) });
    h.clock.set(new Date(t0 + HOUR - 1));
    expect((await h.authenticate(session.token)).ok).toBe(true);
    expect(sessionRow(session.sessionId)).toMatchObject({ lastUsedAt: iso(t0) });
    h.clock.set(new Date(t0 + HOUR));
    expect((await h.authenticate(session.token)).ok).toBe(true);
    expect(sessionRow(session.sessionId)).toMatchObject({ lastUsedAt: iso(t0 + HOUR), idleExpiresAt: iso(t0 + HOUR + 14 * DAY) });
    h.clock.set(new Date(t0 + 90 * MINUTE));
    expect((await h.authenticate(session.token)).ok).toBe(true);
    expect(sessionRow(session.sessionId)).toMatchObject({ lastUsedAt: iso(t0 + HOUR) });
    h.clock.set(new Date(t0 + 2 * HOUR + 5 * MINUTE));
    expect((await h.authenticate(session.token)).ok).toBe(true);
    expect(sessionRow(session.sessionId)).toMatchObject({ lastUsedAt: iso(t0 + 2 * HOUR + 5 * MINUTE) });
  });

  it('sign out with session_logout and the duration; the token is dead afterwards', async () => {
    const session = await adultSession();
    h.clock.advance(5 * HOUR + 20 * MINUTE + 7 * SECOND);
    const auth = await h.authenticate(session.token);
    if (!auth.ok) throw new Error('session not usable');
    const mark = h.auditMark();
    await signOut(auth.session, h.services.corePorts);
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => row.eventType)).toEqual(['session_logout']);
    expect(rows[0]).toMatchObject({ actorUserId: parent.id, subjectUserId: parent.id, targetId: session.sessionId, outcome: 'success' });
    expect(detailsOf(rows[0])).toEqual({ durationSeconds: 5 * 3600 + 20 * 60 + 7, accountType: 'adult' });
    expect(sessionRow(session.sessionId)).toMatchObject({ endReason: 'logout', endedAt: h.clock.now().toISOString() });
    await expectUnauthenticated(session.token);
    // Signing out twice writes one row.
    await signOut(auth.session, h.services.corePorts);
    expect(h.auditAfter(mark)).toHaveLength(1);
  });

  it('are all revoked when an administrator changes the role (authz_change with from and to)', async () => {
    const admin = await h.insertAdult({ role: 'admin' });
    const first = await adultSession('canary-sub-member-pia');
    const second = await adultSession('canary-sub-member-pia');
    const other = await adultSession();
    const mark = h.auditMark();
    const changed = await changeUserRole(admin, first.user.id, 'author', h.services.corePorts);
    expect(changed).toMatchObject({ ok: true, user: { role: 'author' } });
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.reason])).toEqual([
      ['authz_change', null],
      ['authn_token_revoked', 'role_changed'],
    ]);
    expect(rows[0]).toMatchObject({ actorUserId: admin.id, subjectUserId: first.user.id });
    expect(detailsOf(rows[0])).toEqual({ from: 'member', to: 'author' });
    expect(detailsOf(rows[1])).toEqual({ sessions: 2 });
    await expectUnauthenticated(first.token);
    await expectUnauthenticated(second.token);
    expect(sessionRow(first.sessionId)).toMatchObject({ endReason: 'role_changed' });
    // Nobody else's sessions.
    expect((await h.authenticate(other.token)).ok).toBe(true);
    // Signing in again gives the new role.
    expect((await adultSession('canary-sub-member-pia')).user.role).toBe('author');
    // The same role again changes nothing and writes nothing.
    const sameMark = h.auditMark();
    expect(await changeUserRole(admin, first.user.id, 'author', h.services.corePorts)).toMatchObject({ ok: true });
    expect(h.auditAfter(sameMark)).toEqual([]);
  });
});

describe('child sessions', () => {
  it('expire after 2 days unused and 7 days after sign-in', async () => {
    const child = await newChild('5927301');
    const t0 = h.clock.now().getTime();
    const used = await childSession(child);
    const unused = await childSession(child);
    expect(sessionRow(used.sessionId)).toMatchObject({ idleExpiresAt: iso(t0 + 2 * DAY), absoluteExpiresAt: iso(t0 + 7 * DAY) });

    h.clock.advance(2 * DAY - SECOND);
    expect((await h.authenticate(used.token)).ok).toBe(true);
    h.clock.advance(SECOND);
    const mark = h.auditMark();
    await expectUnauthenticated(unused.token);
    const [idleRow] = h.auditAfter(mark);
    expect(idleRow).toMatchObject({ eventType: 'session_expired', reason: 'idle', subjectUserId: child.id });
    expect(detailsOf(idleRow)).toEqual({ durationSeconds: 2 * 24 * 3600, accountType: 'child' });

    // Used every day: still ends 7 days after sign-in.
    for (let day = 3; day <= 6; day += 1) {
      h.clock.set(new Date(t0 + day * DAY));
      expect((await h.authenticate(used.token)).ok, `day ${day}`).toBe(true);
    }
    h.clock.set(new Date(t0 + 7 * DAY - 1));
    expect((await h.authenticate(used.token)).ok).toBe(true);
    h.clock.set(new Date(t0 + 7 * DAY));
    const absoluteMark = h.auditMark();
    await expectUnauthenticated(used.token);
    const [absoluteRow] = h.auditAfter(absoluteMark);
    expect(absoluteRow).toMatchObject({ eventType: 'session_expired', reason: 'absolute', subjectUserId: child.id });
    expect(detailsOf(absoluteRow)).toEqual({ durationSeconds: 7 * 24 * 3600, accountType: 'child' });
  });

  it('are all revoked by a new secret (secret_changed)', async () => {
    const child = await newChild('6038412');
    const first = await childSession(child);
    const second = await childSession(child);
    const mark = h.auditMark();
    const newPin = '7149523';
    h.canaries.add(newPin);
    expect((await updateChild(parent, child.id, { secret: { kind: 'pin', value: newPin } }, h.services.childAccountPorts)).ok).toBe(true);
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.reason])).toEqual([
      ['authn_token_revoked', 'secret_changed'],
      ['child_updated', null],
    ]);
    expect(rows[0]).toMatchObject({ actorUserId: parent.id, subjectUserId: child.id });
    expect(detailsOf(rows[0])).toEqual({ sessions: 2 });
    expect(detailsOf(rows[1])).toEqual({ signInMethodChanged: true, signInMethod: 'pin' });
    await expectUnauthenticated(first.token);
    await expectUnauthenticated(second.token);
    expect(sessionRow(first.sessionId)).toMatchObject({ endReason: 'secret_changed' });
    // The new PIN works; with no session open, the next change revokes nothing and says so by writing no row.
    const third = await childSession({ ...child, pin: newPin });
    const auth = await h.authenticate(third.token);
    if (!auth.ok) throw new Error('the new PIN gave no usable session');
    await signOut(auth.session, h.services.corePorts);
    const quietMark = h.auditMark();
    expect((await updateChild(parent, child.id, { secret: { kind: 'pin', value: '8250634' } }, h.services.childAccountPorts)).ok).toBe(true);
    h.canaries.add('8250634');
    expect(h.auditAfter(quietMark).map((row) => row.eventType)).toEqual(['child_updated']);
  });

  it('are all revoked when the parent disables the child, and a disabled child’s session is refused', async () => {
    const child = await newChild('9361745');
    const first = await childSession(child);
    const second = await childSession(child);
    const mark = h.auditMark();
    expect(await updateChild(parent, child.id, { status: 'disabled' }, h.services.childAccountPorts)).toMatchObject({
      ok: true,
      child: { status: 'disabled' },
    });
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.reason])).toEqual([
      ['authn_token_revoked', 'account_disabled'],
      ['child_updated', null],
    ]);
    expect(detailsOf(rows[0])).toEqual({ sessions: 2 });
    expect(detailsOf(rows[1])).toEqual({ status: 'disabled' });
    await expectUnauthenticated(first.token);
    await expectUnauthenticated(second.token);
    expect(sessionRow(second.sessionId)).toMatchObject({ endReason: 'account_disabled' });

    // Enabled again: the child can sign in; a session whose user is disabled behind its back
    // (no revocation ran) is refused all the same.
    expect((await updateChild(parent, child.id, { status: 'active' }, h.services.childAccountPorts)).ok).toBe(true);
    const third = await childSession(child);
    expect((await h.authenticate(third.token)).ok).toBe(true);
    const db = await h.services.database.get();
    await db.execute(`UPDATE Users SET status = 'disabled' WHERE id = @id`, { id: child.id });
    await expectUnauthenticated(third.token);
    await db.execute(`UPDATE Users SET status = 'active' WHERE id = @id`, { id: child.id });
  });

  it('are all revoked when the parent deletes the child', async () => {
    const child = await newChild('1472856');
    const session = await childSession(child);
    const mark = h.auditMark();
    expect(await deleteChild(parent, child.id, h.services.childAccountPorts)).toEqual({ ok: true });
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.reason])).toEqual([
      ['authn_token_revoked', 'account_disabled'],
      ['child_updated', null],
    ]);
    await expectUnauthenticated(session.token);
    expect((await h.signInChild(child.username, child.pin)).ok).toBe(false);
  });
});

describe('leaks', () => {
  it('writes no token, JWT, e-mail, phone, PIN, username or hash to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 40);
  });
});
