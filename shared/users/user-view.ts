import type { User } from './user';

/**
 * A user as the API shows it to the user themselves (`GET /api/v1/me`) and to administrators
 * deciding on an approval or a role. Only they see the contact details.
 */
export function toUserView(user: User) {
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
