import { findChildById } from '../children/child-account-store';
import { readChildActivity } from '../children/child-activity';
import { toChildConsentView } from '../children/child-consent';
import { listConsentsOfChild } from '../children/child-consent-store';
import type { DatabaseProvider } from '../db/lazy-database';
import { readPreferences } from '../users/notification-preferences';
import type { Clock } from '../ports/clock';
import { toClientLabel } from '../sessions/client-label';
import { publicSessionId } from '../sessions/session-view';
import {
  readAllUserSessions,
  readAuditRowsNaming,
  readAuthoredAnnouncements,
  readChildrenOfParent,
  readUserDevices,
  readNotificationDeliveries,
  readAccountNotices,
  readAccountNoticeDeliveries,
  readEmailHardBounce,
  readSmsOptOut,
} from '../users/account-export-store';
import type { User, UserStatus } from '../users/user';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { AUDIT_EVENT_TYPES, AUDIT_OUTCOMES } from '../audit/audit-event';
import { activityItemSchema } from '../children/child-activity';
import { childConsentViewSchema } from '../children/child-consent';
import { preferencesSchema } from '../users/notification-preferences';
import { CLIENT_LABELS } from '../sessions/client-label';
import { accountType, entityId, role, section, timestamp, userStatus } from '../users/api-fields';

/**
 * `GET /api/v1/me/export`: the caller's own data as one JSON document. Each
 * list holds at most `EXPORT_LIST_LIMIT` rows, newest first; a person reaches that only through
 * years of use or a flood of failed sign-ins against a child's name. A session's row id is the
 * token's first half and never leaves the service, so sessions (and the audit rows that name one)
 * show the session's public id instead, as `/me/sessions` does.
 */

export const EXPORT_LIST_LIMIT = 10_000;

export interface ExportDeps {
  database: Pick<DatabaseProvider, 'get'>;
  clock: Clock;
}

/** The export's shape: the OpenAPI document's `AccountExport`, and the types below. */
export const accountExportSchema = lazySchema(() => {
  const consent = childConsentViewSchema.schema();
  return z.strictObject({
    exportedAt: timestamp(),
    profile: z.strictObject({
      id: entityId(),
      accountType: accountType(),
      role: role(),
      status: userStatus(),
      createdAt: timestamp(),
      updatedAt: timestamp(),
      identity: z.nullable(z.strictObject({ issuer: z.string(), subject: z.string() })),
      parentId: z.nullable(entityId()),
      username: z.nullable(z.string()),
      signInMethod: z.nullable(z.enum(['pin', 'password'])),
      scopes: z.nullable(z.array(section())),
    }),
    contact: z.strictObject({ email: z.nullable(z.string()), phone: z.nullable(z.string()) }),
    preferences: preferencesSchema.schema(),
    devices: z.array(z.strictObject({ token: z.string(), registeredAt: timestamp(), updatedAt: timestamp() })),
    sessions: z.array(
      z.strictObject({
        id: z.string(),
        createdAt: timestamp(),
        lastUsedAt: timestamp(),
        expiresAt: timestamp(),
        endedAt: z.nullable(timestamp()),
        endReason: z.nullable(z.string()),
        client: z.enum(CLIENT_LABELS),
        current: z.boolean(),
      }),
    ),
    consents: z.array(consent),
    announcements: z.array(
      z.strictObject({
        id: entityId(),
        title: z.string(),
        body: z.string(),
        channels: z.array(z.string()),
        status: z.string(),
        rejectionReason: z.nullable(z.string()),
        createdAt: timestamp(),
        updatedAt: timestamp(),
        submittedAt: z.nullable(timestamp()),
        reviewedAt: z.nullable(timestamp()),
        publishedAt: z.nullable(timestamp()),
      }),
    ),
    children: z.array(
      z.strictObject({
        id: entityId(),
        status: userStatus(),
        createdAt: timestamp(),
        account: z.nullable(
          z.strictObject({
            username: z.string(),
            signInMethod: z.enum(['pin', 'password']),
            scopes: z.array(section()),
            locked: z.boolean(),
            deletedAt: z.nullable(timestamp()),
          }),
        ),
        consents: z.array(consent),
        activity: z.array(activityItemSchema.schema()),
      }),
    ),
    audit: z.array(
      z.strictObject({
        id: entityId(),
        occurredAt: timestamp(),
        eventType: z.enum(AUDIT_EVENT_TYPES),
        outcome: z.enum(AUDIT_OUTCOMES),
        actorUserId: z.nullable(entityId()),
        subjectUserId: z.nullable(entityId()),
        targetType: z.nullable(z.string()),
        targetId: z.nullable(z.string()),
        reason: z.nullable(z.string()),
        traceId: z.nullable(z.string()),
        details: z.nullable(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))),
      }),
    ),
    notifications: z.array(
      z.strictObject({ announcementId: entityId(), channel: z.string(), result: z.string(), createdAt: timestamp(), updatedAt: timestamp() }),
    ),
    notices: z.array(
      z.strictObject({
        id: entityId(),
        kind: z.string(),
        subjectUserId: entityId(),
        eventAt: timestamp(),
        createdAt: timestamp(),
        deliveries: z.array(z.strictObject({ channel: z.string(), result: z.string(), createdAt: timestamp(), updatedAt: timestamp() })),
      }),
    ),
    contactLists: z.strictObject({ emailHardBouncedAt: z.nullable(timestamp()), smsOptedOutAt: z.nullable(timestamp()) }),
  });
});

/**
 * The export (`accountExportSchema`). `profile.identity` is an adult's at their identity provider;
 * `profile.parentId`, `username`, `signInMethod` and `scopes` a child's. `consents` are a child's
 * (an adult's are under each child); `notifications` the delivery ledger rows addressed to the
 * caller; `notices` the account notices sent to them, each with its delivery per channel;
 * `contactLists` whether their current address and number are on the bounce and STOP lists.
 */
export type AccountExport = z.output<ReturnType<typeof accountExportSchema.schema>>;
export type ExportedSession = AccountExport['sessions'][number];
/** A parent's child; `account` while it is not erased. */
export type ExportedChild = AccountExport['children'][number];
export type ExportedNotice = AccountExport['notices'][number];

/**
 * Everything the service holds about the caller: profile, contact data, preferences, devices,
 * sessions (open and ended), consents, announcements authored, a parent's children (account,
 * consents, activity; erased ones as tombstones), the audit rows naming the caller, the
 * notifications and account notices sent to them (delivery ledgers) and whether their address and
 * number are on the bounce and STOP lists.
 * @param caller the signed-in user and the presented session's row id.
 */
export async function exportAccount(caller: { user: User; sessionRowId: string }, deps: ExportDeps): Promise<AccountExport> {
  const { user } = caller;
  const db = await deps.database.get();
  const ownChild = user.accountType === 'child' ? await findChildById(db, user.id) : undefined;
  const [preferences, devices, sessions, announcements, audit, consents, children] = await Promise.all([
    readPreferences(db, user.id),
    readUserDevices(db, user.id),
    readAllUserSessions(db, user.id, EXPORT_LIST_LIMIT),
    readAuthoredAnnouncements(db, user.id, EXPORT_LIST_LIMIT),
    readAuditRowsNaming(db, user.id, EXPORT_LIST_LIMIT),
    user.accountType === 'child' ? listConsentsOfChild(db, user.id, EXPORT_LIST_LIMIT) : Promise.resolve([]),
    user.accountType === 'adult' ? readChildrenOfParent(db, user.id, EXPORT_LIST_LIMIT) : Promise.resolve([]),
  ]);
  const [notifications, notices, noticeDeliveries, emailHardBouncedAt, smsOptedOutAt] = await Promise.all([
    readNotificationDeliveries(db, user.id, EXPORT_LIST_LIMIT),
    readAccountNotices(db, user.id, EXPORT_LIST_LIMIT),
    readAccountNoticeDeliveries(db, user.id, EXPORT_LIST_LIMIT),
    user.email ? readEmailHardBounce(db, user.email) : Promise.resolve(null),
    user.phone ? readSmsOptOut(db, user.phone) : Promise.resolve(null),
  ]);
  const deliveriesByNotice = new Map<string, ExportedNotice['deliveries']>();
  for (const { noticeId, ...delivery } of noticeDeliveries) {
    deliveriesByNotice.set(noticeId, [...(deliveriesByNotice.get(noticeId) ?? []), delivery]);
  }
  const exportedChildren: ExportedChild[] = [];
  // One child at a time: a parent has a few, and the reads stay within one connection's share.
  for (const child of children) {
    const account = await findChildById(db, child.id);
    const [childConsents, activity] = await Promise.all([
      listConsentsOfChild(db, child.id, EXPORT_LIST_LIMIT),
      readChildActivity(db, child.id, { limit: EXPORT_LIST_LIMIT }),
    ]);
    exportedChildren.push({
      id: child.id,
      // The column's CHECK constraint holds it to the statuses.
      status: child.status as UserStatus,
      createdAt: child.createdAt,
      account: account
        ? { username: account.username, signInMethod: account.secretKind, scopes: account.scopes, locked: account.lockedAt !== null, deletedAt: account.deletedAt }
        : null,
      consents: childConsents.map(toChildConsentView),
      activity: activity.items,
    });
  }
  return {
    exportedAt: deps.clock.now().toISOString(),
    profile: {
      id: user.id,
      accountType: user.accountType,
      role: user.role,
      status: user.status,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
      identity: user.issuer && user.subject ? { issuer: user.issuer, subject: user.subject } : null,
      parentId: user.parentId,
      username: ownChild?.username ?? null,
      signInMethod: ownChild?.secretKind ?? null,
      scopes: ownChild ? ownChild.scopes : null,
    },
    contact: { email: user.email, phone: user.phone },
    preferences,
    devices: devices.map((device) => ({ token: device.token, registeredAt: device.createdAt, updatedAt: device.updatedAt })),
    sessions: sessions.map((session) => ({
      id: publicSessionId(session.id),
      createdAt: session.createdAt,
      lastUsedAt: session.lastUsedAt,
      expiresAt: session.absoluteExpiresAt,
      endedAt: session.endedAt,
      endReason: session.endReason,
      client: toClientLabel(session.clientLabel),
      current: session.id === caller.sessionRowId,
    })),
    consents: consents.map(toChildConsentView),
    announcements: announcements.map((row) => ({ ...row, channels: JSON.parse(row.channels) as string[] })),
    children: exportedChildren,
    audit: audit.map((row) => (row.targetType === 'session' && row.targetId ? { ...row, targetId: publicSessionId(row.targetId) } : row)),
    notifications,
    notices: notices.map((notice) => ({ ...notice, deliveries: deliveriesByNotice.get(notice.id) ?? [] })),
    contactLists: { emailHardBouncedAt, smsOptedOutAt },
  };
}
