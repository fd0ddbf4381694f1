import type { Dialect, SqlExecutor } from '../../db/database';
import { jsonRowsCte } from '../../db/dialect';
import { UniqueViolationError } from '../../db/database-errors';
import { canonicalPhone } from '../../validation/contact-address';
import { isOn } from '../../users/notification-preferences';

/**
 * SMS opt-outs (contract section 10): the user's own choice (`sms: false` in their preferences)
 * and the number's own reply to the provider (STOP, and START to take it back), reported by the
 * provider. Both are checked right before every SMS, so a change made while a fan-out runs still
 * applies to the messages not yet sent. Numbers are keyed in E.164 (`canonicalPhone`), as Users
 * holds them, so matching is exact on every engine.
 *
 * A number's row keeps the instant of its last STOP and of its last START; the later one is in
 * force. Each keyword only ever moves its own instant forward, in one conditional statement, so
 * reports applied twice or out of order (Event Grid promises neither once nor in order) end in the
 * same state.
 */

/**
 * Records a STOP the number sent at `at` (ISO 8601). Idempotent; an older STOP than the known one changes nothing.
 * @returns false when `phone` is not a phone number (nothing recorded).
 */
export async function recordProviderSmsOptOut(db: SqlExecutor, phone: string, at: string): Promise<boolean> {
  return recordKeyword(db, phone, 'optedOutAt', at);
}

/**
 * Records a START the number sent at `at`: a STOP from before it no longer applies.
 * @returns false when `phone` is not a phone number (nothing recorded).
 */
export async function clearProviderSmsOptOut(db: SqlExecutor, phone: string, at: string): Promise<boolean> {
  return recordKeyword(db, phone, 'optedInAt', at);
}

async function recordKeyword(db: SqlExecutor, phone: string, column: 'optedOutAt' | 'optedInAt', at: string): Promise<boolean> {
  const canonical = canonicalPhone(phone);
  if (canonical === undefined) return false;
  const moved = await db.execute(`UPDATE SmsOptOuts SET ${column} = @at WHERE phone = @phone AND (${column} IS NULL OR ${column} < @at)`, {
    phone: canonical,
    at,
  });
  if (moved === 1) return true;
  try {
    await db.execute(`INSERT INTO SmsOptOuts (phone, ${column}) VALUES (@phone, @at)`, { phone: canonical, at });
  } catch (error) {
    // The row exists (with a later or equal instant, or just created by a concurrent report): nothing to move.
    if (!(error instanceof UniqueViolationError)) throw error;
    await db.execute(`UPDATE SmsOptOuts SET ${column} = @at WHERE phone = @phone AND (${column} IS NULL OR ${column} < @at)`, {
      phone: canonical,
      at,
    });
  }
  return true;
}

/** Why an SMS to this recipient must not go out, if it must not. */
export type SmsOptOut = 'user_choice' | 'provider_stop';

/**
 * The opt-out that applies to `userId` at `phone` now, or undefined when an SMS may go. One
 * statement reads both (it runs before every SMS): the user's `sms` preference (no row: on) and
 * the number's keyword state.
 */
export async function smsOptOutOf(db: SqlExecutor, userId: string, phone: string): Promise<SmsOptOut | undefined> {
  const canonical = canonicalPhone(phone) ?? null;
  const [row] = await db.query<OptOutRow>(
    `SELECT p.sms AS sms, o.phone AS stopped
     FROM (SELECT 1 AS one) AS asked
     LEFT JOIN NotificationPreferences p ON p.userId = @userId
     LEFT JOIN SmsOptOuts o ON o.phone = @phone AND ${STOP_IN_FORCE}`,
    { userId, phone: canonical },
  );
  return optOutOf(row);
}

/** A number's STOP is in force: it came after its last START, if any. */
const STOP_IN_FORCE = 'o.optedOutAt IS NOT NULL AND (o.optedInAt IS NULL OR o.optedInAt < o.optedOutAt)';

type OptOutRow = { sms: number | boolean | null; stopped: string | null };

function optOutOf(row: OptOutRow | undefined): SmsOptOut | undefined {
  if (row && row.sms !== null && !isOn(row.sms)) return 'user_choice';
  return row?.stopped ? 'provider_stop' : undefined;
}

const ASKED_COLUMNS = [
  { name: 'n', type: { text: 8 } },
  { name: 'userId', type: { text: 64 } },
  { name: 'phone', type: { text: 32 } },
] as const;

/**
 * `smsOptOutOf` for many recipients in one statement (the SMS that start together), each read at
 * that moment as the single form reads it.
 * @returns each recipient's opt-out, in order.
 */
export async function smsOptOutsOf(
  db: SqlExecutor,
  dialect: Dialect,
  recipients: readonly { userId: string; phone: string }[],
): Promise<(SmsOptOut | undefined)[]> {
  if (recipients.length === 0) return [];
  const asked = recipients.map((recipient, n) => ({ n: String(n), userId: recipient.userId, phone: canonicalPhone(recipient.phone) ?? null }));
  const rows = await db.query<OptOutRow & { n: string }>(
    `${jsonRowsCte(dialect, 'j', '@asked', ASKED_COLUMNS)}
     SELECT j.n AS n, p.sms AS sms, o.phone AS stopped
     FROM j
     LEFT JOIN NotificationPreferences p ON p.userId = j.userId
     LEFT JOIN SmsOptOuts o ON o.phone = j.phone AND ${STOP_IN_FORCE}`,
    { asked: JSON.stringify(asked) },
  );
  const byN = new Map(rows.map((row) => [String(row.n), row]));
  return asked.map(({ n }) => optOutOf(byN.get(n)));
}
