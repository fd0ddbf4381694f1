import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import type { LocalHost } from '../helpers/local-host';
import { auditRows } from '../helpers/sqlite-reader';

/**
 * Approval and role changes over real HTTP: new adults wait for approval, an administrator
 * approves them and changes roles, and every step is audited and logged.
 */
let env: AuthTestHost;
let host: LocalHost;
let api: ApiClient;
let databaseFile: string;
const canaries = new CanaryTracker();

function idToken(sub: string, extra: Record<string, unknown> = {}): string {
  return env.idToken(sub, extra);
}

beforeAll(async () => {
  env = await startAuthTestHost('admin', canaries, { NEW_USER_STATUS: 'pending_approval', BOOTSTRAP_ADMIN_SUBJECTS: 'root-admin' });
  ({ host, api, databaseFile } = env);
});

afterAll(async () => {
  await env?.stop();
});

describe('approval of new adults', () => {
  let adminToken: string;

  beforeAll(async () => {
    const admin = await api.signInAdult(idToken('root-admin'));
    expect(admin.response.body.user).toMatchObject({ role: 'admin', status: 'active' });
    adminToken = admin.token;
  });

  it('refuses a new adult until an administrator approves them', async () => {
    const phone = '+15550104477';
    canaries.add(phone);
    const first = await api.signInAdult(idToken('newcomer', { phone_number: phone, phone_number_verified: true }));
    expect(first.response.status).toBe(403);
    expect(first.response.body).toMatchObject({ code: 'account_pending_approval' });
    const pendingRow = auditRows(databaseFile).find((r) => r.traceId === first.response.body.traceId);
    expect(pendingRow).toMatchObject({ eventType: 'authn_login_fail', reason: 'pending_approval' });

    const pending = await api.request('GET', '/api/v1/users?status=pending_approval', { token: adminToken });
    expect(pending.status).toBe(200);
    const items = pending.body.items as { id: string; status: string; phone?: string }[];
    const newcomer = items.find((item) => item.phone === phone);
    expect(newcomer).toMatchObject({ status: 'pending_approval' });

    const approval = await api.request('POST', `/api/v1/users/${String(newcomer?.id)}/approve`, { token: adminToken });
    expect(approval.status).toBe(200);
    expect(approval.body).toMatchObject({ id: newcomer?.id, status: 'active' });
    expect(auditRows(databaseFile).some((r) => r.eventType === 'user_approved' && r.subjectUserId === newcomer?.id)).toBe(true);

    const again = await api.signInAdult(idToken('newcomer', { phone_number: phone, phone_number_verified: true }));
    expect(again.response.status).toBe(200);
  });

  it('changes a role: audited with old and new role, logged, and the user signed out everywhere', async () => {
    const pendingAuthor = await api.signInAdult(idToken('future-author'));
    expect(pendingAuthor.response.status).toBe(403);
    // The newest account pending approval is the one just created (the list is oldest first).
    const pending = await api.request('GET', '/api/v1/users?status=pending_approval', { token: adminToken });
    const id = String((pending.body.items as { id: string }[]).at(-1)?.id);
    await api.request('POST', `/api/v1/users/${id}/approve`, { token: adminToken });
    const session = await api.signInAdult(idToken('future-author'));
    expect(session.response.status).toBe(200);

    const change = await api.request('PATCH', `/api/v1/users/${id}/role`, { token: adminToken, body: { role: 'author' } });
    expect(change.status).toBe(200);
    expect(change.body).toMatchObject({ id, role: 'author' });
    expect((await api.request('GET', '/api/v1/me', { token: session.token })).status).toBe(401);

    const rows = auditRows(databaseFile).filter((r) => r.subjectUserId === id);
    const authz = rows.find((r) => r.eventType === 'authz_change');
    expect(JSON.parse(String(authz?.details))).toEqual({ from: 'member', to: 'author' });
    expect(rows.find((r) => r.eventType === 'authn_token_revoked')).toMatchObject({ reason: 'role_changed' });
    const line = await host.waitForLine((l) => l.message === 'user role changed' && l.subjectUserId === id);
    expect(line).toMatchObject({ fromRole: 'member', toRole: 'author', level: 'info' });

    const fresh = await api.signInAdult(idToken('future-author'));
    expect(fresh.response.body.user).toMatchObject({ role: 'author' });
  });

  it('keeps non-administrators out', async () => {
    const member = await api.signInAdult(idToken('newcomer'));
    expect(member.response.status).toBe(200);
    expect((await api.request('GET', '/api/v1/users', { token: member.token })).status).toBe(403);
    expect((await api.request('POST', `/api/v1/users/${member.userId}/approve`, { token: member.token })).status).toBe(403);
    const selfPromotion = await api.request('PATCH', `/api/v1/users/${member.userId}/role`, { token: member.token, body: { role: 'admin' } });
    expect(selfPromotion.status).toBe(403);
    expect((await api.request('GET', '/api/v1/users')).status).toBe(401);
  });

  it.each([
    ['an unknown role', 'PATCH', 'role', { role: 'owner' }, 400, 'invalid_request'],
    ['a child role', 'PATCH', 'role', { role: 'child' }, 400, 'invalid_request'],
    ['an unknown user', 'POST', 'approve', undefined, 404, 'not_found'],
  ])('answers %s with a problem', async (_name, method, action, body, status, code) => {
    const response = await api.request(method, `/api/v1/users/00000000-0000-4000-8000-000000000abc/${action}`, {
      token: adminToken,
      ...(body ? { body } : {}),
    });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ code });
  });

  it('refuses an administrator changing their own role', async () => {
    const me = await api.request('GET', '/api/v1/me', { token: adminToken });
    const response = await api.request('PATCH', `/api/v1/users/${String(me.body.id)}/role`, { token: adminToken, body: { role: 'member' } });
    expect(response.status).toBe(403);
  });

  it('answers bad list parameters and bad ids with 400', async () => {
    expect((await api.request('GET', '/api/v1/users?status=sleeping', { token: adminToken })).status).toBe(400);
    expect((await api.request('GET', '/api/v1/users?limit=0', { token: adminToken })).status).toBe(400);
    expect((await api.request('POST', '/api/v1/users/42/approve', { token: adminToken })).status).toBe(400);
  });
});

describe('what the app wrote', () => {
  it('holds no token or phone number in stdout or the audit log', () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
