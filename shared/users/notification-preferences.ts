import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import type { SqlExecutor, SqlValue } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';

/**
 * A user's channel choices (contract section 10). The default is every channel on: the contract
 * speaks of an SMS *opt-out*, and the addresses come from claims the identity provider verified.
 * `sms: false` is the user's own SMS opt-out; the fan-out checks it (and the provider's STOP list)
 * before every SMS and records the recipient as `opted_out`.
 * (The shape: `preferencesSchema`.)
 */
export type NotificationPreferences = z.output<ReturnType<typeof preferencesSchema.schema>>;

export const DEFAULT_PREFERENCES: Readonly<NotificationPreferences> = Object.freeze({ push: true, sms: true, email: true });

/** PATCH body: any of the three, at least one, nothing else. */
export const preferencesPatchBody = lazySchema(() =>
  z
    .strictObject({ push: z.optional(z.boolean()), sms: z.optional(z.boolean()), email: z.optional(z.boolean()) })
    .check(z.refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'nothing to change' })),
);

export type PreferencesPatch = z.infer<ReturnType<typeof preferencesPatchBody.schema>>;

interface PreferencesRow {
  push: SqlValue;
  sms: SqlValue;
  email: SqlValue;
}

/** The user's preferences; the defaults when they never changed any. */
export async function readPreferences(db: SqlExecutor, userId: string): Promise<NotificationPreferences> {
  const [row] = await db.query<PreferencesRow>('SELECT push, sms, email FROM NotificationPreferences WHERE userId = @userId', {
    userId,
  });
  return row ? { push: isOn(row.push), sms: isOn(row.sms), email: isOn(row.email) } : { ...DEFAULT_PREFERENCES };
}

/**
 * A channel the patch leaves alone. Not NULL: SQL Server declares a NULL parameter as text and a
 * flag as int, and would compile the statement once per mix of patched channels.
 */
const KEEP = -1;

/**
 * Applies `patch` to the stored preferences (creating the row on the first change) and returns the
 * result. Only the patched columns are written, each in one statement (`CASE @x WHEN -1 THEN x`),
 * so two requests changing different channels at once both keep their change on either engine; a
 * racing first insert by another request turns into that same update.
 */
export async function updatePreferences(
  tx: SqlExecutor,
  userId: string,
  patch: PreferencesPatch,
  now: string,
): Promise<NotificationPreferences> {
  const flag = (choice: boolean | undefined) => (choice === undefined ? KEEP : choice ? 1 : 0);
  const changes = { userId, push: flag(patch.push), sms: flag(patch.sms), email: flag(patch.email), now, keep: KEEP };
  const update = () =>
    tx.execute(
      `UPDATE NotificationPreferences
       SET push = CASE @push WHEN @keep THEN push ELSE @push END, sms = CASE @sms WHEN @keep THEN sms ELSE @sms END,
         email = CASE @email WHEN @keep THEN email ELSE @email END, updatedAt = @now
       WHERE userId = @userId`,
      changes,
    );
  if ((await update()) === 0) {
    try {
      await tx.execute('INSERT INTO NotificationPreferences (userId, push, sms, email, updatedAt) VALUES (@userId, @push, @sms, @email, @now)', {
        userId,
        push: patch.push ?? DEFAULT_PREFERENCES.push,
        sms: patch.sms ?? DEFAULT_PREFERENCES.sms,
        email: patch.email ?? DEFAULT_PREFERENCES.email,
        now,
      });
    } catch (error) {
      // Another request created the row between our update and insert: apply ours on top of it.
      if (!(error instanceof UniqueViolationError)) throw error;
      await update();
    }
  }
  return readPreferences(tx, userId);
}

/** A stored flag: 1/0 on both engines (bit is normalised to 1/0 by the SQL Server adapter). */
export function isOn(value: SqlValue): boolean {
  return value === 1 || value === true || value === '1';
}

/** The shape of `NotificationPreferences`, for the OpenAPI document. */
export const preferencesSchema = lazySchema(() => z.strictObject({ push: z.boolean(), sms: z.boolean(), email: z.boolean() }));
