import { announcementViewSchema } from '../announcements/announcement-view';
import { sessionResponseSchema } from '../auth/session-response';
import { childAccountViewSchema } from '../children/child-account';
import type { NamedSchema, QueryParameter } from '../http/endpoint-definition';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/read-page';
import { sessionViewSchema } from '../sessions/session-view';
import { pageOf } from '../users/api-fields';
import { preferencesSchema } from '../users/notification-preferences';
import { pushTokenBody } from '../users/push-tokens';
import { userViewSchema } from '../users/user-view';

/**
 * The answer schemas, query parameters and examples several endpoints' definitions share, under
 * their names in the OpenAPI document (`components.schemas`).
 */

export const EXAMPLE_ID = '11111111-2222-4333-8444-555555555555';
export const EXAMPLE_TIME = '2025-01-15T09:30:00.000Z';

/** `limit`, with the page sizes of the endpoint. */
export const limitParam = (sizes: { defaultLimit: number; maxLimit: number }): QueryParameter => ({
  name: 'limit',
  description: `Page size, 1 to ${sizes.maxLimit} (default ${sizes.defaultLimit}).`,
  schema: { type: 'integer', minimum: 1, maximum: sizes.maxLimit, default: sizes.defaultLimit },
});
export const cursorParam: QueryParameter = { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: { type: 'string', maxLength: 512 } };
/** The page sizes of every list but the activity's. */
export const PAGE = { defaultLimit: DEFAULT_PAGE_SIZE, maxLimit: MAX_PAGE_SIZE };

export const SESSION: NamedSchema = { name: 'Session', schema: sessionResponseSchema };
export const ANNOUNCEMENT: NamedSchema = { name: 'Announcement', schema: announcementViewSchema };
export const ANNOUNCEMENT_PAGE: NamedSchema = { name: 'AnnouncementPage', schema: () => pageOf(announcementViewSchema.schema()) };
export const CHILD: NamedSchema = { name: 'ChildAccount', schema: childAccountViewSchema };
export const CHILD_PAGE: NamedSchema = { name: 'ChildAccountPage', schema: () => pageOf(childAccountViewSchema.schema()) };
export const USER: NamedSchema = { name: 'User', schema: userViewSchema };
export const USER_PAGE: NamedSchema = { name: 'UserPage', schema: () => pageOf(userViewSchema.schema()) };
export const PREFERENCES: NamedSchema = { name: 'NotificationPreferences', schema: preferencesSchema };
export const SESSION_LIST: NamedSchema = { name: 'SessionList', schema: () => pageOf(sessionViewSchema.schema()) };
export const PUSH_TOKEN = { name: 'PushTokenRequest', schema: pushTokenBody, example: { token: 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]' } };

export const announcementExample = {
  id: EXAMPLE_ID,
  status: 'draft',
  title: 'Summer camp',
  body: 'Sign-up opens on Monday.',
  channels: ['push', 'email'],
  authorId: EXAMPLE_ID,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
  submittedAt: null,
  reviewedAt: null,
  publishedAt: null,
  rejectionReason: null,
};
export const childExample = { id: EXAMPLE_ID, username: 'sam_k', status: 'active', scopes: ['announcements'], locked: false, createdAt: EXAMPLE_TIME };
export const userExample = { id: EXAMPLE_ID, role: 'member', status: 'active', accountType: 'adult', createdAt: EXAMPLE_TIME, email: 'parent@example.com' };
export const preferencesExample = { push: true, sms: false, email: true };
