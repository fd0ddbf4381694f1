import type { Database, SqlValue } from '../../db/database';
import { limitClause } from '../../db/dialect';
import { DEFAULT_PREFERENCES, isOn, type NotificationPreferences } from '../../users/notification-preferences';
import type { Channel } from '../../ports/delivery';
import { pushTokensInRange } from '../../users/push-tokens';

/**
 * Who receives an announcement, read a page at a time in user-id order (keyset paging), so no
 * instance ever holds the whole audience. Recipients are active users who can be reached on at
 * least one of the announcement's channels, after their preferences and what they have:
 * - adults: push (a registered device), SMS (a phone number; an opted-out number still counts, it
 *   is recorded as `opted_out`), e-mail (an address that has not hard-bounced);
 * - children only with the `announcements` scope their parent opened, and only by push: they have
 *   no e-mail address or phone number on the platform.
 */

export interface Recipient {
  userId: string;
  accountType: 'adult' | 'child';
  preferences: NotificationPreferences;
  /** Verified contact data; never logged. */
  email: string | null;
  phone: string | null;
  emailHardBounced: boolean;
  /** The devices, most recently registered first; never logged. */
  pushTokens: string[];
}

/** The start of the user-id order: every id is greater. */
export const FIRST_USER_ID = '';

function channelParams(channels: readonly Channel[]): Record<string, number> {
  return {
    wantsPush: channels.includes('push') ? 1 : 0,
    wantsSms: channels.includes('sms') ? 1 : 0,
    wantsEmail: channels.includes('email') ? 1 : 0,
  };
}

// `scopes` is a JSON array of section names, so the quoted name matches exactly one element.
const AUDIENCE = `
  FROM Users u
  LEFT JOIN ChildAccounts c ON c.userId = u.id
  LEFT JOIN NotificationPreferences p ON p.userId = u.id
  LEFT JOIN EmailHardBounces b ON b.email = u.email
  WHERE u.status = 'active'
    AND (u.accountType = 'adult' OR (c.deletedAt IS NULL AND c.scopes LIKE '%"announcements"%'))
    AND (
      (@wantsPush = 1 AND COALESCE(p.push, 1) = 1 AND EXISTS (SELECT 1 FROM PushTokens t WHERE t.userId = u.id))
      OR (@wantsSms = 1 AND u.accountType = 'adult' AND u.phone IS NOT NULL)
      OR (@wantsEmail = 1 AND u.accountType = 'adult' AND COALESCE(p.email, 1) = 1 AND u.email IS NOT NULL AND b.email IS NULL)
    )`;

/** How many recipients an announcement on `channels` has now. */
export async function countRecipients(db: Database, channels: readonly Channel[]): Promise<number> {
  const [row] = await db.query<{ recipients: number }>(`SELECT COUNT(*) AS recipients ${AUDIENCE}`, channelParams(channels));
  return Number(row?.recipients ?? 0);
}

/** The ids of up to `size` recipients after `afterUserId`, in order: how the first message cuts the audience into batches. */
export async function recipientIdsAfter(
  db: Database,
  channels: readonly Channel[],
  afterUserId: string,
  size: number,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT u.id ${AUDIENCE} AND u.id > @afterUserId ORDER BY u.id ${limitClause(db.dialect, '@size')}`,
    { ...channelParams(channels), afterUserId, size },
  );
  return rows.map((row) => row.id);
}

interface RecipientRow {
  id: string;
  accountType: 'adult' | 'child';
  email: string | null;
  phone: string | null;
  prefPush: SqlValue;
  prefSms: SqlValue;
  prefEmail: SqlValue;
  bouncedEmail: string | null;
}

/**
 * Up to `size` recipients after `afterUserId` (and, when given, at most `throughUserId`), with their
 * preferences, contact data and devices.
 */
export async function recipientsAfter(
  db: Database,
  channels: readonly Channel[],
  afterUserId: string,
  size: number,
  throughUserId?: string,
): Promise<Recipient[]> {
  const through = throughUserId === undefined ? '' : 'AND u.id <= @throughUserId';
  const rows = await db.query<RecipientRow>(
    `SELECT u.id, u.accountType, u.email, u.phone, p.push AS prefPush, p.sms AS prefSms, p.email AS prefEmail, b.email AS bouncedEmail
     ${AUDIENCE} AND u.id > @afterUserId ${through} ORDER BY u.id ${limitClause(db.dialect, '@size')}`,
    { ...channelParams(channels), afterUserId, size, ...(throughUserId === undefined ? {} : { throughUserId }) },
  );
  const last = rows[rows.length - 1];
  const tokens = last && channels.includes('push') ? await pushTokensInRange(db, afterUserId, last.id) : new Map<string, string[]>();
  return rows.map((row) => ({
    userId: row.id,
    accountType: row.accountType,
    preferences: {
      push: row.prefPush === null ? DEFAULT_PREFERENCES.push : isOn(row.prefPush),
      sms: row.prefSms === null ? DEFAULT_PREFERENCES.sms : isOn(row.prefSms),
      email: row.prefEmail === null ? DEFAULT_PREFERENCES.email : isOn(row.prefEmail),
    },
    email: row.accountType === 'adult' ? row.email : null,
    phone: row.accountType === 'adult' ? row.phone : null,
    emailHardBounced: row.bouncedEmail !== null,
    pushTokens: tokens.get(row.id) ?? [],
  }));
}

/**
 * The channels to try for one recipient: the announcement's, minus what the recipient switched
 * off or cannot receive. SMS stays in when the user switched it off: the opt-out is checked (and
 * recorded as `opted_out`) right before the SMS would go.
 */
export function channelsFor(recipient: Recipient, channels: readonly Channel[]): Channel[] {
  return channels.filter((channel) => {
    switch (channel) {
      case 'push':
        return recipient.preferences.push && recipient.pushTokens.length > 0;
      case 'sms':
        return recipient.phone !== null;
      case 'email':
        return recipient.preferences.email && recipient.email !== null && !recipient.emailHardBounced;
    }
  });
}

/**
 * Every recipient of a batch's id range (`afterUserId`, `throughUserId`], read a page of `size` at a
 * time: users who joined the audience inside the range since the split are included, nobody is
 * pushed out. A batch without `throughUserId` (an older message) is the `size` users after `afterUserId`.
 */
export async function recipientsOfBatch(
  db: Database,
  channels: readonly Channel[],
  batch: { afterUserId: string; throughUserId?: string | undefined; size: number },
): Promise<Recipient[]> {
  if (batch.throughUserId === undefined) return recipientsAfter(db, channels, batch.afterUserId, batch.size);
  const all: Recipient[] = [];
  for (let after = batch.afterUserId; ; ) {
    const page = await recipientsAfter(db, channels, after, batch.size, batch.throughUserId);
    all.push(...page);
    const last = page[page.length - 1];
    // A page that ended at the range's end leaves nothing to read.
    if (page.length < batch.size || !last || last.userId === batch.throughUserId) return all;
    after = last.userId;
  }
}
