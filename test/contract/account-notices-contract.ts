import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit/audit-event';
import { writeAudit } from '../../shared/audit/write-audit';
import type { ChildAuthDeps } from '../../shared/auth/auth-deps';
import { checkUsername, type ChildUsername } from '../../shared/children/child-username';
import { createSecretHasher } from '../../shared/ports/secret-hasher';
import { signInChild } from '../../shared/auth/sign-in-child';
import { readChildActivity } from '../../shared/children/child-activity';
import { insertChildAccount, lockChild } from '../../shared/children/child-account-store';
import type { Database } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import { lazyDatabase } from '../../shared/db/lazy-database';
import { createShutdown, type Shutdown } from '../../shared/lifecycle/shutdown';
import { createLogger } from '../../shared/logging/logger';
import { findNoticeById, findOwedNotices, insertAccountNotice, markNoticeEnqueued, markNoticeOwed } from '../../shared/messages/account-notice-store';
import { claimDeliveries, finishDeliveries, releaseDelivery, renewDeliveryLeases } from '../../shared/notifications/ledger/delivery-ledger';
import { NOTICE_LEDGER } from '../../shared/notifications/ledger/leased-rows';
import { failPendingNoticeDeliveries, listNoticeDeliveries, resetPoisonedNoticeDeliveries } from '../../shared/notifications/ledger/notice-deliveries';
import { clearSendStart, markSendStarts, restartSendStart } from '../../shared/notifications/ledger/send-repeatability';
import { enqueueOwedNotices } from '../../shared/messages/account-notices';
import { inMemoryNoticeQueue } from '../../shared/messages/notice-queue';
import { pushTokensOfUser, registerPushToken } from '../../shared/users/push-tokens';
import { manualClock, type ManualClock } from '../../shared/ports/clock';
import { cryptoRandom } from '../../shared/ports/random';
import { DEFAULT_SESSION_POLICY } from '../../shared/sessions/session-policy';
import { createInMemoryTelemetry } from '../../shared/telemetry/in-memory';
import { insertUser } from '../../shared/users/user-store';
import { LogSink } from '../helpers/log-sink';
import { adultUser, childUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

/**
 * Account notices (`shared/notifications/jobs/handle-notice-message.ts`) and a child's activity on each engine: the
 * outbox rows and their catch-up, the per-channel ledger under the delivery engine's statements, the lock that makes exactly one
 * notice however many sign-ins see the tenth failure, and the activity's keyset pages.
 */

const T0 = '2031-06-01T10:00:00.000Z';
const PEPPER = 'contract-notice-pepper-0123456789abcdef';
const CHEAP_ARGON2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
const HASH = '$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA';

function username(raw: string): ChildUsername {
  const checked = checkUsername(raw);
  if (!checked.ok) throw new Error(`not a username: ${checked.rule}`);
  return checked.username;
}

async function seedFamily(db: Database, n: number, secretHash = HASH, name = `kid${n}`): Promise<{ parentId: string; childId: string }> {
  const parent = adultUser(n, { email: `parent.${n}@example.test` });
  await insertUser(db, parent);
  const child = childUser(n + 1, parent.id);
  await db.transaction((tx) => insertChildAccount(tx, { user: child, username: username(name), secretHash, secretKind: 'pin', scopes: [] }));
  return { parentId: parent.id, childId: child.id };
}

function depsFor(
  db: Database,
  clock: ManualClock,
): ChildAuthDeps & { noticeQueue: ReturnType<typeof inMemoryNoticeQueue>; shutdown: Shutdown } {
  return {
    database: lazyDatabase(async () => db),
    clock,
    random: cryptoRandom,
    telemetry: createInMemoryTelemetry(),
    logger: createLogger({ service: 'api', level: 'info', destination: new LogSink() }),
    sessionPolicy: DEFAULT_SESSION_POLICY,
    hasher: createSecretHasher({ pepper: PEPPER, params: CHEAP_ARGON2 }),
    pepper: PEPPER,
    noticeQueue: inMemoryNoticeQueue(),
    // The sign-in answers without waiting for the notice's enqueue; the tests wait for it here.
    shutdown: createShutdown({ graceMs: 30_000 }),
  };
}

/**
 * Registers the contract suite of account notices and child activity for one engine.
 * @param name the engine, shown in the suite's title.
 */
export function describeAccountNoticesContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Account notices contract: ${name}`, () => {
    let second: Database | undefined;
    const database = migratedDatabasePerSuite(async () => {
      const handle = await factory();
      second = handle.reopen?.();
      return {
        ...handle,
        async dispose() {
          await second?.close();
          await handle.dispose();
        },
      };
    });

    it('records a notice, lists it as owed until it is marked enqueued, and refuses a second notice of one lock', async () => {
      const db = database();
      const { parentId, childId } = await seedFamily(db, 1);
      const notice = { id: numberedId(90, 'a'), kind: 'child_locked' as const, recipientUserId: parentId, subjectUserId: childId, eventAt: T0, createdAt: T0 };
      await db.transaction((tx) => insertAccountNotice(tx, notice));
      expect(await findNoticeById(db, notice.id)).toEqual({ ...notice, enqueuedAt: null });
      expect(await findNoticeById(db, numberedId(91, 'a'))).toBeUndefined();
      expect(await findOwedNotices(db, isoAfter(T0, -1), 10)).toEqual([]);
      expect(await findOwedNotices(db, T0, 10)).toEqual([{ id: notice.id, kind: 'child_locked' }]);
      await expect(insertAccountNotice(db, { ...notice, id: numberedId(92, 'a') })).rejects.toBeInstanceOf(UniqueViolationError);
      await markNoticeEnqueued(db, notice.id, isoAfter(T0, 5));
      await markNoticeEnqueued(db, notice.id, isoAfter(T0, 9));
      expect((await findNoticeById(db, notice.id))?.enqueuedAt).toBe(isoAfter(T0, 5));
      expect(await findOwedNotices(db, isoAfter(T0, 60_000), 10)).toEqual([]);
    });

    it("runs the delivery engine's statements on the notices' ledger: claims, results, releases, leases, send starts", async () => {
      const db = database();
      const { parentId, childId } = await seedFamily(db, 3);
      const noticeId = numberedId(93, 'a');
      await insertAccountNotice(db, { id: noticeId, kind: 'child_locked', recipientUserId: parentId, subjectUserId: childId, eventAt: T0, createdAt: T0 });
      const push = { announcementId: noticeId, userId: parentId, channel: 'push' as const };
      const email = { announcementId: noticeId, userId: parentId, channel: 'email' as const };
      const lease = isoAfter(T0, 60_000);
      expect(await claimDeliveries(db, [push, { ...email, plannedMessageId: 'op-1' }], T0, lease, NOTICE_LEDGER)).toEqual(['claimed', 'claimed']);
      expect(await claimDeliveries(db, [push], isoAfter(T0, 1000), lease, NOTICE_LEDGER)).toEqual(['busy']);
      // A long delivery renews its own leases (the rows of its recipient under the lease it set: both
      // channels here); a crashed one's row comes free when the lease ends.
      const longer = isoAfter(lease, 20_000);
      expect(await renewDeliveryLeases(db, db.dialect, noticeId, [push], lease, longer, isoAfter(T0, 20_000), NOTICE_LEDGER)).toBe(2);
      expect(await claimDeliveries(db, [push], longer, isoAfter(longer, 60_000), NOTICE_LEDGER)).toEqual(['claimed']);
      const written = await finishDeliveries(db, db.dialect, noticeId, 'push', [{ userId: parentId, result: 'success', providerMessageId: 'ticket-1' }], isoAfter(longer, 5), NOTICE_LEDGER);
      expect(written).toBe(1);
      // A result is never replaced.
      expect(await finishDeliveries(db, db.dialect, noticeId, 'push', [{ userId: parentId, result: 'provider_error' }], isoAfter(longer, 6), NOTICE_LEDGER)).toBe(0);
      expect(await claimDeliveries(db, [push], isoAfter(longer, 10), isoAfter(longer, 70_000), NOTICE_LEDGER)).toEqual(['done']);

      // The e-mail's first send is marked before it goes, kept on a resend, forgotten when the provider refused it.
      const sentAt = isoAfter(T0, 5);
      expect(await markSendStarts(db, db.dialect, noticeId, [email], sentAt, NOTICE_LEDGER)).toEqual(new Map([[`${parentId}/email`, sentAt]]));
      expect(await markSendStarts(db, db.dialect, noticeId, [email], isoAfter(T0, 8), NOTICE_LEDGER)).toEqual(new Map([[`${parentId}/email`, sentAt]]));
      await releaseDelivery(db, email, isoAfter(T0, 10), 'http_503', NOTICE_LEDGER);
      expect(await claimDeliveries(db, [{ ...email, plannedMessageId: 'op-2' }], isoAfter(T0, 20), lease, NOTICE_LEDGER)).toEqual(['claimed']);
      expect(await listNoticeDeliveries(db, noticeId)).toEqual([
        // Claimed twice; the provider id planned at the first claim stays.
        { noticeId, userId: parentId, channel: 'email', result: 'pending', attempts: 2, providerCode: 'http_503', providerMessageId: 'op-1', claimedUntil: lease, firstSentAt: sentAt },
        { noticeId, userId: parentId, channel: 'push', result: 'success', attempts: 2, providerCode: null, providerMessageId: 'ticket-1', claimedUntil: null, firstSentAt: null },
      ]);
      await clearSendStart(db, email, NOTICE_LEDGER);
      expect((await listNoticeDeliveries(db, noticeId))[0]?.firstSentAt).toBeNull();
      await restartSendStart(db, email, isoAfter(T0, 30), NOTICE_LEDGER);
      expect((await listNoticeDeliveries(db, noticeId))[0]?.firstSentAt).toBe(isoAfter(T0, 30));
      // The last try: a row under a live lease is left to its holder; once the lease ran out it is failed.
      expect(await failPendingNoticeDeliveries(db, noticeId, 'poisoned', isoAfter(T0, 30))).toBe(0);
      expect(await failPendingNoticeDeliveries(db, noticeId, 'poisoned', lease)).toBe(1);
      expect(await finishDeliveries(db, db.dialect, noticeId, 'email', [{ userId: parentId, result: 'accepted' }], isoAfter(lease, 1), NOTICE_LEDGER)).toBe(0);
      expect((await listNoticeDeliveries(db, noticeId)).map((row) => [row.channel, row.result, row.providerCode])).toEqual([
        ['email', 'failed', 'poisoned'],
        ['push', 'success', null],
      ]);
      // A re-drive: only the poisoned row is pending again, with no lease, and claimed at once.
      expect(await resetPoisonedNoticeDeliveries(db, noticeId, 'poisoned', isoAfter(lease, 2))).toBe(1);
      expect(await resetPoisonedNoticeDeliveries(db, noticeId, 'poisoned', isoAfter(lease, 3))).toBe(0);
      expect((await listNoticeDeliveries(db, noticeId)).map((row) => [row.channel, row.result, row.providerCode, row.claimedUntil])).toEqual([
        ['email', 'pending', null, null],
        ['push', 'success', null, null],
      ]);
      expect(await claimDeliveries(db, [email], isoAfter(lease, 4), isoAfter(lease, 60_000), NOTICE_LEDGER)).toEqual(['claimed']);
      // The announcements' ledger is another table: the notice's rows are not in it.
      expect(await db.query('SELECT userId FROM NotificationDeliveries WHERE announcementId = @noticeId', { noticeId })).toEqual([]);
    });

    it('makes a notice owed again after its message gave out, so the catch-up finds it', async () => {
      const db = database();
      const { parentId, childId } = await seedFamily(db, 12);
      const noticeId = numberedId(95, 'a');
      await insertAccountNotice(db, { id: noticeId, kind: 'child_locked', recipientUserId: parentId, subjectUserId: childId, eventAt: T0, createdAt: T0 });
      await markNoticeEnqueued(db, noticeId, T0);
      expect(await findOwedNotices(db, isoAfter(T0, 60_000), 10)).toEqual([]);
      expect(await markNoticeOwed(db, noticeId)).toBe(1);
      expect(await markNoticeOwed(db, numberedId(96, 'a'))).toBe(0);
      expect((await findNoticeById(db, noticeId))?.enqueuedAt).toBeNull();
      expect(await findOwedNotices(db, isoAfter(T0, 60_000), 10)).toEqual([{ id: noticeId, kind: 'child_locked' }]);
    });

    it("reads a user's devices, most recently registered first", async () => {
      const db = database();
      const { parentId } = await seedFamily(db, 5);
      await db.transaction((tx) => registerPushToken(tx, parentId, 'ExponentPushToken[older]', T0));
      await db.transaction((tx) => registerPushToken(tx, parentId, 'ExponentPushToken[newer]', isoAfter(T0, 1000)));
      expect(await pushTokensOfUser(db, parentId)).toEqual(['ExponentPushToken[newer]', 'ExponentPushToken[older]']);
      expect(await pushTokensOfUser(db, numberedId(99))).toEqual([]);
    });

    it('makes one lock, one audit row and one notice of the tenth failure, however many sign-ins settle it', async () => {
      const db = database();
      const clock = manualClock(T0);
      const deps = depsFor(db, clock);
      const { parentId, childId } = await seedFamily(db, 7, await deps.hasher.hash('5072841'), 'lock.race');
      const wrong = (n: number, on: ChildAuthDeps = deps) =>
        signInChild({ username: 'lock.race', secret: String(6_400_000 + n), clientAddress: `203.0.113.${n}` }, on);
      for (let n = 0; n < 9; n += 1) {
        expect(await wrong(n)).toMatchObject({ ok: false, problem: { code: 'invalid_credentials' } });
        clock.advance(16 * 60 * 1000);
      }
      const other = second ? { ...depsFor(second, clock), noticeQueue: deps.noticeQueue } : deps;
      const results = await Promise.all([wrong(20), wrong(21, other), wrong(22)]);
      expect(results.every((result) => !result.ok)).toBe(true);
      expect(await deps.shutdown.drained(5000)).toBe(true);
      if (other !== deps) expect(await other.shutdown.drained(5000)).toBe(true);
      const locks = await db.query<{ n: number }>("SELECT COUNT(*) AS n FROM AuditLog WHERE subjectUserId = @childId AND eventType = 'authn_login_lock'", { childId });
      expect(Number(locks[0]?.n)).toBe(1);
      const notices = await db.query<{ id: string; recipientUserId: string }>('SELECT id, recipientUserId FROM AccountNotices WHERE subjectUserId = @childId', { childId });
      expect(notices).toEqual([{ id: expect.any(String), recipientUserId: parentId }]);
      expect(deps.noticeQueue.messages).toEqual([{ notice: { id: notices[0]?.id, kind: 'child_locked' } }]);
      expect((await findNoticeById(db, String(notices[0]?.id)))?.enqueuedAt).not.toBeNull();
      // Locking an account already locked changes nothing and says so.
      expect(await lockChild(db, childId, clock.now().toISOString())).toBe(false);
    });

    it('keeps a notice owed when the queue is down, and the catch-up sends it after a minute', async () => {
      const db = database();
      const clock = manualClock(T0);
      const deps = depsFor(db, clock);
      const { parentId, childId } = await seedFamily(db, 8);
      const noticeId = numberedId(94, 'a');
      await insertAccountNotice(db, { id: noticeId, kind: 'child_locked', recipientUserId: parentId, subjectUserId: childId, eventAt: T0, createdAt: T0 });
      expect(await enqueueOwedNotices(deps)).toBe(0);
      clock.advance(61_000);
      expect(await enqueueOwedNotices(deps)).toBe(1);
      expect(deps.noticeQueue.messages).toEqual([{ notice: { id: noticeId, kind: 'child_locked' } }]);
      expect(await enqueueOwedNotices(deps)).toBe(0);
    });

    it("pages a child's sign-ins, failures, locks and refusals newest first, and nothing else", async () => {
      const db = database();
      const clock = manualClock(T0);
      const { parentId, childId } = await seedFamily(db, 10);
      const audit = async (entry: AuditEntry) => {
        await writeAudit(db, entry, { clock, random: cryptoRandom });
        clock.advance(1000);
      };
      await audit({ eventType: 'authn_login_success', outcome: 'success', actorUserId: childId, subjectUserId: childId, targetType: 'session', targetId: 'session-row' });
      await audit({ eventType: 'child_updated', outcome: 'success', actorUserId: parentId, subjectUserId: childId });
      await audit({ eventType: 'authn_login_fail', outcome: 'failure', subjectUserId: childId, reason: 'bad_credentials' });
      await audit({ eventType: 'authn_login_fail', outcome: 'failure', subjectUserId: parentId, reason: 'invalid_token' });
      await audit({ eventType: 'authn_login_lock', outcome: 'success', subjectUserId: childId });
      await audit({ eventType: 'authz_fail', outcome: 'failure', actorUserId: childId, subjectUserId: childId, targetType: 'section', targetId: 'media' });
      // Three rows in one millisecond: the id orders them, and paging splits them without a loss.
      clock.advance(-1000);
      await audit({ eventType: 'authn_login_fail', outcome: 'failure', subjectUserId: childId, reason: 'throttled' });
      clock.advance(-1000);
      await audit({ eventType: 'authn_login_fail', outcome: 'failure', subjectUserId: childId, reason: 'locked' });

      const all = await readChildActivity(db, childId, { limit: 100 });
      expect(all.next).toBeNull();
      const described = all.items.map((item) => `${item.outcome}:${item.reason}`);
      expect(described.slice(0, 3).sort()).toEqual(['section_refused:media', 'sign_in_failed:locked', 'sign_in_failed:throttled']);
      expect(described.slice(3)).toEqual(['locked:too_many_failures', 'sign_in_failed:bad_credentials', 'signed_in:null']);
      expect(all.items.slice(0, 3).every((item) => item.time === isoAfter(T0, 5000))).toBe(true);
      expect(Object.keys(all.items[0] ?? {}).sort()).toEqual(['outcome', 'reason', 'time']);
      const pages: string[][] = [];
      let after: { createdAt: string; id: string } | undefined;
      do {
        const page = await readChildActivity(db, childId, { limit: 1, ...(after ? { after } : {}) });
        pages.push(page.items.map((item) => `${item.time} ${item.outcome} ${item.reason}`));
        after = page.next ?? undefined;
      } while (after);
      expect(pages.flat()).toEqual(all.items.map((item) => `${item.time} ${item.outcome} ${item.reason}`));
      expect(pages).toHaveLength(6);
      expect((await readChildActivity(db, numberedId(99), { limit: 10 })).items).toEqual([]);
    });
  });
}
