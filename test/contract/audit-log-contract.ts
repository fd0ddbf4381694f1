import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidAuditEntryError } from '../../shared/audit/audit-entry';
import type { AuditEntry } from '../../shared/audit/audit-event';
import { listAuditEvents } from '../../shared/audit/audit-log-store';
import { writeAudit } from '../../shared/audit/write-audit';
import type { Database } from '../../shared/db/database';
import { migrateDatabase } from '../../shared/db/migrate';
import { runWithLogContext } from '../../shared/logging/log-context';
import { REDACTION_MARKER } from '../../shared/logging/scrub';
import { manualClock } from '../../shared/ports/clock';
import { sequentialRandom } from '../../shared/ports/random';
import type { TestDatabase, TestDatabaseFactory } from './test-databases';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

const logout: AuditEntry = {
  eventType: 'session_logout',
  outcome: 'success',
  actorUserId: 'user-1',
  subjectUserId: 'user-1',
  targetType: 'session',
  targetId: 'session-1',
  traceId: TRACE_ID,
  details: { durationSeconds: 3600, accountType: 'adult', remembered: false, note: null },
};

/**
 * Registers the contract suite of the audit log store (writer, reader and the table's own
 * append-only guard) for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory a fresh, empty database per test.
 */
export function describeAuditLogContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Audit log contract: ${name}`, () => {
    let handle: TestDatabase;
    let db: Database;
    const clock = manualClock('2025-01-02T03:04:05.678Z');
    let deps: { clock: typeof clock; random: ReturnType<typeof sequentialRandom> };

    beforeEach(async () => {
      handle = await factory();
      db = handle.db;
      await migrateDatabase(db);
      clock.set('2025-01-02T03:04:05.678Z');
      deps = { clock, random: sequentialRandom() };
    });
    afterEach(async () => {
      await handle.dispose();
    });

    const countRows = async () => (await db.query('SELECT id FROM AuditLog')).length;

    it('writes an audit row and reads it back as written', async () => {
      const written = await writeAudit(db, logout, deps);
      expect(written).toEqual({ id: '00000000-0000-4000-8000-000000000001', occurredAt: '2025-01-02T03:04:05.678Z' });
      expect(await listAuditEvents(db, { limit: 10 })).toEqual([
        {
          id: written.id,
          occurredAt: '2025-01-02T03:04:05.678Z',
          eventType: 'session_logout',
          outcome: 'success',
          actorUserId: 'user-1',
          subjectUserId: 'user-1',
          targetType: 'session',
          targetId: 'session-1',
          reason: null,
          traceId: TRACE_ID,
          details: { durationSeconds: 3600, accountType: 'adult', remembered: false, note: null },
        },
      ]);
    });

    it('refuses UPDATE of an audit row, at the database', async () => {
      const { id } = await writeAudit(db, logout, deps);
      await expect(db.execute('UPDATE AuditLog SET outcome = @outcome WHERE id = @id', { outcome: 'failure', id })).rejects.toThrow(
        /append-only/,
      );
      await expect(
        db.transaction((tx) => tx.execute('UPDATE AuditLog SET reason = @reason', { reason: 'idle' })),
      ).rejects.toThrow(/append-only/);
      const [event] = await listAuditEvents(db, { limit: 1 });
      expect(event).toMatchObject({ id, outcome: 'success', reason: null });
    });

    it('refuses DELETE of an audit row, at the database', async () => {
      await writeAudit(db, logout, deps);
      await expect(db.execute('DELETE FROM AuditLog WHERE eventType = @eventType', { eventType: 'session_logout' })).rejects.toThrow(
        /append-only/,
      );
      await expect(db.execute('DELETE FROM AuditLog')).rejects.toThrow(/append-only/);
      expect(await countRows()).toBe(1);
    });

    it('throws, writing nothing, for a details key that names a secret or personal data', async () => {
      for (const key of ['pinHash', 'idToken', 'userName', 'email', 'phone_number']) {
        await expect(writeAudit(db, { ...logout, details: { [key]: 'x' } }, deps)).rejects.toBeInstanceOf(InvalidAuditEntryError);
      }
      expect(await countRows()).toBe(0);
    });

    it('scrubs secrets out of details values', async () => {
      await writeAudit(db, { ...logout, details: { section: 'contact a.b@example.com or Bearer abc.def' } }, deps);
      const [event] = await listAuditEvents(db, { limit: 1 });
      expect(event?.details).toEqual({ section: `contact ${REDACTION_MARKER} or ${REDACTION_MARKER}` });
    });

    it('loses the audit row together with a transaction that rolls back', async () => {
      await expect(
        db.transaction(async (tx) => {
          await writeAudit(tx, logout, deps);
          expect((await tx.query('SELECT id FROM AuditLog')).length).toBe(1);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(await countRows()).toBe(0);
    });

    it('keeps the audit row of a transaction that commits', async () => {
      await db.transaction(async (tx) => {
        await writeAudit(tx, logout, deps);
      });
      expect(await countRows()).toBe(1);
    });

    it('lists the newest first, filtered by event type and subject, up to the limit', async () => {
      const failure: AuditEntry = { eventType: 'authn_login_fail', outcome: 'failure', reason: 'invalid_token', traceId: TRACE_ID };
      await writeAudit(db, failure, deps);
      clock.advance(1000);
      await writeAudit(db, logout, deps);
      clock.advance(1000);
      await writeAudit(db, { ...failure, reason: 'user_not_found', subjectUserId: 'user-2' }, deps);
      clock.advance(1000);
      await writeAudit(db, { ...failure, reason: 'pending_approval', subjectUserId: 'user-2' }, deps);

      const newestFailures = await listAuditEvents(db, { eventType: 'authn_login_fail', limit: 2 });
      expect(newestFailures.map((event) => event.reason)).toEqual(['pending_approval', 'user_not_found']);
      const aboutUser1 = await listAuditEvents(db, { subjectUserId: 'user-1', limit: 10 });
      expect(aboutUser1.map((event) => event.eventType)).toEqual(['session_logout']);
      const all = await listAuditEvents(db, { limit: 500 });
      expect(all.map((event) => event.occurredAt)).toEqual([
        '2025-01-02T03:04:08.678Z',
        '2025-01-02T03:04:07.678Z',
        '2025-01-02T03:04:06.678Z',
        '2025-01-02T03:04:05.678Z',
      ]);
    });

    it("takes the trace id of the running request chain when the entry has none", async () => {
      const { traceId: _omitted, ...withoutTrace } = logout;
      const chainTraceId = 'f'.repeat(32);
      await runWithLogContext({ traceId: chainTraceId, userId: 'user-1' }, () => writeAudit(db, withoutTrace, deps));
      const [event] = await listAuditEvents(db, { limit: 1 });
      expect(event?.traceId).toBe(chainTraceId);
    });
  });
}
