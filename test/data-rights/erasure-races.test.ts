import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteChild } from '../../shared/family/update-child';
import type { AppServices } from '../../shared/composition-root';
import type { Database } from '../../shared/db/database';
import type { DatabaseProvider } from '../../shared/db/lazy-database';
import { changePreferences, registerDevice } from '../../shared/notifications/preferences/notification-settings';
import { eraseOwnAccount } from '../../shared/data-rights/erase-account';
import type { User } from '../../shared/users/user';
import { createFlowHarness, expectNoLeaks, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * Requests that race the erasure of their account, on another instance: each read the account
 * before the erasure committed and opens its transaction after it. Nothing of theirs may land on
 * the tombstone: no contact data, no session, no device, no preferences, no audit row naming it.
 * SQLite runs one transaction at a time, so the race is staged: the erasure runs (on the other
 * instance) when the racing request opens its first transaction.
 */

let h: FlowHarness;
let other: AppServices;
let counter = 0;

beforeAll(async () => {
  h = await createFlowHarness({ identityProvider: true });
  other = h.instance();
});

afterAll(async () => {
  expectNoLeaks(h, 8);
  await h?.close();
});

/** `provider`'s database, with `beforeTransaction` run (once) when the first transaction opens. */
async function racing(provider: DatabaseProvider, beforeTransaction: () => Promise<void>): Promise<DatabaseProvider> {
  const db = await provider.get();
  let raced = false;
  const wrapped: Database = {
    dialect: db.dialect,
    query: (sql, params) => db.query(sql, params),
    execute: (sql, params) => db.execute(sql, params),
    ping: () => db.ping(),
    close: () => db.close(),
    async transaction(work) {
      if (!raced) {
        raced = true;
        await beforeTransaction();
      }
      return db.transaction(work);
    },
  };
  return { ...provider, get: async () => wrapped };
}

const count = (sql: string, params: Record<string, string>): number => Number(h.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM (${sql})`, params)[0]?.n);

/** A new adult signed in through the identity provider, with a verified address. */
async function signedInAdult(): Promise<{ user: User; sub: string }> {
  counter += 1;
  const sub = `erasure-race-${counter}`;
  const first = await h.signInAdult(h.idToken(sub, { email: `race-${counter}@example.test` }));
  if (!first.ok) throw new Error('the first sign-in failed');
  return { user: first.user, sub };
}

describe('an adult sign-in that races the erasure of its account', () => {
  it.each([
    ['with a new address (a contact change)', true],
    ['with a token that says nothing about contact data', false],
  ])('%s writes nothing to the tombstone and signs in as a new account, as a sign-in after the erasure would', async (_, newAddress) => {
    const { user, sub } = await signedInAdult();
    const token = h.idToken(sub, newAddress ? { email: `race-new-${counter}@example.test` } : {});
    const database = await racing(h.services.corePorts.database, async () => {
      expect(await eraseOwnAccount(user, other.corePorts)).toEqual({ ok: true });
    });
    const result = await h.signInAdult(token, { ...h.services, corePorts: { ...h.services.corePorts, database } });

    expect(result).toMatchObject({ ok: true, created: true });
    if (!result.ok) return;
    expect(result.user.id).not.toBe(user.id);
    // The tombstone: no contact data back, no session.
    expect(h.rows('SELECT status, issuer, subject, email, phone FROM Users WHERE id = @id', { id: user.id })).toEqual([
      { status: 'erased', issuer: null, subject: null, email: null, phone: null },
    ]);
    expect(count('SELECT id FROM Sessions WHERE userId = @id', { id: user.id })).toBe(0);
    expect(count("SELECT id FROM AuditLog WHERE subjectUserId = @id AND eventType = 'authn_login_success'", { id: user.id })).toBe(1);
    // The new account holds the identity and the session.
    expect(count('SELECT id FROM Sessions WHERE userId = @id', { id: result.user.id })).toBe(1);
    expect((await h.authenticate(result.started.token)).ok).toBe(true);
  });

  it('signs in as before when nothing happened in between (the re-read under the lock passes)', async () => {
    const { user, sub } = await signedInAdult();
    const database = await racing(h.services.corePorts.database, async () => undefined);
    const result = await h.signInAdult(h.idToken(sub, { email: `race-moved-${counter}@example.test` }), {
      ...h.services,
      corePorts: { ...h.services.corePorts, database },
    });
    expect(result).toMatchObject({ ok: true, created: false, user: { id: user.id, email: `race-moved-${counter}@example.test` } });
    expect(h.rows('SELECT email FROM Users WHERE id = @id', { id: user.id })).toEqual([{ email: `race-moved-${counter}@example.test` }]);
  });
});

describe('a change of notification settings that races the erasure of its account', () => {
  it('registers no device and answers 401', async () => {
    const { user } = await signedInAdult();
    const database = await racing(h.services.corePorts.database, async () => {
      expect(await eraseOwnAccount(user, other.corePorts)).toEqual({ ok: true });
    });
    const device = `ExponentPushToken[erasure-race-device-${counter}]`;
    h.canaries.add(device);
    expect(await registerDevice(user, device, { ...h.services.corePorts, database })).toMatchObject({ kind: 'problem', code: 'unauthenticated' });
    expect(count('SELECT token FROM PushTokens WHERE userId = @id', { id: user.id })).toBe(0);
  });

  it('stores no preferences and answers 401', async () => {
    const { user } = await signedInAdult();
    const database = await racing(h.services.corePorts.database, async () => {
      expect(await eraseOwnAccount(user, other.corePorts)).toEqual({ ok: true });
    });
    expect(await changePreferences(user, { sms: false }, { ...h.services.corePorts, database })).toMatchObject({ kind: 'problem', code: 'unauthenticated' });
    expect(count('SELECT userId FROM NotificationPreferences WHERE userId = @id', { id: user.id })).toBe(0);
  });
});

describe("a child's device registration that races the child's erasure", () => {
  it('registers no device behind the tombstone and answers 401', async () => {
    const parent = await h.insertAdult();
    await h.createChild(parent, 'race.device-kid', '6150284');
    const signedIn = await h.signInChild('race.device-kid', '6150284');
    if (!signedIn.ok) throw new Error('the child could not sign in');
    const database = await racing(h.services.corePorts.database, async () => {
      expect(await deleteChild(parent, signedIn.user.id, other.childAccountPorts, { erase: true })).toEqual({ ok: true });
    });
    const device = 'ExponentPushToken[erasure-race-kid-device]';
    h.canaries.add(device);
    expect(await registerDevice(signedIn.user, device, { ...h.services.corePorts, database })).toMatchObject({ code: 'unauthenticated' });
    expect(count('SELECT token FROM PushTokens WHERE userId = @id', { id: signedIn.user.id })).toBe(0);
  });
});

describe("a child's failed sign-in that races the child's erasure", () => {
  it('writes no audit row about the erased child and locks nothing: the name is an unknown one now', async () => {
    const parent = await h.insertAdult();
    const child = await h.createChild(parent, 'race.erased-kid', '4058172');
    const mark = h.auditMark();
    const database = await racing(h.services.childAccountPorts.database, async () => {
      expect(await deleteChild(parent, child.id, other.childAccountPorts, { erase: true })).toEqual({ ok: true });
    });
    const result = await h.signInChild('race.erased-kid', '9999999', { services: { ...h.services, childAccountPorts: { ...h.services.childAccountPorts, database } } });
    expect(result).toMatchObject({ ok: false, problem: { code: 'invalid_credentials' } });
    const failures = h.auditAfter(mark).filter((row) => row.eventType === 'authn_login_fail');
    expect(failures.map((row) => [row.subjectUserId, row.reason])).toEqual([[null, 'user_not_found']]);
    expect(h.auditAfter(mark).filter((row) => row.subjectUserId === child.id).map((row) => row.eventType)).not.toContain('authn_login_fail');
  });
});
