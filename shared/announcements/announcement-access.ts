import type { User } from '../users/user';
import type { Announcement } from './announcement';
import type { ActorRule } from './announcement-transitions';

/**
 * Who may do what with announcements (contract section 9). Children never write; reading is
 * further gated by the `announcements` section guard for them (see `read-announcements.ts`).
 */

/** Authors and administrators write announcements. */
export function isWriter(user: User): boolean {
  return user.accountType === 'adult' && user.status === 'active' && (user.role === 'author' || user.role === 'admin');
}

export function isAdministrator(user: User): boolean {
  return user.accountType === 'adult' && user.status === 'active' && user.role === 'admin';
}

/** Whether `user` holds the role a step of kind `actor` needs, before looking at the announcement. */
export function holdsActorRole(user: User, actor: ActorRule): boolean {
  return actor === 'admin' ? isAdministrator(user) : isWriter(user);
}

/**
 * Whether `user` may see `announcement` at all: administrators see every one, adults published
 * ones and their own, children published ones (once the section guard let them in). Anything
 * else is answered as if it did not exist.
 */
export function canRead(user: User, announcement: Pick<Announcement, 'status' | 'authorId'>): boolean {
  if (announcement.status === 'published') return true;
  if (user.accountType !== 'adult') return false;
  return isAdministrator(user) || announcement.authorId === user.id;
}
