import type { AuditEventType } from '../audit/audit-event';
import type { Database } from '../db/database';
import { limitClause } from '../db/dialect';
import { toPage, type ListCursor } from '../db/keyset-page';
import type { DatabaseProvider } from '../db/lazy-database';
import { problem, type Problem } from '../errors/problem';
import type { User } from '../users/user';
import { findChildById } from './child-account-store';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { timestamp } from '../users/api-fields';

/**
 * `GET /api/v1/children/{id}/activity`: what a parent may see of a child's account from the audit
 * log: its sign-ins, failed sign-ins, locks and refusals of a section it was not given, newest
 * first. Each item is the time, the outcome and its reason: never an address, a session id or
 * anyone else's id (the audit row's other columns stay in the log).
 */

export const ACTIVITY_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** What happened, in the parent's words. */
export type ActivityOutcome = 'signed_in' | 'sign_in_failed' | 'locked' | 'section_refused';

/** One entry of a child's activity (`activityItemSchema`). */
export type ActivityItem = z.output<ReturnType<typeof activityItemSchema.schema>>;

// Only its type is used (`eventType`): the list is there so `satisfies` checks each name against the audit events.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const ACTIVITY_EVENTS = ['authn_login_success', 'authn_login_fail', 'authn_login_lock', 'authz_fail'] as const satisfies readonly AuditEventType[];

/** Newer than any row: the first page's position, so every page runs the same statement. */
const NEWEST: ListCursor = { createdAt: '9999-12-31T23:59:59.999Z', id: '' };

interface ActivityRow {
  id: string;
  occurredAt: string;
  eventType: (typeof ACTIVITY_EVENTS)[number];
  reason: string | null;
  targetId: string | null;
}

/**
 * One page of the audit rows about `childId` of the four activity types, newest first, before
 * `before` in (occurredAt, id) order. Served by `IX_AuditLog_subjectUserId_occurredAt_id`
 * (migration 0013): a seek to the child and the position, then rows in index order.
 */
export async function readChildActivity(
  db: Database,
  childId: string,
  page: { limit: number; after?: ListCursor },
): Promise<{ items: ActivityItem[]; next: ListCursor | null }> {
  const before = page.after ?? NEWEST;
  const rows = await db.query<ActivityRow>(
    `SELECT id, occurredAt, eventType, reason, targetId FROM AuditLog
     WHERE subjectUserId = @childId
       AND eventType IN ('authn_login_success', 'authn_login_fail', 'authn_login_lock', 'authz_fail')
       AND (occurredAt < @beforeAt OR (occurredAt = @beforeAt AND id < @beforeId))
     ORDER BY occurredAt DESC, id DESC ${limitClause(db.dialect, '@limit')}`,
    { childId, beforeAt: before.createdAt, beforeId: before.id, limit: page.limit + 1 },
  );
  const { items, next } = toPage(rows, page.limit, (row) => ({ createdAt: new Date(row.occurredAt).toISOString(), id: row.id }));
  return { items: items.map(toActivityItem), next };
}

function toActivityItem(row: ActivityRow): ActivityItem {
  const time = new Date(row.occurredAt).toISOString();
  switch (row.eventType) {
    case 'authn_login_success':
      return { time, outcome: 'signed_in', reason: null };
    case 'authn_login_fail':
      return { time, outcome: 'sign_in_failed', reason: row.reason };
    case 'authn_login_lock':
      return { time, outcome: 'locked', reason: 'too_many_failures' };
    case 'authz_fail':
      // The refused section is the row's target (`require-section.ts`).
      return { time, outcome: 'section_refused', reason: row.targetId };
  }
}

/**
 * The activity of the caller's own child. A child's token is refused (403); another parent's
 * child, a deleted child or an unknown id is 404.
 */
export async function listChildActivity(
  parent: User,
  childId: string,
  page: { limit: number; after?: ListCursor },
  deps: { database: Pick<DatabaseProvider, 'get'> },
): Promise<{ ok: true; value: { items: ActivityItem[]; next: ListCursor | null } } | { ok: false; problem: Problem }> {
  if (parent.accountType !== 'adult') return { ok: false, problem: problem('forbidden', { detail: 'Only adults manage child accounts.' }) };
  const db = await deps.database.get();
  const child = await findChildById(db, childId);
  if (!child || child.parentId !== parent.id || child.deletedAt !== null) {
    return { ok: false, problem: problem('not_found', { detail: 'No such child account.' }) };
  }
  return { ok: true, value: await readChildActivity(db, childId, page) };
}

/** The shape of `ActivityItem`, for the OpenAPI document. */
export const activityItemSchema = lazySchema(() =>
  z.strictObject({
    // ISO 8601 UTC.
    time: timestamp(),
    outcome: z.enum(['signed_in', 'sign_in_failed', 'locked', 'section_refused'] as const satisfies readonly ActivityOutcome[]),
    // Why: a failed sign-in's reason (`bad_credentials`, `locked`, `throttled`, `disabled`,
    // `pending_approval`), `too_many_failures` for a lock, the section for a refusal; null for a sign-in.
    reason: z.nullable(z.string()),
  }),
);
