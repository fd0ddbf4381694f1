import type { SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import { canonicalPhone } from '../users/contact-address';
import { readPreferences } from './notification-preferences';

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

/** The opt-out that applies to `userId` at `phone` now, or undefined when an SMS may go. */
export async function smsOptOutOf(db: SqlExecutor, userId: string, phone: string): Promise<SmsOptOut | undefined> {
  if (!(await readPreferences(db, userId)).sms) return 'user_choice';
  const canonical = canonicalPhone(phone);
  if (canonical === undefined) return undefined;
  const [row] = await db.query<{ phone: string }>(
    `SELECT phone FROM SmsOptOuts
     WHERE phone = @phone AND optedOutAt IS NOT NULL AND (optedInAt IS NULL OR optedInAt < optedOutAt)`,
    { phone: canonical },
  );
  return row ? 'provider_stop' : undefined;
}
