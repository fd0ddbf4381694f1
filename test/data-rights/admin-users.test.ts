import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveUser, changeUserRole } from '../../shared/data-rights/administer-users';
import type { User } from '../../shared/users/user';
import { listAdultsByStatus } from '../../shared/users/user-store';
import { createFlowHarness, detailsOf, expectNoLeaks, SECOND, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * Administration with NEW_USER_STATUS=pending_approval and a bootstrap administrator: the first
 * sign-in of a new adult is refused until an administrator approves it; only active adult
 * administrators administer; an administrator cannot change their own role; children are managed
 * by their parents only.
 */

let h: FlowHarness;

beforeAll(async () => {
  h = await createFlowHarness({
    identityProvider: true,
    env: { NEW_USER_STATUS: 'pending_approval', BOOTSTRAP_ADMIN_SUBJECTS: 'canary-sub-founder,canary-sub-second-founder' },
  });
});

afterAll(async () => {
  await h?.close();
});

async function signIn(sub: string, contact?: { email?: string; phone?: string }) {
  return h.signInAdult(h.idToken(sub, contact));
}

function userBySubject(sub: string): User {
  const [row] = h.rows<User>('SELECT * FROM Users WHERE subject = @sub', { sub });
  if (!row) throw new Error('no such user');
  return row;
}

let admin: User;

describe('bootstrap administrators', () => {
  it('are created admin and active on their first sign-in', async () => {
    const result = await signIn('canary-sub-founder', { email: 'founder.admin@example.org' });
    expect(result).toMatchObject({ ok: true, created: true, user: { role: 'admin', status: 'active', accountType: 'adult' } });
    if (result.ok) admin = result.user;
  });
});

describe('NEW_USER_STATUS=pending_approval', () => {
  it('refuses the first sign-in with 403 account_pending_approval after creating the user, and audits it', async () => {
    const mark = h.auditMark();
    const result = await signIn('canary-sub-newcomer-1', { email: 'newcomer.one@example.org', phone: '+15550109911' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem.code).toBe('account_pending_approval');
    }
    const user = userBySubject('canary-sub-newcomer-1');
    expect(user).toMatchObject({ role: 'member', status: 'pending_approval', accountType: 'adult' });
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.outcome, row.reason, row.subjectUserId])).toEqual([
      ['authn_login_fail', 'failure', 'pending_approval', user.id],
    ]);
    expect(detailsOf(rows[0])).toEqual({ accountType: 'adult', created: true });
    expect(h.rows('SELECT id FROM Sessions WHERE userId = @id', { id: user.id })).toEqual([]);
    expect(h.telemetry.itemsOf('event', 'auth.failure').at(-1)?.properties).toEqual({ reason: 'pending_approval', accountType: 'adult' });

    // Signing in again: same answer, still one Users row.
    const again = await signIn('canary-sub-newcomer-1');
    expect(again.ok ? 'ok' : again.problem.code).toBe('account_pending_approval');
    expect(h.rows('SELECT id FROM Users WHERE subject = @sub', { sub: 'canary-sub-newcomer-1' })).toHaveLength(1);
  });

  it('lists the waiting adults oldest first, page by page', async () => {
    h.clock.advance(SECOND);
    await signIn('canary-sub-newcomer-2');
    h.clock.advance(SECOND);
    await signIn('canary-sub-newcomer-3');
    const db = await h.services.database.get();
    const first = await listAdultsByStatus(db, 'pending_approval', { limit: 2 });
    expect(first.items.map((user) => user.subject)).toEqual(['canary-sub-newcomer-1', 'canary-sub-newcomer-2']);
    expect(first.next).not.toBeNull();
    const second = await listAdultsByStatus(db, 'pending_approval', { limit: 2, ...(first.next ? { after: first.next } : {}) });
    expect(second.items.map((user) => user.subject)).toEqual(['canary-sub-newcomer-3']);
    expect(second.next).toBeNull();
    // Active adults are not in the waiting list, and children never are.
    expect((await listAdultsByStatus(db, 'active', { limit: 10 })).items.map((user) => user.subject)).toEqual(['canary-sub-founder']);
  });

  it('lets an administrator approve: active, user_approved, and the next sign-in works', async () => {
    const waiting = userBySubject('canary-sub-newcomer-1');
    const mark = h.auditMark();
    const approved = await approveUser(admin, waiting.id, h.services.corePorts);
    expect(approved).toMatchObject({ ok: true, user: { id: waiting.id, status: 'active', role: 'member' } });
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.outcome, row.actorUserId, row.subjectUserId])).toEqual([
      ['user_approved', 'success', admin.id, waiting.id],
    ]);
    expect(detailsOf(rows[0])).toEqual({ from: 'pending_approval', to: 'active' });
    expect(userBySubject('canary-sub-newcomer-1').status).toBe('active');
    expect(await signIn('canary-sub-newcomer-1')).toMatchObject({ ok: true, created: false, user: { status: 'active' } });

    // Approving an active user changes nothing and writes nothing.
    const again = h.auditMark();
    expect(await approveUser(admin, waiting.id, h.services.corePorts)).toMatchObject({ ok: true, user: { status: 'active' } });
    expect(h.auditAfter(again)).toEqual([]);
  });

  it('writes one user_approved row and one authz_change row when two administrators act at once', async () => {
    const second = await h.insertAdult({ role: 'admin', subject: 'canary-sub-second-admin' });
    const waiting = await h.insertAdult({ status: 'pending_approval', subject: 'canary-sub-race-approval' });
    const mark = h.auditMark();
    const approvals = await Promise.all([approveUser(admin, waiting.id, h.services.corePorts), approveUser(second, waiting.id, h.services.corePorts)]);
    expect(approvals.map((result) => result.ok)).toEqual([true, true]);
    const roles = await Promise.all([
      changeUserRole(admin, waiting.id, 'author', h.services.corePorts),
      changeUserRole(second, waiting.id, 'author', h.services.corePorts),
    ]);
    expect(roles.map((result) => result.ok)).toEqual([true, true]);
    const events = h.auditAfter(mark).map((row) => row.eventType);
    expect(events.filter((event) => event === 'user_approved')).toHaveLength(1);
    expect(events.filter((event) => event === 'authz_change')).toHaveLength(1);
  });
});

describe('who may administer', () => {
  it('refuses non-administrators with forbidden, changing nothing', async () => {
    const member = userBySubject('canary-sub-newcomer-1');
    const waiting = userBySubject('canary-sub-newcomer-2');
    const mark = h.auditMark();
    expect(await approveUser(member, waiting.id, h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'forbidden' } });
    expect(await changeUserRole(member, waiting.id, 'admin', h.services.corePorts)).toMatchObject({
      ok: false,
      problem: { code: 'forbidden' },
    });
    expect(await changeUserRole(member, member.id, 'admin', h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'forbidden' } });
    // An admin role on a disabled or pending account does not count either.
    const disabledAdmin = await h.insertAdult({ role: 'admin', status: 'disabled' });
    expect(await approveUser(disabledAdmin, waiting.id, h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'forbidden' } });
    expect(userBySubject('canary-sub-newcomer-2')).toMatchObject({ status: 'pending_approval', role: 'member' });
    expect(userBySubject('canary-sub-newcomer-1').role).toBe('member');
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('refuses an administrator’s change of their own role', async () => {
    const mark = h.auditMark();
    expect(await changeUserRole(admin, admin.id, 'member', h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'forbidden' } });
    expect(userBySubject('canary-sub-founder').role).toBe('admin');
    expect(h.auditAfter(mark)).toEqual([]);
    // Another administrator may.
    const second = await signIn('canary-sub-second-founder');
    if (!second.ok) throw new Error('second bootstrap admin refused');
    expect(await changeUserRole(second.user, admin.id, 'author', h.services.corePorts)).toMatchObject({ ok: true, user: { role: 'author' } });
    expect(await changeUserRole(second.user, admin.id, 'admin', h.services.corePorts)).toMatchObject({ ok: true, user: { role: 'admin' } });
    admin = { ...admin, role: 'admin' };
  });

  it('answers invalid_request for a child target and not_found for an unknown id', async () => {
    const parent = userBySubject('canary-sub-newcomer-1');
    const child = await h.createChild(parent, 'canary-kid-admin-target', '6284019');
    const mark = h.auditMark();
    expect(await approveUser(admin, child.id, h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'invalid_request' } });
    expect(await changeUserRole(admin, child.id, 'admin', h.services.corePorts)).toMatchObject({
      ok: false,
      problem: { code: 'invalid_request' },
    });
    const unknown = '00000000-0000-4000-8000-00000000dead';
    expect(await approveUser(admin, unknown, h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'not_found' } });
    expect(await changeUserRole(admin, unknown, 'author', h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'not_found' } });
    expect(h.rows('SELECT role FROM Users WHERE id = @id', { id: child.id })).toEqual([{ role: 'child' }]);
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('refuses a disabled adult at sign-in with 403 account_disabled and cannot approve them back', async () => {
    const db = await h.services.database.get();
    const target = userBySubject('canary-sub-newcomer-3');
    await db.execute(`UPDATE Users SET status = 'disabled' WHERE id = @id`, { id: target.id });
    const mark = h.auditMark();
    const result = await signIn('canary-sub-newcomer-3');
    expect(result.ok ? 'ok' : result.problem.code).toBe('account_disabled');
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.reason])).toEqual([['authn_login_fail', 'disabled']]);
    expect(await approveUser(admin, target.id, h.services.corePorts)).toMatchObject({ ok: false, problem: { code: 'invalid_transition' } });
  });
});

describe('leaks', () => {
  it('writes no JWT, e-mail, phone, token, PIN or username to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 15);
  });
});
