import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/api-client';
import { CanaryTracker } from '../helpers/canaries';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import type { LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Export and erasure over real HTTP through the local host: `GET /api/v1/me/export`
 * for a parent and a child, `DELETE /api/v1/children/{id}?erase=true` removing the child's personal
 * data (a tombstone left, the username reserved), `DELETE /api/v1/me` refused while a child is not
 * erased and then erasing the adult. Another parent's ids 404, a child's token 403, and nothing
 * personal of anyone in a log line or audit row, nor of anyone else in an export.
 */

const PEPPER = 'e2e-pepper-erasure-0123456789abcdef';
const PARENT_EMAIL = 'canary-erasure-parent@example.test';
const PARENT_PHONE = '+447700900461';
const STRANGER_EMAIL = 'canary-erasure-stranger@example.test';
const KID = 'canary-erasable-kid';
const KID_PIN = '508163';
const OLD_KID = 'canary-older-kid';
const OLD_KID_PIN = '731940';
const PARENT_DEVICE = 'ExponentPushToken[canary-erasure-parent-device]';
const KID_DEVICE = 'ExponentPushToken[canary-erasure-kid-device]';
const PENDING_EMAIL = 'canary-erasure-pending@example.test';

let env: AuthTestHost;
let databaseFile: string;
let host: LocalHost;
let api: ApiClient;
/** Everything personal or secret of anyone here: never in stdout or the audit log. */
const canaries = new CanaryTracker();

interface Adult {
  token: string;
  userId: string;
}

let parent: Adult;
let stranger: Adult;
let kidId: string;
let kidToken: string;
let oldKidId: string;

async function signInAdult(sub: string, claims: Record<string, unknown> = {}): Promise<Adult> {
  const { token, userId, response } = await api.signInAdult(env.idToken(sub, claims));
  expect(response.status).toBe(200);
  canaries.add(token);
  return { token, userId };
}

/** Runs statements on the app's database file, as an operator (or another process) would. */
function write(sql: string, params: Record<string, string | number | null> = {}): void {
  const db = new DatabaseSync(databaseFile);
  try {
    db.prepare(sql).run(params);
  } finally {
    db.close();
  }
}

const exportOf = async (token: string): Promise<ApiResponse> => api.request('GET', '/api/v1/me/export', { token });

/** A canary tracker of one person's data, to search the exports of everyone else. */
function personal(...values: string[]): CanaryTracker {
  const tracker = new CanaryTracker();
  tracker.add(...values);
  return tracker;
}

beforeAll(async () => {
  canaries.add(PARENT_EMAIL, PARENT_PHONE, STRANGER_EMAIL, PARENT_DEVICE, KID_DEVICE, PENDING_EMAIL);
  env = await startAuthTestHost('erasure', canaries, {
    CHILD_SECRET_PEPPER: PEPPER,
    CONSENT_TERMS_VERSION: 'e2e-erasure-terms',
    BOOTSTRAP_ADMIN_SUBJECTS: 'erasure-admin',
  });
  ({ host, api, databaseFile } = env);
  parent = await signInAdult('erasure-parent', { email: PARENT_EMAIL, email_verified: true, phone_number: PARENT_PHONE, phone_number_verified: true });
  stranger = await signInAdult('erasure-stranger', { email: STRANGER_EMAIL, email_verified: true });
  const created = await api.createChild(parent.token, { username: KID, pin: KID_PIN, scopes: ['announcements', 'events'] });
  expect(created.status).toBe(201);
  kidId = String(created.body.id);
  expect((await api.signInChild(KID, '999999')).status).toBe(401);
  const kid = await api.signInChild(KID, KID_PIN);
  expect(kid.status).toBe(200);
  kidToken = String(kid.body.token);
  canaries.add(kidToken);
  expect((await api.request('PUT', '/api/v1/me/push-tokens', { token: kidToken, body: { token: KID_DEVICE } })).status).toBe(204);
  expect((await api.request('PATCH', '/api/v1/me/notification-preferences', { token: kidToken, body: { push: false } })).status).toBe(200);
  expect((await api.request('PUT', '/api/v1/me/push-tokens', { token: parent.token, body: { token: PARENT_DEVICE } })).status).toBe(204);
  expect((await api.request('PATCH', '/api/v1/me/notification-preferences', { token: parent.token, body: { sms: false } })).status).toBe(200);
});

afterAll(async () => {
  await env?.stop();
});

describe('GET /api/v1/me/export', () => {
  it("gives a parent their profile, contact data, preferences, devices, sessions, children and the audit rows naming them", async () => {
    const answer = await exportOf(parent.token);
    expect(answer.status).toBe(200);
    const body = answer.body as Record<string, unknown>;
    expect(body.profile).toMatchObject({ id: parent.userId, accountType: 'adult', status: 'active', identity: { subject: 'erasure-parent' }, username: null });
    expect(body.contact).toEqual({ email: PARENT_EMAIL, phone: PARENT_PHONE });
    expect(body.preferences).toEqual({ push: true, sms: false, email: true });
    expect(body.devices).toEqual([{ token: PARENT_DEVICE, registeredAt: expect.any(String), updatedAt: expect.any(String) }]);
    const sessions = body.sessions as { id: string; current: boolean; client: string; endedAt: string | null }[];
    expect(sessions).toEqual([expect.objectContaining({ id: expect.stringMatching(/^[0-9a-f]{32}$/), current: true, endedAt: null })]);
    expect(body.announcements).toEqual([]);
    expect(body.consents).toEqual([]);
    const [child, ...others] = body.children as Record<string, unknown>[];
    expect(others).toEqual([]);
    expect(child).toMatchObject({
      id: kidId,
      status: 'active',
      account: { username: KID, signInMethod: 'pin', scopes: ['announcements', 'events'], locked: false, deletedAt: null },
      consents: [expect.objectContaining({ termsVersion: 'e2e-erasure-terms', sections: ['announcements', 'events'], withdrawnAt: null })],
    });
    expect((child?.activity as { outcome: string }[]).map((item) => item.outcome)).toEqual(['signed_in', 'sign_in_failed']);
    const audit = body.audit as { eventType: string; actorUserId: string | null; subjectUserId: string | null; targetType: string | null; targetId: string | null }[];
    expect(audit.map((row) => row.eventType)).toEqual(expect.arrayContaining(['authn_login_success', 'child_created', 'consent_given']));
    for (const row of audit) expect([row.actorUserId, row.subjectUserId]).toContain(parent.userId);
    // A session appears by its public id, never by its row id (the token's first half).
    const signIn = audit.find((row) => row.eventType === 'authn_login_success');
    expect(signIn?.targetId).toBe(sessions[0]?.id);
    expect(JSON.stringify(body)).not.toContain(parent.token.split('.')[0]);
    // Nothing of anyone else: the stranger's address, the child's PIN and device, the child's token.
    expect(personal(STRANGER_EMAIL, KID_PIN, KID_DEVICE, kidToken).findIn(JSON.stringify(body))).toEqual([]);
  });

  it("gives a child their account, devices, preferences, sessions and the consents about them; nothing of the parent's", async () => {
    const answer = await exportOf(kidToken);
    expect(answer.status).toBe(200);
    const body = answer.body as Record<string, unknown>;
    expect(body.profile).toMatchObject({ id: kidId, accountType: 'child', role: 'child', parentId: parent.userId, username: KID, signInMethod: 'pin', identity: null });
    expect(body.contact).toEqual({ email: null, phone: null });
    expect(body.preferences).toEqual({ push: false, sms: true, email: true });
    expect(body.devices).toEqual([expect.objectContaining({ token: KID_DEVICE })]);
    expect((body.consents as unknown[]).length).toBe(1);
    expect(body.children).toEqual([]);
    const audit = body.audit as { subjectUserId: string | null; actorUserId: string | null }[];
    expect(audit.length).toBeGreaterThanOrEqual(3);
    for (const row of audit) expect([row.actorUserId, row.subjectUserId]).toContain(kidId);
    expect(personal(PARENT_EMAIL, PARENT_PHONE, PARENT_DEVICE, parent.token, STRANGER_EMAIL).findIn(JSON.stringify(body))).toEqual([]);
  });

  it('gives an author the announcements they wrote', async () => {
    const admin = await signInAdult('erasure-admin');
    const written = await api.request('POST', '/api/v1/announcements', {
      token: admin.token,
      body: { title: 'Canary bake sale on Saturday', body: 'Bring a cake', channels: ['push'] },
    });
    expect(written.status).toBe(201);
    const answer = await exportOf(admin.token);
    expect(answer.body.announcements).toEqual([
      expect.objectContaining({ id: written.body.id, title: 'Canary bake sale on Saturday', body: 'Bring a cake', channels: ['push'], status: 'draft' }),
    ]);
    expect((await exportOf(parent.token)).body.announcements).toEqual([]);
  });

  it("gives a stranger their own data only, and 401 without a session", async () => {
    const answer = await exportOf(stranger.token);
    expect(answer.status).toBe(200);
    expect(answer.body.children).toEqual([]);
    expect(personal(PARENT_EMAIL, PARENT_PHONE, KID, KID_PIN, KID_DEVICE, PARENT_DEVICE).findIn(JSON.stringify(answer.body))).toEqual([]);
    expect((await api.request('GET', '/api/v1/me/export')).status).toBe(401);
  });

  it('gives what was sent to the caller: announcement deliveries, account notices with theirs, and the bounce and STOP lists', async () => {
    const before = await exportOf(stranger.token);
    expect([before.body.notifications, before.body.notices, before.body.contactLists]).toEqual([[], [], { emailHardBouncedAt: null, smsOptedOutAt: null }]);
    const at = '2031-01-02T03:04:05.678Z';
    const announcementId = '7a0c2d1e-0000-4000-8000-00000000e2e1';
    const noticeId = '7a0c2d1e-0000-4000-8000-00000000e2e2';
    write(
      `INSERT INTO Announcements (id, authorId, title, body, channels, status, createdAt, updatedAt, publishedAt)
       VALUES (@announcementId, @parentId, 'Sports day', 'Bring shoes', '["email"]', 'published', @at, @at, @at)`,
      { announcementId, parentId: parent.userId, at },
    );
    for (const userId of [stranger.userId, parent.userId]) {
      write(
        `INSERT INTO NotificationDeliveries (announcementId, userId, channel, result, attempts, providerCode, providerMessageId, createdAt, updatedAt)
         VALUES (@announcementId, @userId, 'email', 'success', 1, 'Delivered', 'canary-provider-operation', @at, @at)`,
        { announcementId, userId, at },
      );
    }
    write(
      `INSERT INTO AccountNotices (id, kind, recipientUserId, subjectUserId, eventAt, createdAt, enqueuedAt)
       VALUES (@noticeId, 'child_locked', @strangerId, @kidId, @at, @at, @at)`,
      { noticeId, strangerId: stranger.userId, kidId, at },
    );
    write(
      `INSERT INTO AccountNoticeDeliveries (noticeId, userId, channel, result, attempts, providerMessageId, createdAt, updatedAt)
       VALUES (@noticeId, @strangerId, 'email', 'accepted', 1, 'canary-provider-operation', @at, @at)`,
      { noticeId, strangerId: stranger.userId, at },
    );
    write('INSERT INTO EmailHardBounces (email, providerCode, bouncedAt) VALUES (@email, @code, @at)', { email: STRANGER_EMAIL, code: 'Bounced', at });

    const answer = await exportOf(stranger.token);
    expect(answer.status).toBe(200);
    expect(answer.body.notifications).toEqual([{ announcementId, channel: 'email', result: 'success', createdAt: at, updatedAt: at }]);
    expect(answer.body.notices).toEqual([
      { id: noticeId, kind: 'child_locked', subjectUserId: kidId, eventAt: at, createdAt: at, deliveries: [{ channel: 'email', result: 'accepted', createdAt: at, updatedAt: at }] },
    ]);
    expect(answer.body.contactLists).toEqual({ emailHardBouncedAt: at, smsOptedOutAt: null });
    expect(JSON.stringify(answer.body)).not.toContain('canary-provider-operation');
    // The parent's row is the parent's: the notice and the stranger's bounce are not.
    const parents = await exportOf(parent.token);
    expect(parents.body.notifications).toEqual([expect.objectContaining({ announcementId })]);
    expect([parents.body.notices, parents.body.contactLists]).toEqual([[], { emailHardBouncedAt: null, smsOptedOutAt: null }]);
  });
});

describe('DELETE /api/v1/me while a child is not erased', () => {
  it("refuses a child's token with 403 and the parent with 409 naming the children, changing nothing", async () => {
    const child = await api.request('DELETE', '/api/v1/me', { token: kidToken });
    expect(child.status).toBe(403);
    expect(child.body.code).toBe('forbidden');
    const refused = await api.request('DELETE', '/api/v1/me', { token: parent.token });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('children_not_erased');
    expect(String(refused.body.detail)).toContain('1 child account');
    expect(String(refused.body.detail)).toContain('?erase=true');
    expect((await api.request('GET', '/api/v1/me', { token: parent.token })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/me', { token: kidToken })).status).toBe(200);
    expect(auditRows(databaseFile).filter((row) => row.eventType === 'account_erased')).toEqual([]);
  });
});

describe('DELETE /api/v1/children/{id}?erase=true: erasing a child', () => {
  it("answers 404 to another parent and to the parent's own id, changing nothing", async () => {
    expect((await api.request('DELETE', `/api/v1/children/${kidId}?erase=true`, { token: stranger.token })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/children/${parent.userId}?erase=true`, { token: parent.token })).status).toBe(404);
    expect(readRows(databaseFile, 'SELECT status FROM Users WHERE id = @kidId', { kidId })).toEqual([{ status: 'active' }]);
  });

  it('removes the personal data in one change: a tombstone row, the consent withdrawn, the username reserved', async () => {
    expect((await api.request('DELETE', `/api/v1/children/${kidId}?erase=true`, { token: parent.token })).status).toBe(204);
    expect(readRows(databaseFile, 'SELECT status, parentId, email, phone FROM Users WHERE id = @kidId', { kidId })).toEqual([
      { status: 'erased', parentId: parent.userId, email: null, phone: null },
    ]);
    for (const table of ['ChildAccounts', 'Sessions', 'PushTokens', 'NotificationPreferences']) {
      expect(readRows(databaseFile, `SELECT userId FROM ${table} WHERE userId = @kidId`, { kidId }), table).toEqual([]);
    }
    // Reserved by a key: the name itself is nowhere in the database any more.
    const reserved = readRows<{ usernameKey: string; reservedAt: string; releasedAt: string }>(databaseFile, 'SELECT * FROM ReservedUsernames');
    expect(reserved).toHaveLength(1);
    expect(reserved[0]?.usernameKey).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(String(reserved[0]?.releasedAt)) - Date.parse(String(reserved[0]?.reservedAt))).toBe(30 * 24 * 60 * 60 * 1000);
    const erased = auditRows(databaseFile).filter((row) => row.eventType === 'account_erased');
    expect(erased.map((row) => [row.actorUserId, row.subjectUserId, JSON.parse(String(row.details)) as unknown])).toEqual([
      [parent.userId, kidId, { accountType: 'child', sessions: 1, devices: 1 }],
    ]);
    const events = auditRows(databaseFile).filter((row) => row.subjectUserId === kidId).map((row) => row.eventType);
    // One transaction's rows share their time to the millisecond: compared as a set.
    expect(events).toEqual(expect.arrayContaining(['child_updated', 'authn_token_revoked', 'consent_withdrawn', 'account_erased']));

    // Gone for every way in: its token, its name, the parent's child endpoints.
    expect((await api.request('GET', '/api/v1/me', { token: kidToken })).status).toBe(401);
    expect((await api.signInChild(KID, KID_PIN)).status).toBe(401);
    for (const path of [`/api/v1/children/${kidId}/sessions`, `/api/v1/children/${kidId}/activity`]) {
      expect((await api.request('GET', path, { token: parent.token })).status, path).toBe(404);
    }
    expect((await api.request('DELETE', `/api/v1/children/${kidId}?erase=true`, { token: parent.token })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/children/${kidId}`, { token: parent.token })).status).toBe(404);
    // The consent stays on record, withdrawn; the parent's export shows the tombstone.
    const consents = await api.request('GET', `/api/v1/children/${kidId}/consents`, { token: parent.token });
    expect(consents.status).toBe(200);
    expect((consents.body.items as { withdrawnAt: string | null }[]).map((item) => item.withdrawnAt !== null)).toEqual([true]);
    const exported = await exportOf(parent.token);
    expect(exported.body.children).toEqual([expect.objectContaining({ id: kidId, status: 'erased', account: null })]);
    expect(JSON.stringify(exported.body)).not.toContain(KID);
  });

  it('keeps the username taken through the quarantine, for every parent', async () => {
    for (const token of [parent.token, stranger.token]) {
      const again = await api.createChild(token, { username: KID, pin: '284619', scopes: [] });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('username_taken');
    }
  });

  it('erases a child deleted before consent records existed (no consent to withdraw)', async () => {
    const created = await api.createChild(parent.token, { username: OLD_KID, pin: OLD_KID_PIN, scopes: ['media'] });
    expect(created.status).toBe(201);
    oldKidId = String(created.body.id);
    // A child from before migration 0012 has no consent row.
    const db = new DatabaseSync(databaseFile);
    try {
      db.prepare('DELETE FROM ChildConsents WHERE childUserId = @oldKidId').run({ oldKidId });
    } finally {
      db.close();
    }
    expect((await api.request('DELETE', `/api/v1/children/${oldKidId}`, { token: parent.token })).status).toBe(204);
    expect((await api.request('DELETE', `/api/v1/children/${oldKidId}?erase=true`, { token: parent.token })).status).toBe(204);
    expect(readRows(databaseFile, 'SELECT status FROM Users WHERE id = @oldKidId', { oldKidId })).toEqual([{ status: 'erased' }]);
    const rows = auditRows(databaseFile).filter((row) => row.subjectUserId === oldKidId && ['consent_withdrawn', 'account_erased'].includes(String(row.eventType)));
    rows.sort((a, b) => String(b.eventType).localeCompare(String(a.eventType)));
    expect(rows.map((row) => [row.eventType, row.targetId, JSON.parse(String(row.details)) as unknown])).toEqual([
      ['consent_withdrawn', null, { sections: 'media', allSections: true }],
      ['account_erased', null, { accountType: 'child', sessions: 0, devices: 0 }],
    ]);
  });
});

describe('DELETE /api/v1/me by the only administrator', () => {
  it('is refused with 409 invalid_transition, changing nothing', async () => {
    const admin = await signInAdult('erasure-admin');
    const refused = await api.request('DELETE', '/api/v1/me', { token: admin.token });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_transition');
    expect((await api.request('GET', '/api/v1/me', { token: admin.token })).status).toBe(200);
    expect(readRows(databaseFile, 'SELECT status FROM Users WHERE id = @id', { id: admin.userId })).toEqual([{ status: 'active' }]);
  });
});

describe('DELETE /api/v1/users/{id}: an administrator erases an adult who cannot', () => {
  it('erases an adult pending approval, with their unpublished announcements; refuses anyone else', async () => {
    const admin = await signInAdult('erasure-admin');
    const pending = await signInAdult('erasure-pending', { email: PENDING_EMAIL, email_verified: true });
    write("UPDATE Users SET status = 'pending_approval' WHERE id = @id", { id: pending.userId });
    write(
      `INSERT INTO Announcements (id, authorId, title, body, channels, status, createdAt, updatedAt, submittedAt)
       VALUES ('7a0c2d1e-0000-4000-8000-00000000e2e3', @id, 'Queued one', 'Not yet', '["push"]', 'queued', @at, @at, @at)`,
      { id: pending.userId, at: '2031-01-02T03:04:05.678Z' },
    );
    const erase = (token: string, id: string) => api.request('DELETE', `/api/v1/users/${id}`, { token });

    expect((await erase(stranger.token, pending.userId)).status).toBe(403);
    // The erased child's token is no session any more.
    expect((await erase(kidToken, pending.userId)).status).toBe(401);
    const active = await erase(admin.token, stranger.userId);
    expect([active.status, active.body.code]).toEqual([409, 'invalid_transition']);
    expect((await erase(admin.token, admin.userId)).status).toBe(409);
    expect((await erase(admin.token, 'not-an-id')).status).toBe(400);
    expect((await erase(admin.token, '7a0c2d1e-0000-4000-8000-00000000e2e9')).status).toBe(404);
    expect(readRows(databaseFile, 'SELECT status FROM Users WHERE id = @id', { id: stranger.userId })).toEqual([{ status: 'active' }]);

    expect((await erase(admin.token, pending.userId)).status).toBe(204);
    expect(readRows(databaseFile, 'SELECT status, issuer, subject, email, phone FROM Users WHERE id = @id', { id: pending.userId })).toEqual([
      { status: 'erased', issuer: null, subject: null, email: null, phone: null },
    ]);
    expect(readRows(databaseFile, 'SELECT id FROM Announcements WHERE authorId = @id', { id: pending.userId })).toEqual([]);
    const rows = auditRows(databaseFile).filter((row) => row.eventType === 'account_erased' && row.subjectUserId === pending.userId);
    expect(rows.map((row) => [row.actorUserId, JSON.parse(String(row.details)) as unknown])).toEqual([
      // The session of its sign-in from before it was set back to pending goes too.
      [admin.userId, { accountType: 'adult', sessions: 1, devices: 0, announcements: 1, from: 'pending_approval' }],
    ]);
    expect((await erase(admin.token, pending.userId)).status).toBe(404);
    expect(host.lines.filter((line) => line.message === 'account erased by an administrator').map((line) => [line.erasedUserId, line.fromStatus])).toEqual([
      [pending.userId, 'pending_approval'],
    ]);
  });
});

describe('DELETE /api/v1/me: erasing an adult', () => {
  it('leaves a tombstone once every child is erased, ends every way in, and lets the person start afresh', async () => {
    const erased = await api.request('DELETE', '/api/v1/me', { token: parent.token });
    expect(erased.status).toBe(204);
    expect((await api.request('GET', '/api/v1/me', { token: parent.token })).status).toBe(401);
    expect((await api.request('DELETE', '/api/v1/me', { token: parent.token })).status).toBe(401);
    expect(readRows(databaseFile, 'SELECT status, issuer, subject, email, phone FROM Users WHERE id = @id', { id: parent.userId })).toEqual([
      { status: 'erased', issuer: null, subject: null, email: null, phone: null },
    ]);
    for (const table of ['Sessions', 'PushTokens', 'NotificationPreferences']) {
      expect(readRows(databaseFile, `SELECT userId FROM ${table} WHERE userId = @id`, { id: parent.userId }), table).toEqual([]);
    }
    const rows = auditRows(databaseFile).filter((row) => row.eventType === 'account_erased' && row.subjectUserId === parent.userId);
    expect(rows.map((row) => [row.actorUserId, JSON.parse(String(row.details)) as unknown])).toEqual([
      [parent.userId, { accountType: 'adult', sessions: 1, devices: 1, announcements: 0 }],
    ]);
    // The published announcement they wrote stays, as community content by a tombstone.
    expect(readRows(databaseFile, 'SELECT status FROM Announcements WHERE authorId = @id', { id: parent.userId })).toEqual([{ status: 'published' }]);
    // A tombstone is nothing an administrator can act on.
    const admin = await signInAdult('erasure-admin');
    expect((await api.request('POST', `/api/v1/users/${parent.userId}/approve`, { token: admin.token })).status).toBe(404);
    expect((await api.request('PATCH', `/api/v1/users/${parent.userId}/role`, { token: admin.token, body: { role: 'author' } })).status).toBe(404);
    // The stranger is untouched.
    expect((await api.request('GET', '/api/v1/me', { token: stranger.token })).body.email).toBe(STRANGER_EMAIL);
    // The same person signing in again is a new account.
    const again = await signInAdult('erasure-parent', { email: PARENT_EMAIL, email_verified: true });
    expect(again.userId).not.toBe(parent.userId);
    expect((await exportOf(again.token)).body.children).toEqual([]);
  });
});

describe('what the app wrote', () => {
  it('logs erasures and exports by ids only, and holds nobody\'s personal data in stdout or the audit log', () => {
    const deleted = host.lines.filter((line) => line.message === 'child account deleted');
    expect(deleted.map((line) => [line.childUserId, line.erased])).toEqual([
      [kidId, true],
      [oldKidId, false],
      [oldKidId, true],
    ]);
    const adult = host.lines.filter((line) => line.message === 'account erased');
    expect(adult.map((line) => [line.erasedUserId, line.accountType, line.sessions, line.devices])).toEqual([[parent.userId, 'adult', 1, 1]]);
    expect(host.lines.filter((line) => line.message === 'request handled' && line.endpoint === 'GET /api/v1/me/export').length).toBeGreaterThanOrEqual(5);
    expect(host.invalidLines).toEqual([]);
    expect(canaries.size).toBeGreaterThan(10);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
