import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/api-client';
import { CanaryTracker } from '../helpers/canaries';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import type { LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * The parent's consent records over real HTTP through the local host: a consent with every child
 * created and every change of its sections (`GET /api/v1/children/{id}/consents`), the
 * `consent_given` / `consent_withdrawn` audit rows, the withdrawal of all consent with
 * `DELETE /api/v1/children/{id}?erase=true`, a child's token 403, another parent's child 404, and
 * nothing personal in any answer, log line or audit row.
 */

const TERMS = 'e2e-terms-2025.06';

let env: AuthTestHost;
let databaseFile: string;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();
/** Every answer of the consent endpoints, searched for usernames and PINs at the end. */
const answers: ApiResponse[] = [];

interface ListedConsent {
  id: string;
  termsVersion: string;
  sections: string[];
  method: string;
  givenAt: string;
  replacedAt: string | null;
  withdrawnAt: string | null;
}

async function call(method: string, pathname: string, token?: string): Promise<ApiResponse> {
  const answer = await api.request(method, pathname, token ? { token } : {});
  answers.push(answer);
  return answer;
}

async function signInAdult(sub: string): Promise<{ token: string; userId: string }> {
  const { token, userId, response } = await api.signInAdult(env.idToken(sub));
  expect(response.status).toBe(200);
  return { token, userId };
}

async function newChild(parentToken: string, username: string, pin: string, scopes: string[]): Promise<string> {
  const created = await api.createChild(parentToken, { username, pin, scopes });
  expect(created.status).toBe(201);
  return String(created.body.id);
}

async function consentsOf(childId: string, token: string): Promise<ListedConsent[]> {
  const answer = await call('GET', `/api/v1/children/${childId}/consents`, token);
  expect(answer.status).toBe(200);
  expect(answer.body.nextCursor).toBeNull();
  return answer.body.items as ListedConsent[];
}

async function patchScopes(token: string, childId: string, scopes: string[]): Promise<void> {
  const answer = await api.request('PATCH', `/api/v1/children/${childId}`, { token, body: { scopes } });
  expect(answer.status).toBe(200);
}

/** The consent audit rows about a child in the order written. */
const consentRows = (childId: string) =>
  readRows<{ eventType: string; actorUserId: string; targetType: string | null; targetId: string | null; details: string }>(
    databaseFile,
    `SELECT eventType, actorUserId, targetType, targetId, details FROM AuditLog
     WHERE subjectUserId = @childId AND eventType IN ('consent_given', 'consent_withdrawn') ORDER BY rowid`,
    { childId },
  ).map((row) => ({ ...row, details: JSON.parse(row.details) as unknown }));

beforeAll(async () => {
  env = await startAuthTestHost('consents', canaries, {
    CHILD_SECRET_PEPPER: 'e2e-pepper-consents-0123456789abcdef',
    CONSENT_TERMS_VERSION: TERMS,
  });
  ({ host, api, databaseFile } = env);
});

afterAll(async () => {
  await env?.stop();
});

describe('consent with a new child and with each change of its sections', () => {
  let parent: { token: string; userId: string };
  let childId: string;

  beforeAll(async () => {
    parent = await signInAdult('consent-parent');
    childId = await newChild(parent.token, 'canary-consent-kid', '582061', ['events', 'announcements']);
  });

  it('records the consent given with the child, with the contract fields and its audit row', async () => {
    const [consent, ...rest] = await consentsOf(childId, parent.token);
    expect(rest).toEqual([]);
    expect(consent).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      termsVersion: TERMS,
      sections: ['announcements', 'events'],
      method: 'account_holder_confirmation',
      givenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      replacedAt: null,
      withdrawnAt: null,
    });
    const [created] = readRows<{ createdAt: string }>(databaseFile, 'SELECT createdAt FROM Users WHERE id = @childId', { childId });
    expect(Date.parse(String(consent?.givenAt)) - Date.parse(String(created?.createdAt))).toBeLessThan(1000);
    expect(consentRows(childId)).toEqual([
      {
        eventType: 'consent_given',
        actorUserId: parent.userId,
        targetType: 'consent',
        targetId: consent?.id,
        details: { termsVersion: TERMS, sections: 'announcements,events', method: 'account_holder_confirmation' },
      },
    ]);
  });

  it('records a new consent for new sections, withdraws the ones taken away, and nothing for no change', async () => {
    const [first] = await consentsOf(childId, parent.token);
    await patchScopes(parent.token, childId, ['announcements', 'events', 'media']);
    await patchScopes(parent.token, childId, ['media', 'announcements']);
    // The same set in another order, and a change of PIN only: no new consent.
    await patchScopes(parent.token, childId, ['announcements', 'media', 'media']);
    const pinOnly = await api.request('PATCH', `/api/v1/children/${childId}`, { token: parent.token, body: { pin: '730582' } });
    canaries.add('730582');
    expect(pinOnly.status).toBe(200);

    const consents = await consentsOf(childId, parent.token);
    expect(consents.map((item) => [item.sections, item.replacedAt === null, item.withdrawnAt])).toEqual([
      [['announcements', 'media'], true, null],
      [['announcements', 'events', 'media'], false, null],
      [['announcements', 'events'], false, null],
    ]);
    expect(consents[2]?.id).toBe(first?.id);
    // Each consent was replaced when the next was given.
    expect(consents[1]?.replacedAt).toBe(consents[0]?.givenAt);
    expect(consents[2]?.replacedAt).toBe(consents[1]?.givenAt);
    expect(consentRows(childId).map((row) => [row.eventType, row.targetId, row.details])).toEqual([
      ['consent_given', consents[2]?.id, { termsVersion: TERMS, sections: 'announcements,events', method: 'account_holder_confirmation' }],
      ['consent_given', consents[1]?.id, { termsVersion: TERMS, sections: 'announcements,events,media', method: 'account_holder_confirmation' }],
      ['consent_given', consents[0]?.id, { termsVersion: TERMS, sections: 'announcements,media', method: 'account_holder_confirmation' }],
      ['consent_withdrawn', consents[1]?.id, { sections: 'events', allSections: false }],
    ]);
  });

  it("refuses a child's token with 403 and answers 404 to another parent, for a parent's id and for unknown ids", async () => {
    const child = await api.signInChild('canary-consent-kid', '730582');
    expect(child.status).toBe(200);
    const childToken = String(child.body.token);
    const refused = await call('GET', `/api/v1/children/${childId}/consents`, childToken);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');

    const stranger = await signInAdult('consent-stranger');
    for (const id of [childId, parent.userId, stranger.userId, '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c']) {
      const answer = await call('GET', `/api/v1/children/${id}/consents`, stranger.token);
      expect(answer.status, id).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
    expect((await call('GET', `/api/v1/children/${parent.userId}/consents`, parent.token)).status).toBe(404);
    expect((await call('GET', '/api/v1/children/not-a-uuid/consents', parent.token)).status).toBe(400);
    const anonymous = await call('GET', `/api/v1/children/${childId}/consents`);
    expect(anonymous.status).toBe(401);
    // Ids are read in any case.
    expect((await consentsOf(childId.toUpperCase(), parent.token)).length).toBe(3);
  });
});

describe('DELETE /api/v1/children/{id}?erase=true: withdrawing all consent', () => {
  let parent: { token: string; userId: string };

  beforeAll(async () => {
    parent = await signInAdult('erasing-parent');
  });

  it('deletes the child, withdraws the consent in force for every section, in one change; then answers 404', async () => {
    const childId = await newChild(parent.token, 'canary-erased-kid', '640917', ['groups', 'events']);
    const session = await api.signInChild('canary-erased-kid', '640917');
    expect(session.status).toBe(200);
    const [given] = await consentsOf(childId, parent.token);

    for (const bad of ['yes', 'TRUE', '1', '']) {
      const answer = await call('DELETE', `/api/v1/children/${childId}?erase=${bad}`, parent.token);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
    }
    expect((await call('DELETE', `/api/v1/children/${childId}?erase=true`, parent.token)).status).toBe(204);

    const [withdrawn, ...older] = await consentsOf(childId, parent.token);
    expect(older).toEqual([]);
    expect(withdrawn).toEqual({ ...given, withdrawnAt: expect.any(String) });
    expect(Date.parse(String(withdrawn?.withdrawnAt))).toBeGreaterThanOrEqual(Date.parse(String(given?.givenAt)));
    expect(consentRows(childId).slice(1)).toEqual([
      {
        eventType: 'consent_withdrawn',
        actorUserId: parent.userId,
        targetType: 'consent',
        targetId: given?.id,
        details: { sections: 'events,groups', allSections: true },
      },
    ]);
    // Deleted as a plain DELETE does it (sessions revoked, gone from the list), then erased: a
    // tombstone Users row, no credentials (test/e2e/account-erasure.e2e.test.ts has the rest).
    expect(readRows(databaseFile, 'SELECT status FROM Users WHERE id = @childId', { childId })).toEqual([{ status: 'erased' }]);
    expect(readRows(databaseFile, 'SELECT userId FROM ChildAccounts WHERE userId = @childId', { childId })).toEqual([]);
    expect((await api.request('GET', '/api/v1/me', { token: String(session.body.token) })).status).toBe(401);
    const listed = await api.request('GET', '/api/v1/children', { token: parent.token });
    expect((listed.body.items as { id: string }[]).map((item) => item.id)).not.toContain(childId);
    expect((await api.signInChild('canary-erased-kid', '640917')).status).toBe(401);
    const events = auditRows(databaseFile).filter((row) => row.subjectUserId === childId).map((row) => row.eventType);
    expect(events).toEqual(expect.arrayContaining(['child_updated', 'authn_token_revoked', 'consent_withdrawn', 'account_erased']));

    // Nothing left to withdraw, delete or erase; the consents stay listed, as the record of the withdrawal.
    expect((await call('DELETE', `/api/v1/children/${childId}?erase=true`, parent.token)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/children/${childId}`, parent.token)).status).toBe(404);
    expect(consentRows(childId)).toHaveLength(2);
  });

  it('keeps the consent of a plain DELETE in force, so the deleted child can still be erased', async () => {
    const childId = await newChild(parent.token, 'canary-deleted-kid', '803164', ['media']);
    expect((await call('DELETE', `/api/v1/children/${childId}?erase=false`, parent.token)).status).toBe(204);
    expect((await consentsOf(childId, parent.token)).map((item) => item.withdrawnAt)).toEqual([null]);
    expect(consentRows(childId).map((row) => row.eventType)).toEqual(['consent_given']);

    expect((await call('DELETE', `/api/v1/children/${childId}?erase=true`, parent.token)).status).toBe(204);
    expect((await consentsOf(childId, parent.token))[0]?.withdrawnAt).toEqual(expect.any(String));
    expect(consentRows(childId).map((row) => [row.eventType, row.details])).toEqual([
      ['consent_given', { termsVersion: TERMS, sections: 'media', method: 'account_holder_confirmation' }],
      ['consent_withdrawn', { sections: 'media', allSections: true }],
    ]);
    // Deleted once only: one `deleted` row, from the plain DELETE.
    const deletions = auditRows(databaseFile).filter((row) => row.subjectUserId === childId && row.eventType === 'child_updated');
    expect(deletions.map((row) => JSON.parse(String(row.details)) as unknown)).toEqual([{ deleted: true }]);
  });

  it("answers 404 to another parent's erasure and 403 to the child's own, and changes nothing", async () => {
    const childId = await newChild(parent.token, 'canary-kept-kid', '917305', ['announcements']);
    const stranger = await signInAdult('erasing-stranger');
    expect((await call('DELETE', `/api/v1/children/${childId}?erase=true`, stranger.token)).status).toBe(404);
    const child = await api.signInChild('canary-kept-kid', '917305');
    expect(child.status).toBe(200);
    const refused = await call('DELETE', `/api/v1/children/${childId}?erase=true`, String(child.body.token));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect((await consentsOf(childId, parent.token)).map((item) => item.withdrawnAt)).toEqual([null]);
    expect(consentRows(childId).map((row) => row.eventType)).toEqual(['consent_given']);
    expect((await api.request('GET', '/api/v1/me', { token: String(child.body.token) })).status).toBe(200);
  });
});

describe('what the app wrote', () => {
  it('shows no username or PIN in any consent answer', () => {
    expect(answers.length).toBeGreaterThan(15);
    expect(canaries.findIn(JSON.stringify(answers.map((answer) => answer.body)))).toEqual([]);
  });

  it('logs consent changes by ids only, and holds no username, PIN or token in stdout or the audit log', () => {
    const created = host.lines.filter((line) => line.message === 'child account created');
    expect(created.length).toBe(4);
    for (const line of created) expect(line.consentId).toMatch(/^[0-9a-f-]{36}$/);
    const updated = host.lines.filter((line) => line.message === 'child account updated');
    expect(updated.map((line) => typeof line.consentId === 'string')).toEqual([true, true, false, false]);
    const deleted = host.lines.filter((line) => line.message === 'child account deleted');
    expect(deleted.map((line) => line.consentWithdrawn)).toEqual([true, false, true]);
    expect(host.lines.filter((line) => line.message === 'request handled' && line.endpoint === 'GET /api/v1/children/{id}/consents').length).toBeGreaterThan(5);
    expect(host.invalidLines).toEqual([]);
    const stdout = host.stdout.join('\n');
    const audit = JSON.stringify(auditRows(databaseFile));
    expect(canaries.size).toBeGreaterThan(10);
    expect(canaries.findIn(stdout)).toEqual([]);
    expect(canaries.findIn(audit)).toEqual([]);
  });
});
