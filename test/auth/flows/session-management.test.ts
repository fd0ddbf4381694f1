import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSessions, revokeSession, revokeSessions } from '../../../shared/sessions/manage-sessions';
import { publicSessionId } from '../../../shared/sessions/session-view';
import { sweepExpiredSessions } from '../../../shared/sessions/sweep-expired-sessions';
import type { User } from '../../../shared/users/user';
import { createFlowHarness, DAY, detailsOf, expectNoLeaks, HOUR, MINUTE, type FlowHarness } from './flow-harness';

/**
 * Seeing and ending sessions (`shared/sessions/manage-sessions.ts`) on a real SQLite file with a
 * manual clock: what the list shows as time passes (the hourly touch, sessions that expired
 * unseen), that revocations leave expired sessions to the sweep, and that racing revocations,
 * from two instances, write one audit row per session ended.
 */

let h: FlowHarness;
let parent: User;

async function signIn(): Promise<{ token: string; rowId: string }> {
  const signedIn = await h.signInAdult(h.idToken('canary-sub-session-management'));
  if (!signedIn.ok) throw new Error('the adult could not sign in');
  parent = signedIn.user;
  return { token: signedIn.started.token, rowId: signedIn.started.session.id };
}

beforeAll(async () => {
  h = await createFlowHarness({ identityProvider: true });
});

afterAll(async () => {
  await h?.close();
});

describe('the session list over time', () => {
  it('shows lastUsedAt as the hourly touch wrote it', async () => {
    const first = await signIn();
    h.clock.advance(30 * MINUTE);
    const second = await signIn();
    const signedInAt = h.clock.now().toISOString();
    const listed = await listSessions(parent.id, second.rowId, h.services.corePorts);
    expect(listed.map((item) => [item.id, item.current, item.lastUsedAt === item.createdAt])).toEqual([
      [publicSessionId(second.rowId), true, true],
      [publicSessionId(first.rowId), false, true],
    ]);

    h.clock.advance(HOUR);
    expect((await h.authenticate(first.token)).ok).toBe(true);
    const touched = await listSessions(parent.id, first.rowId, h.services.corePorts);
    expect(touched.map((item) => [item.current, item.lastUsedAt])).toEqual([
      [false, signedInAt],
      [true, h.clock.now().toISOString()],
    ]);
    await revokeSessions(parent.id, { actorUserId: parent.id, currentRowId: null }, true, h.services.corePorts);
  });

  it('leaves out a session that expired unseen, and a revocation leaves it to the sweep to record', async () => {
    const child = await h.createChild(parent, 'canary-kid-manage', '7304518');
    const stale = await h.signInChild('canary-kid-manage', '7304518');
    if (!stale.ok) throw new Error('child sign-in refused');
    h.clock.advance(DAY);
    const fresh = await h.signInChild('canary-kid-manage', '7304518');
    if (!fresh.ok) throw new Error('child sign-in refused');
    h.clock.advance(DAY + MINUTE);

    const listed = await listSessions(child.id, null, h.services.corePorts);
    expect(listed.map((item) => item.id)).toEqual([publicSessionId(fresh.started.session.id)]);
    // Not listed, so not found: an expired session's id is 404 like any other.
    const byParent = { actorUserId: parent.id, currentRowId: null };
    expect(await revokeSession(child.id, publicSessionId(stale.started.session.id), byParent, h.services.corePorts)).toBe(false);

    const mark = h.auditMark();
    expect(await revokeSessions(child.id, byParent, true, h.services.corePorts)).toBe(1);
    await sweepExpiredSessions(h.services);
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.reason, row.actorUserId])).toEqual([
      ['authn_token_revoked', 'parent_revoked', parent.id],
      ['session_expired', 'idle', null],
    ]);
    expect(h.rows('SELECT id, endReason FROM Sessions WHERE userId = @id ORDER BY createdAt', { id: child.id })).toEqual([
      { id: stale.started.session.id, endReason: 'idle' },
      { id: fresh.started.session.id, endReason: 'parent_revoked' },
    ]);
  });
});

describe('racing revocations', () => {
  it('end a session once, with one row, when two instances end it at the same time', async () => {
    const kept = await signIn();
    const target = await signIn();
    const other = h.instance();
    const by = { actorUserId: parent.id, currentRowId: kept.rowId };
    const mark = h.auditMark();
    const results = await Promise.all([
      revokeSession(parent.id, publicSessionId(target.rowId), by, h.services.corePorts),
      revokeSession(parent.id, publicSessionId(target.rowId), by, other.corePorts),
    ]);
    expect([...results].sort()).toEqual([false, true]);
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => [row.eventType, row.reason, row.targetId])).toEqual([['authn_token_revoked', 'user_revoked', target.rowId]]);
    expect(detailsOf(rows[0])).toEqual({ sessions: 1, accountType: 'adult', current: false });
    expect((await h.authenticate(target.token)).ok).toBe(false);
    expect((await h.authenticate(kept.token)).ok).toBe(true);
  });

  it("count each session once when two instances end all of a user's sessions at the same time", async () => {
    const current = await signIn();
    for (let index = 0; index < 3; index += 1) await signIn();
    const other = h.instance();
    const by = { actorUserId: parent.id, currentRowId: current.rowId };
    const mark = h.auditMark();
    const counts = await Promise.all([
      revokeSessions(parent.id, by, false, h.services.corePorts),
      revokeSessions(parent.id, by, false, other.corePorts),
    ]);
    // Everything but `current` (the sessions of the test above included: one of them is still live).
    expect(counts[0] + counts[1]).toBe(4);
    const rows = h.auditAfter(mark);
    expect(rows.map((row) => detailsOf(row).sessions).reduce((sum, n) => Number(sum) + Number(n), 0)).toBe(4);
    expect(rows.every((row) => row.reason === 'user_revoked_all')).toBe(true);
    expect((await listSessions(parent.id, current.rowId, h.services.corePorts)).map((item) => item.current)).toEqual([true]);
  });
});

describe('leaks', () => {
  it('writes no token, PIN, username or subject to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 10);
  });
});
