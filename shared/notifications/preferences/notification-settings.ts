import type { DatabaseProvider } from '../../db/lazy-database';
import { problem, type Problem } from '../../errors/problem';
import type { Logger } from '../../logging/logger';
import type { Clock } from '../../ports/clock';
import type { User } from '../../users/user';
import { readPreferences, updatePreferences, type NotificationPreferences, type PreferencesPatch } from '../../users/notification-preferences';
import { countPushTokens, isActiveUser, registerPushToken, removePushToken, userSettingsLock } from '../../users/push-tokens';

/**
 * The caller's notification settings (contract section 10): devices for push and channel
 * preferences. Adults and children alike: a child's device may receive push, and the fan-out
 * sends to it only while the parent keeps the `announcements` section open. Log lines carry
 * counts and choices, never the token.
 */
export interface NotificationSettingsDeps {
  database: DatabaseProvider;
  clock: Clock;
  logger: Logger;
}

/**
 * What a change of settings answers when the caller's account stopped being active after the
 * request was authenticated (an erasure committed in between): as if the session had been ended
 * first, which it now is.
 */
const accountGone = (): Problem => problem('unauthenticated', { detail: 'The account is no longer active.' });

/**
 * PUT /api/v1/me/push-tokens: registers the device for the caller (moving it from anyone else).
 * @returns a problem (401) when the account was erased or disabled meanwhile: nothing registered.
 */
export async function registerDevice(user: User, token: string, deps: NotificationSettingsDeps): Promise<Problem | undefined> {
  const db = await deps.database.get();
  const now = deps.clock.now().toISOString();
  const { registered, movedFromUserId } = await db.transaction((tx) => registerPushToken(tx, user.id, token, now));
  if (!registered) return accountGone();
  // A device changes hands (a family tablet) legitimately; a token taken over is still worth a trace.
  if (movedFromUserId) deps.logger.info({ fromUserId: movedFromUserId }, 'push token moved from another account');
  deps.logger.info({ devices: await countPushTokens(db, user.id) }, 'push token registered');
  return undefined;
}

/** DELETE /api/v1/me/push-tokens: removes the caller's device; unknown tokens are fine (idempotent). */
export async function unregisterDevice(user: User, token: string, deps: NotificationSettingsDeps): Promise<void> {
  const db = await deps.database.get();
  const removed = await removePushToken(db, user.id, token);
  deps.logger.info({ removed }, 'push token unregistered');
}

/** GET /api/v1/me/notification-preferences. */
export async function getPreferences(user: User, deps: NotificationSettingsDeps): Promise<NotificationPreferences> {
  return readPreferences(await deps.database.get(), user.id);
}

/**
 * PATCH /api/v1/me/notification-preferences: the changed preferences, all three in the answer.
 * Under the user's settings lock, as an erasure, and only for an active account: a change that
 * raced the erasure answers 401 and leaves no preferences row behind the tombstone.
 */
export async function changePreferences(
  user: User,
  patch: PreferencesPatch,
  deps: NotificationSettingsDeps,
): Promise<NotificationPreferences | Problem> {
  const db = await deps.database.get();
  const now = deps.clock.now().toISOString();
  const preferences = await db.transaction(async (tx) => {
    await tx.lock(userSettingsLock(user.id));
    if (!(await isActiveUser(tx, user.id))) return undefined;
    return updatePreferences(tx, user.id, patch, now);
  });
  if (!preferences) return accountGone();
  // Not `email`/`sms` as field names: the logger redacts those as contact data.
  deps.logger.info(
    { pushEnabled: preferences.push, smsEnabled: preferences.sms, emailEnabled: preferences.email },
    'notification preferences changed',
  );
  return preferences;
}
