import { problem, type Problem } from '../errors/problem';
import type { User } from './user';

/**
 * The lock under which the active administrators are counted or reduced: an administrator's
 * erasure (`erase-account.ts`) and the demotion of an administrator take it, so the last one
 * cannot go by either, nor by both at once.
 */
export const ADMINS_LOCK = 'users:active-admins';

/** Only active adult administrators administer users. */
export function requireAdmin(caller: User): Problem | undefined {
  return caller.accountType === 'adult' && caller.role === 'admin' && caller.status === 'active'
    ? undefined
    : problem('forbidden', { detail: 'Administrators only.' });
}
