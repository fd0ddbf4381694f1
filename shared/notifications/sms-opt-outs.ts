import type { SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import { canonicalPhone } from '../users/contact-address';
import { readPreferences } from './notification-preferences';

/**
 * SMS opt-outs (contract section 10): the user's own choice (`sms: false` in their preferences)
 * and the provider's STOP report (the number in `SmsOptOuts`). Both are checked right before every
 * SMS, so a change made while a fan-out runs still applies to the messages not yet sent. Numbers
 * are keyed in E.164 (`canonicalPhone`), as Users holds them, so matching is exact on every engine.
 */

/** Records that the SMS provider reported `phone` as opted out (a STOP reply). Idempotent. */
export async function recordProviderSmsOptOut(db: SqlExecutor, phone: string, now: string): Promise<void> {
  const canonical = canonicalPhone(phone);
  if (canonical === undefined) return;
  try {
    await db.execute('INSERT INTO SmsOptOuts (phone, optedOutAt) VALUES (@phone, @now)', { phone: canonical, now });
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
}

/** Forgets a provider opt-out (the recipient texted START, as the provider reports it). */
export async function clearProviderSmsOptOut(db: SqlExecutor, phone: string): Promise<void> {
  const canonical = canonicalPhone(phone);
  if (canonical !== undefined) await db.execute('DELETE FROM SmsOptOuts WHERE phone = @phone', { phone: canonical });
}

/** Why an SMS to this recipient must not go out, if it must not. */
export type SmsOptOut = 'user_choice' | 'provider_stop';

/** The opt-out that applies to `userId` at `phone` now, or undefined when an SMS may go. */
export async function smsOptOutOf(db: SqlExecutor, userId: string, phone: string): Promise<SmsOptOut | undefined> {
  if (!(await readPreferences(db, userId)).sms) return 'user_choice';
  const canonical = canonicalPhone(phone);
  if (canonical === undefined) return undefined;
  const [row] = await db.query<{ phone: string }>('SELECT phone FROM SmsOptOuts WHERE phone = @phone', { phone: canonical });
  return row ? 'provider_stop' : undefined;
}
