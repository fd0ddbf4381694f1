import type { AuditEvent } from '../audit/audit-event';
import { findChildById } from '../children/child-account-store';
import { readChildActivity, type ActivityItem } from '../children/child-activity';
import { toChildConsentView, type ChildConsentView } from '../children/child-consent';
import { listConsentsOfChild } from '../children/child-consent-store';
import type { DatabaseProvider } from '../db/lazy-database';
import { readPreferences, type NotificationPreferences } from '../notifications/notification-preferences';
import type { Clock } from '../ports/clock';
import { toClientLabel, type ClientLabel } from '../sessions/client-label';
import { publicSessionId } from '../sessions/session-view';
import {
  readAllUserSessions,
  readAuditRowsNaming,
  readAuthoredAnnouncements,
  readChildrenOfParent,
  readUserDevices,
} from './account-export-store';
import type { Section, User } from './user';

/**
 * `GET /api/v1/me/export`: the caller's own data as one JSON document (issue 11, item 5). Each
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

export interface ExportedSession {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  endedAt: string | null;
  endReason: string | null;
  client: ClientLabel;
  current: boolean;
}

export interface ExportedChild {
  id: string;
  status: string;
  createdAt: string;
  /** The account, while it is not erased. */
  account: { username: string; signInMethod: string; scopes: Section[]; locked: boolean; deletedAt: string | null } | null;
  consents: ChildConsentView[];
  activity: ActivityItem[];
}

export interface AccountExport {
  exportedAt: string;
  profile: {
    id: string;
    accountType: string;
    role: string;
    status: string;
    createdAt: string;
    updatedAt: string;
    /** An adult's identity at their identity provider. */
    identity: { issuer: string; subject: string } | null;
    /** A child's parent (by id), username, sections and sign-in method. */
    parentId: string | null;
    username: string | null;
    signInMethod: string | null;
    scopes: Section[] | null;
  };
  contact: { email: string | null; phone: string | null };
  preferences: NotificationPreferences;
  devices: { token: string; registeredAt: string; updatedAt: string }[];
  sessions: ExportedSession[];
  /** A child's: the consents its parent gave for it. An adult's are under each child. */
  consents: ChildConsentView[];
  announcements: {
    id: string;
    title: string;
    body: string;
    channels: unknown;
    status: string;
    rejectionReason: string | null;
    createdAt: string;
    updatedAt: string;
    submittedAt: string | null;
    reviewedAt: string | null;
    publishedAt: string | null;
  }[];
  children: ExportedChild[];
  audit: AuditEvent[];
}

/**
 * Everything the service holds about the caller: profile, contact data, preferences, devices,
 * sessions (open and ended), consents, announcements authored, a parent's children (account,
 * consents, activity; erased ones as tombstones) and the audit rows naming the caller.
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
      status: child.status,
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
    announcements: announcements.map((row) => ({ ...row, channels: JSON.parse(row.channels) as unknown })),
    children: exportedChildren,
    audit: audit.map((row) => (row.targetType === 'session' && row.targetId ? { ...row, targetId: publicSessionId(row.targetId) } : row)),
  };
}
