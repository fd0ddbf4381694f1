import { describe, expect, it } from 'vitest';
import type { Announcement } from '../../shared/announcements/announcement';
import {
  claimFanout,
  findAnnouncementById,
  findOwedFanouts,
  insertAnnouncement,
  listAnnouncements,
  markFanoutEnqueued,
  markPublished,
  markReviewed,
  markSubmitted,
  readApprovalQueue,
  releaseFanoutClaim,
  updateAnnouncementContent,
} from '../../shared/announcements/announcement-store';
import type { Database } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, isoAfter, migratedDatabasePerSuite, numberedId } from './store-fixtures';
import type { TestDatabaseFactory } from './test-databases';

const T0 = '2025-07-01T08:00:00.000Z';
const AUTHOR = numberedId(1);
const OTHER_AUTHOR = numberedId(2);
const ADMIN = numberedId(3);

const announcementId = (n: number): string => numberedId(n, 'a');

function draft(n: number, overrides: Partial<Announcement> = {}): Announcement {
  return {
    id: announcementId(n),
    authorId: AUTHOR,
    title: `Announcement ${n}`,
    body: 'Body text',
    channels: ['push'],
    status: 'draft',
    rejectionReason: null,
    createdAt: T0,
    updatedAt: T0,
    submittedAt: null,
    reviewedAt: null,
    reviewedBy: null,
    publishedAt: null,
    publishedBy: null,
    fanoutEnqueuedAt: null,
    ...overrides,
  };
}

/**
 * Registers the contract suite of the announcements store (`shared/announcements/announcement-store.ts`)
 * for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory the suite's database.
 */
export function describeAnnouncementsContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Announcements store contract: ${name}`, () => {
    const database = migratedDatabasePerSuite(factory);

    const seedUsers = async (db: Database) => {
      await insertUser(db, adultUser(1, { role: 'author' }));
      await insertUser(db, adultUser(2, { role: 'author' }));
      await insertUser(db, adultUser(3, { role: 'admin' }));
    };

    it('reads an announcement back exactly as inserted, long unicode body and every field included', async () => {
      const db = database();
      await seedUsers(db);
      const full = draft(1, {
        title: "Fête d'été 🎉 — N'oubliez pas; -- @title",
        body: 'Ünïcødé 😀 '.repeat(900).slice(0, 10_000),
        channels: ['email', 'push', 'sms'],
        status: 'published',
        rejectionReason: null,
        updatedAt: isoAfter(T0, 5),
        submittedAt: isoAfter(T0, 1),
        reviewedAt: isoAfter(T0, 2),
        reviewedBy: ADMIN,
        publishedAt: isoAfter(T0, 3),
        publishedBy: ADMIN,
        fanoutEnqueuedAt: isoAfter(T0, 4),
      });
      await insertAnnouncement(db, full);
      await insertAnnouncement(db, draft(2, { channels: [] }));
      expect(await findAnnouncementById(db, full.id)).toEqual(full);
      expect(await findAnnouncementById(db, announcementId(2))).toEqual(draft(2, { channels: [] }));
      expect(await findAnnouncementById(db, announcementId(99))).toBeUndefined();
      await expect(insertAnnouncement(db, draft(1))).rejects.toBeInstanceOf(UniqueViolationError);
    });

    it('edits only the given content, and only in the expected status', async () => {
      const db = database();
      await seedUsers(db);
      const original = draft(1, { channels: ['push', 'email'] });
      await insertAnnouncement(db, original);
      const edited = isoAfter(T0, 1000);
      expect(await updateAnnouncementContent(db, original.id, 'draft', { title: 'New title' }, edited)).toBe(true);
      expect(await findAnnouncementById(db, original.id)).toEqual({ ...original, title: 'New title', updatedAt: edited });
      expect(await updateAnnouncementContent(db, original.id, 'draft', { body: 'New body', channels: ['sms'] }, edited)).toBe(true);
      const after = { ...original, title: 'New title', body: 'New body', channels: ['sms'], updatedAt: edited };
      expect(await findAnnouncementById(db, original.id)).toEqual(after);
      expect(await updateAnnouncementContent(db, original.id, 'rejected', { title: 'Too late' }, isoAfter(edited, 1))).toBe(false);
      expect(await findAnnouncementById(db, original.id)).toEqual(after);
    });

    it('walks the workflow: each step only from its status, recording who and when', async () => {
      const db = database();
      await seedUsers(db);
      const original = draft(1);
      await insertAnnouncement(db, original);
      const [submitted, rejected, resubmitted, approved, published] = [1, 2, 3, 4, 5].map((s) => isoAfter(T0, s * 60_000));

      expect(await markSubmitted(db, original.id, 'rejected', submitted as string)).toBe(false);
      expect(await markSubmitted(db, original.id, 'draft', submitted as string)).toBe(true);
      expect(await markPublished(db, original.id, ADMIN, submitted as string)).toBe(false);
      const reason = 'Bitte Datum prüfen — "Samstag"?';
      expect(await markReviewed(db, original.id, { status: 'rejected', reviewerId: ADMIN, rejectionReason: reason }, rejected as string)).toBe(true);
      expect(await findAnnouncementById(db, original.id)).toEqual({
        ...original,
        status: 'rejected',
        rejectionReason: reason,
        submittedAt: submitted,
        reviewedAt: rejected,
        reviewedBy: ADMIN,
        updatedAt: rejected,
      });
      expect(await markReviewed(db, original.id, { status: 'approved', reviewerId: ADMIN, rejectionReason: null }, rejected as string)).toBe(false);

      expect(await markSubmitted(db, original.id, 'rejected', resubmitted as string)).toBe(true);
      expect(await findAnnouncementById(db, original.id)).toMatchObject({ status: 'queued', rejectionReason: null, submittedAt: resubmitted });
      expect(await markReviewed(db, original.id, { status: 'approved', reviewerId: ADMIN, rejectionReason: null }, approved as string)).toBe(true);
      expect(await markPublished(db, original.id, ADMIN, published as string)).toBe(true);
      expect(await markPublished(db, original.id, ADMIN, isoAfter(published as string, 1))).toBe(false);
      expect(await findAnnouncementById(db, original.id)).toEqual({
        ...original,
        status: 'published',
        submittedAt: resubmitted,
        reviewedAt: approved,
        reviewedBy: ADMIN,
        publishedAt: published,
        publishedBy: ADMIN,
        updatedAt: published,
      });
    });

    it('gives exactly one of two racing reviews the announcement', async () => {
      const db = database();
      await seedUsers(db);
      await insertAnnouncement(db, draft(1, { status: 'queued', submittedAt: T0 }));
      const results = await Promise.all([
        db.transaction((tx) => markReviewed(tx, announcementId(1), { status: 'approved', reviewerId: ADMIN, rejectionReason: null }, T0)),
        db.transaction((tx) => markReviewed(tx, announcementId(1), { status: 'rejected', reviewerId: ADMIN, rejectionReason: 'no' }, T0)),
      ]);
      expect([...results].sort()).toEqual([false, true]);
      expect((await findAnnouncementById(db, announcementId(1)))?.status).toBe(results[0] ? 'approved' : 'rejected');
    });

    it('marks the fan-out enqueued once, and only for a published announcement', async () => {
      const db = database();
      await seedUsers(db);
      await insertAnnouncement(db, draft(1, { status: 'published', publishedAt: T0, publishedBy: ADMIN }));
      await insertAnnouncement(db, draft(2, { status: 'approved' }));
      const first = isoAfter(T0, 10);
      await markFanoutEnqueued(db, announcementId(1), first);
      await markFanoutEnqueued(db, announcementId(1), isoAfter(T0, 20));
      await markFanoutEnqueued(db, announcementId(2), first);
      expect((await findAnnouncementById(db, announcementId(1)))?.fanoutEnqueuedAt).toBe(first);
      expect((await findAnnouncementById(db, announcementId(2)))?.fanoutEnqueuedAt).toBeNull();
    });

    it('claims an owed fan-out for one caller at a time: publishing takes it, a release or a lease gives it back', async () => {
      const db = database();
      await seedUsers(db);
      await insertAnnouncement(db, draft(1, { status: 'approved' }));
      const published = isoAfter(T0, 10);
      const staleBefore = (now: string) => isoAfter(now, -60_000);
      expect(await db.transaction((tx) => markPublished(tx, announcementId(1), ADMIN, published))).toBe(true);
      // The publish step holds the claim: nobody else may enqueue while it does.
      const retry = isoAfter(T0, 20);
      expect(await claimFanout(db, announcementId(1), retry, staleBefore(retry))).toBe(false);
      // Released by another claim's time: still held.
      await releaseFanoutClaim(db, announcementId(1), retry);
      expect(await claimFanout(db, announcementId(1), retry, staleBefore(retry))).toBe(false);
      await releaseFanoutClaim(db, announcementId(1), published);
      const results = await Promise.all([
        claimFanout(db, announcementId(1), retry, staleBefore(retry)),
        claimFanout(db, announcementId(1), retry, staleBefore(retry)),
      ]);
      expect([...results].sort()).toEqual([false, true]);
      // A holder that never released: its claim is taken over once older than the lease.
      const later = isoAfter(retry, 59_999);
      expect(await claimFanout(db, announcementId(1), later, staleBefore(later))).toBe(false);
      const afterLease = isoAfter(retry, 60_001);
      expect(await claimFanout(db, announcementId(1), afterLease, staleBefore(afterLease))).toBe(true);
      // Once enqueued, nobody claims it again, even after a release.
      await markFanoutEnqueued(db, announcementId(1), afterLease);
      await releaseFanoutClaim(db, announcementId(1), afterLease);
      const muchLater = isoAfter(afterLease, 3_600_000);
      expect(await claimFanout(db, announcementId(1), muchLater, staleBefore(muchLater))).toBe(false);
      // Only a published announcement can be claimed.
      await insertAnnouncement(db, draft(2, { status: 'approved' }));
      expect(await claimFanout(db, announcementId(2), retry, staleBefore(retry))).toBe(false);
    });

    it('lists newest first with ties broken by id, filtered by visibility and status, a cursor per page', async () => {
      const db = database();
      await seedUsers(db);
      const rows = [
        draft(1, { status: 'published', createdAt: isoAfter(T0, 1000) }),
        draft(2, { status: 'draft', createdAt: isoAfter(T0, 2000) }),
        draft(3, { status: 'published', authorId: OTHER_AUTHOR, createdAt: isoAfter(T0, 2000) }),
        draft(4, { status: 'queued', authorId: OTHER_AUTHOR, createdAt: isoAfter(T0, 3000) }),
        draft(5, { status: 'published', createdAt: T0 }),
      ];
      for (const row of rows) await insertAnnouncement(db, row);
      const ids = (items: readonly Announcement[]) => items.map((item) => Number.parseInt(item.id.slice(-4), 16));

      const first = await listAnnouncements(db, { visibility: { kind: 'all' }, limit: 2 });
      expect(first.items).toEqual([rows[3], rows[2]]);
      expect(first.next).toEqual({ createdAt: isoAfter(T0, 2000), id: announcementId(3) });
      const second = await listAnnouncements(db, { visibility: { kind: 'all' }, limit: 2, after: first.next ?? undefined });
      expect(ids(second.items)).toEqual([2, 1]);
      const third = await listAnnouncements(db, { visibility: { kind: 'all' }, limit: 2, after: second.next ?? undefined });
      expect(third).toEqual({ items: [rows[4]], next: null });

      expect(ids((await listAnnouncements(db, { visibility: { kind: 'published' }, limit: 10 })).items)).toEqual([3, 1, 5]);
      const own = await listAnnouncements(db, { visibility: { kind: 'publishedOrOwn', authorId: AUTHOR }, limit: 10 });
      expect(ids(own.items)).toEqual([3, 2, 1, 5]);
      const otherOwn = await listAnnouncements(db, { visibility: { kind: 'publishedOrOwn', authorId: OTHER_AUTHOR }, limit: 10 });
      expect(ids(otherOwn.items)).toEqual([4, 3, 1, 5]);
      expect(ids((await listAnnouncements(db, { visibility: { kind: 'all' }, status: 'queued', limit: 10 })).items)).toEqual([4]);
      expect(await listAnnouncements(db, { visibility: { kind: 'published' }, status: 'draft', limit: 10 })).toEqual({ items: [], next: null });
    });

    it('reads the approval queue: depth, the oldest submission and its id', async () => {
      const db = database();
      await seedUsers(db);
      expect(await readApprovalQueue(db)).toEqual({ depth: 0, oldestSubmittedAt: null, oldestId: null });
      const oldest = isoAfter(T0, 1500);
      await insertAnnouncement(db, draft(3, { status: 'queued', submittedAt: isoAfter(T0, 9000) }));
      await insertAnnouncement(db, draft(2, { status: 'queued', submittedAt: oldest }));
      await insertAnnouncement(db, draft(1, { status: 'queued', submittedAt: oldest }));
      await insertAnnouncement(db, draft(4, { status: 'approved', submittedAt: T0 }));
      expect(await readApprovalQueue(db)).toEqual({ depth: 3, oldestSubmittedAt: oldest, oldestId: announcementId(1) });
    });

    it('finds published announcements whose fan-out is owed, oldest publication first, up to the limit', async () => {
      const db = database();
      await seedUsers(db);
      const cutoff = isoAfter(T0, 120_000);
      const published = (n: number, publishedAt: string, fanoutEnqueuedAt: string | null = null) =>
        draft(n, { status: 'published', publishedAt, publishedBy: ADMIN, fanoutEnqueuedAt });
      await insertAnnouncement(db, published(1, cutoff));
      await insertAnnouncement(db, published(2, T0));
      await insertAnnouncement(db, published(3, T0, isoAfter(T0, 1)));
      await insertAnnouncement(db, published(4, isoAfter(cutoff, 1)));
      await insertAnnouncement(db, published(5, isoAfter(T0, 60_000)));
      await insertAnnouncement(db, draft(6, { status: 'approved', publishedAt: T0 }));
      expect(await findOwedFanouts(db, cutoff, 10)).toEqual([2, 5, 1].map((n) => ({ id: announcementId(n) })));
      expect(await findOwedFanouts(db, cutoff, 2)).toEqual([2, 5].map((n) => ({ id: announcementId(n) })));
    });
  });
}
