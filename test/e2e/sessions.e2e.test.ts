import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/api-client';
import { CanaryTracker } from '../helpers/canaries';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import type { LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Sessions a person can see and end (`/api/v1/me/sessions`) and a parent can see and end for a
 * child (`/api/v1/children/{id}/sessions`), over real HTTP through the local host: the list's
 * shape and labels, each way of ending sessions with its `authn_token_revoked` row, another user's
 * ids answering 404, a child's token 403 on the parent's endpoints, and nothing secret written.
 */

let env: AuthTestHost;
let databaseFile: string;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();

/** `User-Agent` headers as the apps and browsers send them, each with a canary the app must never repeat. */
const IOS_APP = 'CommunityApp/42 (canary-device-olga-iphone) CFNetwork/1494.0.7 Darwin/23.4.0';
const WINDOWS_BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; canary-device-olga-laptop) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const ANDROID_APP = 'okhttp/4.9.2 canary-device-kid-tablet';
canaries.add('canary-device-olga-iphone', 'canary-device-olga-laptop', 'canary-device-kid-tablet');

/** Every answer of the session endpoints, to search for tokens and their halves afterwards. */
const answers: ApiResponse[] = [];
/** Every session token handed out here, and its row id (the token's first half, which the API must not show). */
const tokens: string[] = [];

const rowIdOf = (token: string): string => token.split('.')[0] ?? '';

async function call(method: string, pathname: string, token?: string): Promise<ApiResponse> {
  const answer = await api.request(method, pathname, token ? { token } : {});
  answers.push(answer);
  return answer;
}

async function signInAdult(sub: string, userAgent?: string): Promise<{ token: string; userId: string; expiresAt: string }> {
  const idToken = env.idToken(sub);
  canaries.add(idToken);
  const response = await api.request('POST', '/api/v1/auth/session', {
    body: { idToken },
    ...(userAgent ? { headers: { 'user-agent': userAgent } } : {}),
  });
  expect(response.status).toBe(200);
  const token = String(response.body.token);
  tokens.push(token);
  return { token, userId: String((response.body.user as { id: string }).id), expiresAt: String(response.body.expiresAt) };
}

async function signInChild(username: string, pin: string, userAgent?: string): Promise<string> {
  const response = await api.signInChild(username, pin, userAgent ? { headers: { 'user-agent': userAgent } } : {});
  expect(response.status).toBe(200);
  const token = String(response.body.token);
  tokens.push(token);
  return token;
}

interface ListedSession {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  client: string;
  current: boolean;
}

async function listOwn(token: string): Promise<ListedSession[]> {
  const answer = await call('GET', '/api/v1/me/sessions', token);
  expect(answer.status).toBe(200);
  expect(answer.body.nextCursor).toBeNull();
  return answer.body.items as ListedSession[];
}

const revokedRows = (subjectUserId: string) =>
  auditRows(databaseFile)
    .filter((row) => row.eventType === 'authn_token_revoked' && row.subjectUserId === subjectUserId)
    .map((row) => ({
      actorUserId: row.actorUserId,
      reason: row.reason,
      targetType: row.targetType,
      targetId: row.targetId,
      details: JSON.parse(String(row.details)) as unknown,
    }));

const isLive = async (token: string): Promise<boolean> => {
  const me = await api.request('GET', '/api/v1/me', { token });
  expect([200, 401]).toContain(me.status);
  return me.status === 200;
};

beforeAll(async () => {
  env = await startAuthTestHost('sessions', canaries, { CHILD_SECRET_PEPPER: 'e2e-pepper-sessions-0123456789abcdef' });
  ({ host, api, databaseFile } = env);
});

afterAll(async () => {
  await env?.stop();
});

describe('GET /api/v1/me/sessions', () => {
  it('lists the live sessions newest first with a coarse client label and the presented one current', async () => {
    const phone = await signInAdult('sessions-lister', IOS_APP);
    const laptop = await signInAdult('sessions-lister', WINDOWS_BROWSER);
    const script = await signInAdult('sessions-lister');

    const items = await listOwn(laptop.token);
    expect(items.map((item) => [item.client, item.current])).toEqual([
      ['unknown', false],
      ['Windows browser', true],
      ['iOS app', false],
    ]);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['client', 'createdAt', 'current', 'expiresAt', 'id', 'lastUsedAt']);
      expect(item.id).toMatch(/^[0-9a-f]{32}$/);
      expect(item.lastUsedAt).toBe(item.createdAt);
    }
    expect(items[1]?.expiresAt).toBe(laptop.expiresAt);
    // Each token sees the same sessions, itself marked.
    expect((await listOwn(phone.token)).map((item) => item.current)).toEqual([false, false, true]);
    expect((await listOwn(script.token)).map((item) => item.id)).toEqual(items.map((item) => item.id));

    // Only the label is stored, never the header.
    const stored = readRows<{ clientLabel: string }>(databaseFile, 'SELECT clientLabel FROM Sessions WHERE userId = @id ORDER BY createdAt', {
      id: phone.userId,
    });
    expect(stored.map((row) => row.clientLabel)).toEqual(['iOS app', 'Windows browser', 'unknown']);
  });

  it('answers 401 without a session on every sessions endpoint', async () => {
    const someId = '0'.repeat(32);
    const childId = '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c';
    for (const [method, pathname] of [
      ['GET', '/api/v1/me/sessions'],
      ['DELETE', '/api/v1/me/sessions'],
      ['DELETE', `/api/v1/me/sessions/${someId}`],
      ['GET', `/api/v1/children/${childId}/sessions`],
      ['DELETE', `/api/v1/children/${childId}/sessions`],
      ['DELETE', `/api/v1/children/${childId}/sessions/${someId}`],
    ] as const) {
      const answer = await call(method, pathname);
      expect(answer.status, `${method} ${pathname}`).toBe(401);
      expect(answer.body.code).toBe('unauthenticated');
    }
  });
});

describe('DELETE /api/v1/me/sessions/{id}', () => {
  it('ends one session (404 the second time), audited as user_revoked', async () => {
    const kept = await signInAdult('sessions-one', IOS_APP);
    const lost = await signInAdult('sessions-one', WINDOWS_BROWSER);
    const target = (await listOwn(kept.token)).find((item) => !item.current);
    if (!target) throw new Error('the other session is not listed');

    // An id in upper case is the same id.
    const ended = await call('DELETE', `/api/v1/me/sessions/${target.id.toUpperCase()}`, kept.token);
    expect(ended.status).toBe(204);
    expect(await isLive(lost.token)).toBe(false);
    expect(await isLive(kept.token)).toBe(true);
    expect((await call('DELETE', `/api/v1/me/sessions/${target.id}`, kept.token)).status).toBe(404);
    expect((await listOwn(kept.token)).map((item) => item.id)).not.toContain(target.id);
    expect(revokedRows(kept.userId)).toEqual([
      {
        actorUserId: kept.userId,
        reason: 'user_revoked',
        targetType: 'session',
        targetId: rowIdOf(lost.token),
        details: { sessions: 1, accountType: 'adult', current: false },
      },
    ]);
    const [row] = readRows<{ endReason: string }>(databaseFile, 'SELECT endReason FROM Sessions WHERE id = @id', { id: rowIdOf(lost.token) });
    expect(row?.endReason).toBe('user_revoked');
  });

  it('may end the presented session itself', async () => {
    const only = await signInAdult('sessions-self');
    const [mine] = await listOwn(only.token);
    expect((await call('DELETE', `/api/v1/me/sessions/${String(mine?.id)}`, only.token)).status).toBe(204);
    expect(await isLive(only.token)).toBe(false);
    expect(revokedRows(only.userId).map((row) => row.details)).toEqual([{ sessions: 1, accountType: 'adult', current: true }]);
  });

  it("answers 404 for another user's session id and leaves that session alone", async () => {
    const owner = await signInAdult('sessions-owner');
    const stranger = await signInAdult('sessions-stranger');
    const [ownersSession] = await listOwn(owner.token);
    const answer = await call('DELETE', `/api/v1/me/sessions/${String(ownersSession?.id)}`, stranger.token);
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('not_found');
    expect(await isLive(owner.token)).toBe(true);
    expect((await listOwn(stranger.token)).map((item) => item.id)).not.toContain(ownersSession?.id);
    expect(revokedRows(owner.userId)).toEqual([]);
  });

  it('answers 400 for something that is not a session id, and 404 for an unknown one', async () => {
    const caller = await signInAdult('sessions-bad-ids');
    for (const bad of ['nope', '0'.repeat(31), `${'0'.repeat(31)}g`, rowIdOf(caller.token)]) {
      const answer = await call('DELETE', `/api/v1/me/sessions/${bad}`, caller.token);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
    }
    expect((await call('DELETE', `/api/v1/me/sessions/${'0'.repeat(32)}`, caller.token)).status).toBe(404);
    expect(await isLive(caller.token)).toBe(true);
  });
});

describe('DELETE /api/v1/me/sessions', () => {
  it('ends all but the presented session, and all of them with includeCurrent=true', async () => {
    const current = await signInAdult('sessions-all', WINDOWS_BROWSER);
    const others = [await signInAdult('sessions-all', IOS_APP), await signInAdult('sessions-all')];

    expect((await call('DELETE', '/api/v1/me/sessions?includeCurrent=yes', current.token)).status).toBe(400);
    expect((await call('DELETE', '/api/v1/me/sessions', current.token)).status).toBe(204);
    for (const other of others) expect(await isLive(other.token)).toBe(false);
    expect(await isLive(current.token)).toBe(true);
    expect((await listOwn(current.token)).map((item) => item.current)).toEqual([true]);

    // Nothing left to end: 204 and no row.
    expect((await call('DELETE', '/api/v1/me/sessions?includeCurrent=false', current.token)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/me/sessions?includeCurrent=true', current.token)).status).toBe(204);
    expect(await isLive(current.token)).toBe(false);
    expect(revokedRows(current.userId)).toEqual([
      { actorUserId: current.userId, reason: 'user_revoked_all', targetType: null, targetId: null, details: { sessions: 2, includeCurrent: false } },
      { actorUserId: current.userId, reason: 'user_revoked_all', targetType: null, targetId: null, details: { sessions: 1, includeCurrent: true } },
    ]);
  });
});

describe('a child and its parent', () => {
  let parent: { token: string; userId: string };
  let childId: string;

  beforeAll(async () => {
    parent = await signInAdult('sessions-parent', IOS_APP);
    const created = await api.createChild(parent.token, { username: 'sessions-kid', pin: '582917', scopes: ['announcements'] });
    expect(created.status).toBe(201);
    childId = String(created.body.id);
  });

  it('lets a child list and end its own sessions', async () => {
    const tablet = await signInChild('sessions-kid', '582917', ANDROID_APP);
    const other = await signInChild('sessions-kid', '582917');
    const items = await listOwn(tablet);
    expect(items.map((item) => [item.client, item.current])).toEqual([
      ['unknown', false],
      ['Android app', true],
    ]);
    expect((await call('DELETE', `/api/v1/me/sessions/${String(items[0]?.id)}`, tablet)).status).toBe(204);
    expect(await isLive(other)).toBe(false);
    expect(revokedRows(childId)).toEqual([
      {
        actorUserId: childId,
        reason: 'user_revoked',
        targetType: 'session',
        targetId: rowIdOf(other),
        details: { sessions: 1, accountType: 'child', current: false },
      },
    ]);
    expect((await call('DELETE', '/api/v1/me/sessions?includeCurrent=true', tablet)).status).toBe(204);
    expect(await isLive(tablet)).toBe(false);
  });

  it("refuses a child's token on the parent's endpoints with 403", async () => {
    const child = await signInChild('sessions-kid', '582917');
    const [own] = await listOwn(child);
    for (const [method, pathname] of [
      ['GET', `/api/v1/children/${childId}/sessions`],
      ['DELETE', `/api/v1/children/${childId}/sessions`],
      ['DELETE', `/api/v1/children/${childId}/sessions/${String(own?.id)}`],
    ] as const) {
      const answer = await call(method, pathname, child);
      expect(answer.status, `${method} ${pathname}`).toBe(403);
      expect(answer.body.code).toBe('forbidden');
    }
    expect(await isLive(child)).toBe(true);
  });

  it("lets the parent see and end the child's sessions, one or all, audited as parent_revoked", async () => {
    const before = revokedRows(childId).length;
    const tablet = await signInChild('sessions-kid', '582917', ANDROID_APP);
    const listed = await call('GET', `/api/v1/children/${childId}/sessions`, parent.token);
    expect(listed.status).toBe(200);
    const items = listed.body.items as ListedSession[];
    expect(items.map((item) => [item.client, item.current])).toEqual([
      ['Android app', false],
      ['unknown', false],
    ]);
    expect(listed.body.nextCursor).toBeNull();

    // The parent's own endpoint does not reach the child's sessions: another user's id.
    expect((await call('DELETE', `/api/v1/me/sessions/${String(items[0]?.id)}`, parent.token)).status).toBe(404);
    // Nor is a parent's own session a child's.
    const [parentsOwn] = await listOwn(parent.token);
    expect((await call('DELETE', `/api/v1/children/${childId}/sessions/${String(parentsOwn?.id)}`, parent.token)).status).toBe(404);

    expect((await call('DELETE', `/api/v1/children/${childId}/sessions/${String(items[0]?.id)}`, parent.token)).status).toBe(204);
    expect(await isLive(tablet)).toBe(false);
    expect((await call('DELETE', `/api/v1/children/${childId}/sessions`, parent.token)).status).toBe(204);
    expect(((await call('GET', `/api/v1/children/${childId}/sessions`, parent.token)).body.items as unknown[]).length).toBe(0);
    expect(await isLive(parent.token)).toBe(true);
    expect(revokedRows(childId).slice(before)).toEqual([
      {
        actorUserId: parent.userId,
        reason: 'parent_revoked',
        targetType: 'session',
        targetId: rowIdOf(tablet),
        details: { sessions: 1, accountType: 'child', current: false },
      },
      { actorUserId: parent.userId, reason: 'parent_revoked', targetType: null, targetId: null, details: { sessions: 1 } },
    ]);
  });

  it("answers 404 to another parent, for the child and for the child's session ids, and 400 for bad ids", async () => {
    const child = await signInChild('sessions-kid', '582917');
    const [session] = await listOwn(child);
    const stranger = await signInAdult('sessions-other-parent');
    for (const [method, pathname] of [
      ['GET', `/api/v1/children/${childId}/sessions`],
      ['DELETE', `/api/v1/children/${childId}/sessions`],
      ['DELETE', `/api/v1/children/${childId}/sessions/${String(session?.id)}`],
      ['DELETE', `/api/v1/me/sessions/${String(session?.id)}`],
    ] as const) {
      const answer = await call(method, pathname, stranger.token);
      expect(answer.status, `${method} ${pathname}`).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
    expect(await isLive(child)).toBe(true);
    expect((await call('GET', '/api/v1/children/not-a-uuid/sessions', parent.token)).status).toBe(400);
    expect((await call('DELETE', `/api/v1/children/${childId}/sessions/nope`, parent.token)).status).toBe(400);
    expect((await call('GET', `/api/v1/children/${parent.userId}/sessions`, parent.token)).status).toBe(404);
  });

  it("answers 404 for a deleted child's sessions", async () => {
    const created = await api.createChild(parent.token, { username: 'sessions-gone-kid', pin: '640273', scopes: [] });
    const goneId = String(created.body.id);
    expect((await call('DELETE', `/api/v1/children/${goneId}`, parent.token)).status).toBe(204);
    expect((await call('GET', `/api/v1/children/${goneId}/sessions`, parent.token)).status).toBe(404);
  });
});

describe('what the app wrote', () => {
  it('shows no token, no token half and no User-Agent in any answer of the session endpoints', () => {
    const bodies = JSON.stringify(answers.map((answer) => answer.body));
    expect(answers.length).toBeGreaterThan(40);
    for (const token of tokens) {
      expect(bodies).not.toContain(token);
      expect(bodies).not.toContain(rowIdOf(token));
      expect(bodies).not.toContain(token.split('.')[1]);
    }
    expect(canaries.findIn(bodies)).toEqual([]);
  });

  it('logs each revocation by reason and ids only, and holds no token, PIN, username or User-Agent in stdout or the audit log', () => {
    const revocations = host.lines.filter((line) => line.message === 'sessions revoked');
    expect(revocations.map((line) => line.reason).sort()).toEqual([
      'parent_revoked',
      'parent_revoked',
      'user_revoked',
      'user_revoked',
      'user_revoked',
      'user_revoked_all',
      'user_revoked_all',
      'user_revoked_all',
      'user_revoked_all',
    ]);
    const handled = host.lines.filter((line) => line.message === 'request handled' && String(line.endpoint).includes('/sessions'));
    expect(new Set(handled.map((line) => line.endpoint))).toEqual(
      new Set([
        'GET /api/v1/me/sessions',
        'DELETE /api/v1/me/sessions',
        'DELETE /api/v1/me/sessions/{id}',
        'GET /api/v1/children/{id}/sessions',
        'DELETE /api/v1/children/{id}/sessions',
        'DELETE /api/v1/children/{id}/sessions/{sessionId}',
      ]),
    );
    expect(host.invalidLines).toEqual([]);
    const stdout = host.stdout.join('\n');
    const audit = JSON.stringify(auditRows(databaseFile));
    expect(canaries.size).toBeGreaterThan(20);
    expect(canaries.findIn(stdout)).toEqual([]);
    expect(canaries.findIn(audit)).toEqual([]);
    for (const token of tokens) {
      expect(stdout).not.toContain(rowIdOf(token));
      expect(stdout).not.toContain(token.split('.')[1]);
    }
    for (const header of [IOS_APP, WINDOWS_BROWSER, ANDROID_APP]) {
      expect(stdout).not.toContain(header);
      expect(audit).not.toContain(header);
    }
  });
});
