import { HttpRequest } from '@azure/functions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuthDeps } from '../../../shared/auth/auth-deps';
import { authenticateSession } from '../../../shared/auth/authenticate-session';
import { me } from '../../../functions/me';
import { httpHandlerOf } from '../../../shared/composition/app-functions';
import { updateChild } from '../../../shared/family/update-child';
import type { Database, SqlExecutor, TransactionExecutor } from '../../../shared/db/database';
import { createHttpPipeline } from '../../../shared/http/http-pipeline';
import type { User } from '../../../shared/users/user';
import { call, createFlowHarness, DAY, expectNoLeaks, HOUR, MINUTE, type FlowHarness } from './flow-harness';

/**
 * Round trips of the session check (one joined read of session, user and a child's scopes) and of
 * `GET /api/v1/me` (nothing more than that read), counted by a decorator around the real SQLite
 * database: adding a second read anywhere on these paths fails here.
 */

/** Every statement sent through the wrapped database, transactions' statements included, in order. */
interface CountingDatabase {
  db: Database;
  statements: string[];
}

function countingDatabase(inner: Database): CountingDatabase {
  const statements: string[] = [];
  const counted = (executor: SqlExecutor): SqlExecutor => ({
    query: (sql, params) => {
      statements.push(sql);
      return executor.query(sql, params);
    },
    execute: (sql, params) => {
      statements.push(sql);
      return executor.execute(sql, params);
    },
  });
  const db: Database = {
    ...counted(inner),
    dialect: inner.dialect,
    transaction: (work) =>
      inner.transaction((tx) => {
        const countedTx: TransactionExecutor = {
          ...counted(tx),
          lock: (resource, options) => {
            statements.push(`lock ${resource}`);
            return tx.lock(resource, options);
          },
          tryLock: (resource, options) => {
            statements.push(`lock ${resource}`);
            return tx.tryLock(resource, options);
          },
        };
        return work(countedTx);
      }),
    ping: () => {
      statements.push('ping');
      return inner.ping();
    },
    close: () => inner.close(),
  };
  return { db, statements };
}

const isRead = (sql: string): boolean => /^\s*(SELECT|WITH)\b/i.test(sql);

let h: FlowHarness;
let counting: CountingDatabase;
let auth: AuthDeps;
let parent: User;
let adultToken: string;

beforeAll(async () => {
  h = await createFlowHarness({ identityProvider: true });
  const signedIn = await h.signInAdult(
    h.idToken('canary-sub-round-trips', { email: 'rita.roundtrip@example.org', phone: '+15550107788' }),
  );
  if (!signedIn.ok) throw new Error('the adult could not sign in');
  parent = signedIn.user;
  adultToken = signedIn.started.token;
  counting = countingDatabase(await h.services.database.get());
  // The composition root's wiring (`authenticate: authenticateSession(…, auth)`), on the counted database.
  auth = { ...h.services.corePorts, database: { get: async () => counting.db, close: async () => undefined } };
});

beforeEach(() => {
  counting.statements.length = 0;
});

afterAll(async () => {
  await h?.close();
});

const pipeline = () => createHttpPipeline({ logger: h.services.logger, telemetry: h.telemetry, authenticate: (a) => authenticateSession(a, auth) });

/** The real `GET /api/v1/me` (functions/me.ts), on services whose pipeline and ports use the counted database. */
const meEndpoint = () => httpHandlerOf(me, { ...h.services, corePorts: auth, httpPipeline: pipeline() });

/** An authenticated endpoint that reads nothing itself: what remains is the session check. */
const plainEndpoint = () => pipeline()({ route: 'v1/plain', authenticated: true }, async () => ({ status: 204 }));

const get = (handler: ReturnType<typeof meEndpoint>, pathname: string, token?: string) =>
  call(
    handler,
    new HttpRequest({
      method: 'GET',
      url: `http://localhost:7071/api/${pathname}`,
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    }),
  );

describe('GET /api/v1/me', () => {
  it('answers an adult from one read, the body as the contract has it', async () => {
    const answer = await get(meEndpoint(), 'v1/me', adultToken);
    expect(answer.status).toBe(200);
    const [session] = h.rows<{ createdAt: string; absoluteExpiresAt: string }>(
      'SELECT createdAt, absoluteExpiresAt FROM Sessions WHERE userId = @id',
      { id: parent.id },
    );
    expect(answer.body).toEqual({
      id: parent.id,
      role: 'member',
      status: 'active',
      accountType: 'adult',
      createdAt: parent.createdAt,
      email: 'rita.roundtrip@example.org',
      phone: '+15550107788',
      session: { createdAt: session?.createdAt, expiresAt: session?.absoluteExpiresAt },
    });
    expect(Object.keys(answer.body ?? {})).toEqual(['id', 'role', 'status', 'accountType', 'createdAt', 'email', 'phone', 'session']);
    expect(counting.statements).toHaveLength(1);
    expect(isRead(counting.statements[0] ?? '')).toBe(true);
  });

  it('answers a child from one read, with its parent and its current scopes', async () => {
    const view = await h.createChild(parent, 'canary-kid-round-trips', '4718295', ['announcements', 'groups']);
    const signedIn = await h.signInChild('canary-kid-round-trips', '4718295');
    if (!signedIn.ok) throw new Error('child sign-in refused');
    const token = signedIn.started.token;
    const { session } = signedIn.started;
    counting.statements.length = 0;

    const answer = await get(meEndpoint(), 'v1/me', token);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: view.id,
      role: 'child',
      status: 'active',
      accountType: 'child',
      createdAt: view.createdAt,
      parentId: parent.id,
      scopes: ['announcements', 'groups'],
      session: { createdAt: session.createdAt, expiresAt: session.absoluteExpiresAt },
    });
    expect(Object.keys(answer.body ?? {})).toEqual(['id', 'role', 'status', 'accountType', 'createdAt', 'parentId', 'scopes', 'session']);
    expect(counting.statements).toHaveLength(1);

    // A parent's change shows at the very next request: the scopes are read with the session, not kept.
    expect((await updateChild(parent, view.id, { scopes: ['events'] }, h.services.childAccountPorts)).ok).toBe(true);
    counting.statements.length = 0;
    expect((await get(meEndpoint(), 'v1/me', token)).body).toMatchObject({ scopes: ['events'] });
    expect(counting.statements).toHaveLength(1);
  });
});

describe('the session check of any authenticated request', () => {
  it('is one read when the session is live and no touch is due', async () => {
    expect((await get(plainEndpoint(), 'v1/plain', adultToken)).status).toBe(204);
    expect(counting.statements).toHaveLength(1);
    expect(isRead(counting.statements[0] ?? '')).toBe(true);
  });

  it('refuses a token that is not one of ours without any statement, and an unknown or wrong one after the one read', async () => {
    expect((await get(plainEndpoint(), 'v1/plain')).status).toBe(401);
    expect((await get(plainEndpoint(), 'v1/plain', 'not-a-session-token')).status).toBe(401);
    expect(counting.statements).toEqual([]);
    const [id] = adultToken.split('.');
    const wrongSecret = `${id}.${'A'.repeat(43)}`;
    const unknownId = `${'B'.repeat(22)}.${adultToken.split('.')[1] ?? ''}`;
    h.canaries.add(wrongSecret);
    expect((await get(plainEndpoint(), 'v1/plain', wrongSecret)).status).toBe(401);
    expect((await get(plainEndpoint(), 'v1/plain', unknownId)).status).toBe(401);
    expect(counting.statements).toHaveLength(2);
    expect(counting.statements.every(isRead)).toBe(true);
  });

  it('adds the hourly lastUsedAt write and nothing else when a touch is due', async () => {
    const signedIn = await h.signInAdult(h.idToken('canary-sub-round-trips'));
    if (!signedIn.ok) throw new Error('the adult could not sign in');
    const token = signedIn.started.token;
    counting.statements.length = 0;
    h.clock.advance(HOUR);
    expect((await get(plainEndpoint(), 'v1/plain', token)).status).toBe(204);
    expect(counting.statements).toHaveLength(2);
    expect(counting.statements.filter(isRead)).toHaveLength(1);
    expect(counting.statements[1]).toMatch(/^UPDATE Sessions SET lastUsedAt/);
    counting.statements.length = 0;
    h.clock.advance(30 * MINUTE);
    expect((await get(plainEndpoint(), 'v1/plain', token)).status).toBe(204);
    expect(counting.statements).toHaveLength(1);
  });

  it('ends and audits an expired session after the one read, and refuses a disabled user on it', async () => {
    const signedIn = await h.signInAdult(h.idToken('canary-sub-round-trips'));
    if (!signedIn.ok) throw new Error('the adult could not sign in');
    counting.statements.length = 0;
    h.clock.advance(14 * DAY);
    const mark = h.auditMark();
    expect((await get(plainEndpoint(), 'v1/plain', signedIn.started.token)).status).toBe(401);
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.reason])).toEqual([['session_expired', 'idle']]);
    expect(counting.statements.filter(isRead)).toHaveLength(1);

    const again = await h.signInAdult(h.idToken('canary-sub-round-trips'));
    if (!again.ok) throw new Error('the adult could not sign in');
    const db = await h.services.database.get();
    await db.execute(`UPDATE Users SET status = 'disabled' WHERE id = @id`, { id: parent.id });
    counting.statements.length = 0;
    expect((await get(meEndpoint(), 'v1/me', again.started.token)).status).toBe(401);
    expect(counting.statements).toHaveLength(1);
    await db.execute(`UPDATE Users SET status = 'active' WHERE id = @id`, { id: parent.id });
  });
});

describe('leaks', () => {
  it('writes no token, JWT, e-mail, phone, PIN or username to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 10);
  });
});
