import type { User } from './user';

/** An adult as administrators see it: enough to decide on an approval or a role. */
export function toAdminUserView(user: User) {
  return {
    id: user.id,
    role: user.role,
    status: user.status,
    accountType: user.accountType,
    createdAt: user.createdAt,
    ...(user.email ? { email: user.email } : {}),
    ...(user.phone ? { phone: user.phone } : {}),
  };
}
