import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildManagementDeps } from '../../shared/family/create-child';
import { deleteChild, updateChild, type ChildPatch } from '../../shared/family/update-child';
import type { Database } from '../../shared/db/database';
import type { AppServices } from '../../shared/composition-root';
import type { User } from '../../shared/users/user';
import { createFlowHarness, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * A PATCH of a child that races a DELETE on another instance: the PATCH read the child before the
 * DELETE committed, and takes the username's lock after it. Under the lock it reads the child
 * again and finds it deleted (or, erased, gone): 404, and nothing is written, least of all a new
 * consent for a child whose consent was just withdrawn.
 */

let h: FlowHarness;
let parent: User;
let other: AppServices;
let counter = 0;

beforeAll(async () => {
  h = await createFlowHarness();
  parent = await h.insertAdult();
  other = h.instance();
});

afterAll(async () => {
  // The usernames and PINs (canaries) reach no log line or audit row.
  expect(h.leaks()).toEqual({ log: [], audit: [], telemetry: [] });
  await h?.close();
});

/**
 * The harness's child-management ports, with `beforeTransaction` run (once) when the PATCH opens
 * its transaction: after its first read of the child, before the lock.
 */
async function racing(beforeTransaction: () => Promise<void>): Promise<ChildManagementDeps> {
  const deps = h.services.childAccountPorts;
  const db = await deps.database.get();
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
  return { ...deps, database: { ...deps.database, get: async () => wrapped } };
}

const count = (sql: string, params: Record<string, string>): number => Number(h.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM (${sql})`, params)[0]?.n);

describe('a PATCH that races a DELETE of the same child', () => {
  it.each([
    ['deleted', { erase: false }],
    ['erased', { erase: true }],
  ] as const)('answers 404 and records no consent when the child was %s in between', async (_, options) => {
    counter += 1;
    const child = await h.createChild(parent, `race.kid${counter}`, '5093172', ['announcements']);
    const consentsBefore = count('SELECT id FROM ChildConsents WHERE childUserId = @id', { id: child.id });
    const mark = h.auditMark();
    const deps = await racing(async () => {
      expect(await deleteChild(parent, child.id, other.childAccountPorts, options)).toEqual({ ok: true });
    });
    const patch: ChildPatch = { scopes: ['announcements', 'events'], status: 'active' };
    const result = await updateChild(parent, child.id, patch, deps);
    expect(result).toMatchObject({ ok: false, problem: { code: 'not_found' } });
    // Only the DELETE's rows: no `child_updated` of the PATCH, no `consent_given`.
    const events = h.auditAfter(mark).map((row) => row.eventType);
    expect(events).not.toContain('consent_given');
    expect(events.filter((event) => event === 'child_updated')).toHaveLength(1);
    expect(count('SELECT id FROM ChildConsents WHERE childUserId = @id', { id: child.id })).toBe(consentsBefore);
    const inForce = count('SELECT id FROM ChildConsents WHERE childUserId = @id AND replacedAt IS NULL AND withdrawnAt IS NULL', { id: child.id });
    expect(inForce).toBe(options.erase ? 0 : 1);
    // Deleted: the account keeps its old sections; erased: there is no account left.
    expect(h.rows<{ scopes: string }>('SELECT scopes FROM ChildAccounts WHERE userId = @id', { id: child.id })).toEqual(
      options.erase ? [] : [{ scopes: expect.not.stringContaining('events') }],
    );
  });

  it('still changes a child that was not deleted meanwhile', async () => {
    counter += 1;
    const child = await h.createChild(parent, `race.kid${counter}`, '5093172', ['announcements']);
    const deps = await racing(async () => undefined);
    const result = await updateChild(parent, child.id, { scopes: ['announcements', 'events'] }, deps);
    expect(result).toMatchObject({ ok: true, child: { scopes: ['announcements', 'events'] } });
  });
});
