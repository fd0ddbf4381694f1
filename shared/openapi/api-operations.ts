import type * as z from 'zod/mini';
import { announcementViewSchema } from '../announcements/announcement-view';
import {
  createAnnouncementBody,
  rejectAnnouncementBody,
  updateAnnouncementBody,
} from '../announcement-workflow/announcement-request-schemas';
import { ANNOUNCEMENT_STATUSES } from '../announcements/announcement';
import { profileSchema } from '../auth/profile';
import { sessionResponseSchema } from '../auth/session-response';
import { adultSessionBody, childSessionBody } from '../auth/sign-in-request-schemas';
import { childAccountViewSchema } from '../children/child-account';
import { activityItemSchema, ACTIVITY_PAGE } from '../children/child-activity';
import { childConsentViewSchema } from '../children/child-consent';
import { createChildBody, updateChildBody } from '../family/child-request-schemas';
import type { ErrorCode } from '../errors/error-catalogue';
import { problemBodySchema } from '../errors/problem';
import { healthSchema, readinessSchema } from '../health/check-readiness';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/read-page';
import { preferencesPatchBody, preferencesSchema } from '../users/notification-preferences';
import { pushTokenBody } from '../users/push-tokens';
import { sessionViewSchema } from '../sessions/session-view';
import { accountExportSchema } from '../data-rights/export-account';
import { USER_STATUSES } from '../users/user';
import { roleChangeBody } from '../data-rights/user-request-schemas';
import { userViewSchema } from '../users/user-view';
import { pageOf } from '../users/api-fields';
import type { LazySchema } from '../validation/lazy-schema';

/**
 * Every HTTP endpoint as the OpenAPI document describes it (`openapi-document.ts`): path, who may
 * call it, the request body's and the success answer's zod schemas and the problem codes it
 * answers with beyond those every endpoint shares. A test compares this list with the routes the
 * app registers, and the end-to-end suites check every answer against the generated document.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call: `public` needs no token; every other value needs `Authorization: Bearer <session token>`. */
export type Access = 'public' | 'signed in' | 'adult' | 'the parent' | 'author or admin' | 'admin';

export interface QueryParameter {
  name: string;
  description: string;
  /** A plain JSON Schema (query values are strings on the wire; these say what they must spell). */
  schema: Record<string, unknown>;
}

export interface NamedSchema {
  /** The name under `components.schemas`. */
  name: string;
  schema: LazySchema<z.core.$ZodType> | (() => z.core.$ZodType);
}

export interface ApiOperation {
  method: HttpMethod;
  /** The full path, `{name}` for path parameters, as clients call it. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  query?: readonly QueryParameter[];
  body?: NamedSchema & { example: unknown };
  success: { status: 200 | 201 | 204; description: string; body?: NamedSchema; example?: unknown };
  /** `HEAD` answers as `GET` does, without the body (the probes). */
  head?: true;
  /** Codes this endpoint answers with besides the shared ones (see `sharedProblemCodes`). */
  problems: readonly ErrorCode[];
}

/**
 * The codes any endpoint may answer with: a repeated query key or a malformed request, a failure,
 * an unreachable dependency or an app shutting down (503). Whatever the route, the local host
 * refuses a body over 16 KiB (413), a header section over 32 KiB (431) and a request that does not
 * arrive within 10 s (408) before any function runs (devhost/http-host.ts).
 */
export function sharedProblemCodes(operation: ApiOperation): ErrorCode[] {
  return [
    'invalid_request',
    'request_timeout',
    'payload_too_large',
    ...(operation.body ? (['unsupported_media_type'] as const) : []),
    'headers_too_large',
    ...(operation.access === 'public' ? [] : (['unauthenticated'] as const)),
    'internal_error',
    'service_unavailable',
  ];
}

const ID = '11111111-2222-4333-8444-555555555555';
const TIME = '2025-01-15T09:30:00.000Z';

const limitParam = (sizes: { defaultLimit: number; maxLimit: number }): QueryParameter => ({
  name: 'limit',
  description: `Page size, 1 to ${sizes.maxLimit} (default ${sizes.defaultLimit}).`,
  schema: { type: 'integer', minimum: 1, maximum: sizes.maxLimit, default: sizes.defaultLimit },
});
const cursorParam: QueryParameter = { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: { type: 'string', maxLength: 512 } };
const page = { defaultLimit: DEFAULT_PAGE_SIZE, maxLimit: MAX_PAGE_SIZE };
const booleanParam = (name: string, description: string): QueryParameter => ({ name, description, schema: { type: 'string', enum: ['true', 'false'], default: 'false' } });

const SESSION: NamedSchema = { name: 'Session', schema: sessionResponseSchema };
const ANNOUNCEMENT: NamedSchema = { name: 'Announcement', schema: announcementViewSchema };
const CHILD: NamedSchema = { name: 'ChildAccount', schema: childAccountViewSchema };
const USER: NamedSchema = { name: 'User', schema: userViewSchema };
const PREFERENCES: NamedSchema = { name: 'NotificationPreferences', schema: preferencesSchema };
const SESSION_LIST: NamedSchema = { name: 'SessionList', schema: () => pageOf(sessionViewSchema.schema()) };
const PUSH_TOKEN = { name: 'PushTokenRequest', schema: pushTokenBody, example: { token: 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]' } };

const announcementExample = {
  id: ID,
  status: 'draft',
  title: 'Summer camp',
  body: 'Sign-up opens on Monday.',
  channels: ['push', 'email'],
  authorId: ID,
  createdAt: TIME,
  updatedAt: TIME,
  submittedAt: null,
  reviewedAt: null,
  publishedAt: null,
  rejectionReason: null,
};
const childExample = { id: ID, username: 'sam_k', status: 'active', scopes: ['announcements'], locked: false, createdAt: TIME };
const userExample = { id: ID, role: 'member', status: 'active', accountType: 'adult', createdAt: TIME, email: 'parent@example.com' };
const announcementStep = (step: 'submit' | 'approve' | 'publish', summary: string, access: Access): ApiOperation => ({
  method: 'post',
  path: `/api/v1/announcements/{id}/${step}`,
  operationId: `${step}Announcement`,
  tag: 'announcements',
  summary,
  access,
  success: { status: 200, description: 'The announcement after the step.', body: ANNOUNCEMENT, example: announcementExample },
  problems: ['forbidden', 'not_found', 'invalid_transition'],
});

/** The endpoints, in the order the document lists them. */
export const API_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/api/v1/auth/session',
    operationId: 'createAdultSession',
    tag: 'auth',
    summary: 'Exchange an identity-provider ID token for a session',
    description:
      'Failed sign-ins past the limits answer 429 with `Retry-After`; a valid token is never refused by them. 503 `idp_unavailable` when the provider keys cannot be read.',
    access: 'public',
    body: { name: 'AdultSessionRequest', schema: adultSessionBody, example: { idToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6Ii4uLiJ9.eyJpc3MiOiIuLi4ifQ.c2ln' } },
    success: {
      status: 200,
      description: 'A new session.',
      body: SESSION,
      example: { token: 'aaaaaaaa.bbbbbbbb', tokenType: 'Bearer', expiresAt: TIME, user: { id: ID, role: 'member', status: 'active', accountType: 'adult' } },
    },
    problems: ['invalid_token', 'account_pending_approval', 'account_disabled', 'too_many_attempts', 'idp_unavailable'],
  },
  {
    method: 'post',
    path: '/api/v1/auth/child-session',
    operationId: 'createChildSession',
    tag: 'auth',
    summary: "Sign a child in with username and PIN (or password)",
    description: 'Send exactly one of `pin` and `password`. A malformed value is a wrong credential (401), never a 400.',
    access: 'public',
    body: { name: 'ChildSessionRequest', schema: childSessionBody, example: { username: 'sam_k', pin: '482915' } },
    success: {
      status: 200,
      description: "A new session, with the child's sections.",
      body: SESSION,
      example: { token: 'aaaaaaaa.bbbbbbbb', tokenType: 'Bearer', expiresAt: TIME, user: { id: ID, role: 'child', status: 'active', accountType: 'child', scopes: ['announcements'] } },
    },
    problems: ['invalid_credentials', 'account_pending_approval', 'account_disabled', 'too_many_attempts'],
  },
  {
    method: 'delete',
    path: '/api/v1/auth/session',
    operationId: 'deleteSession',
    tag: 'auth',
    summary: 'Sign out: revoke the presented session',
    access: 'signed in',
    success: { status: 204, description: 'The token is revoked.' },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getProfile',
    tag: 'me',
    summary: "The caller's profile, role and session",
    access: 'signed in',
    success: { status: 200, description: 'The profile.', body: { name: 'Profile', schema: profileSchema }, example: { ...userExample, session: { createdAt: TIME, expiresAt: TIME } } },
    problems: [],
  },
  {
    method: 'delete',
    path: '/api/v1/me',
    operationId: 'eraseOwnAccount',
    tag: 'me',
    summary: "Erase the caller's account (adults; every child erased first)",
    access: 'adult',
    success: { status: 204, description: 'The account is erased.' },
    problems: ['forbidden', 'children_not_erased', 'invalid_transition'],
  },
  {
    method: 'get',
    path: '/api/v1/me/export',
    operationId: 'exportOwnData',
    tag: 'me',
    summary: "Everything the service holds about the caller, as one document",
    access: 'signed in',
    success: { status: 200, description: 'The export.', body: { name: 'AccountExport', schema: accountExportSchema } },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/v1/me/sessions',
    operationId: 'listOwnSessions',
    tag: 'me',
    summary: "The caller's live sessions, newest first (at most 100)",
    access: 'signed in',
    success: {
      status: 200,
      description: 'One page; `nextCursor` is always null.',
      body: SESSION_LIST,
      example: { items: [{ id: '0123456789abcdef0123456789abcdef', createdAt: TIME, lastUsedAt: TIME, expiresAt: TIME, client: 'iOS app', current: true }], nextCursor: null },
    },
    problems: [],
  },
  {
    method: 'delete',
    path: '/api/v1/me/sessions',
    operationId: 'deleteOwnSessions',
    tag: 'me',
    summary: 'End every live session but the presented one (or it too)',
    access: 'signed in',
    query: [booleanParam('includeCurrent', 'End the presented session too.')],
    success: { status: 204, description: 'The sessions ended.' },
    problems: [],
  },
  {
    method: 'delete',
    path: '/api/v1/me/sessions/{id}',
    operationId: 'deleteOwnSession',
    tag: 'me',
    summary: 'End one of the caller\'s live sessions',
    access: 'signed in',
    success: { status: 204, description: 'The session ended.' },
    problems: ['not_found'],
  },
  {
    method: 'put',
    path: '/api/v1/me/push-tokens',
    operationId: 'putPushToken',
    tag: 'me',
    summary: "Register a device's Expo push token",
    access: 'signed in',
    body: PUSH_TOKEN,
    success: { status: 204, description: 'Registered.' },
    problems: [],
  },
  {
    method: 'delete',
    path: '/api/v1/me/push-tokens',
    operationId: 'deletePushToken',
    tag: 'me',
    summary: "Unregister a device's Expo push token",
    access: 'signed in',
    body: PUSH_TOKEN,
    success: { status: 204, description: 'Unregistered.' },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/v1/me/notification-preferences',
    operationId: 'getNotificationPreferences',
    tag: 'me',
    summary: "The caller's notification channels",
    access: 'signed in',
    success: { status: 200, description: 'The preferences.', body: PREFERENCES, example: { push: true, sms: false, email: true } },
    problems: [],
  },
  {
    method: 'patch',
    path: '/api/v1/me/notification-preferences',
    operationId: 'patchNotificationPreferences',
    tag: 'me',
    summary: 'Change notification channels',
    access: 'signed in',
    body: { name: 'NotificationPreferencesPatch', schema: preferencesPatchBody, example: { sms: false } },
    success: { status: 200, description: 'The preferences after the change.', body: PREFERENCES, example: { push: true, sms: false, email: true } },
    problems: [],
  },
  {
    method: 'post',
    path: '/api/v1/children',
    operationId: 'createChild',
    tag: 'children',
    summary: 'Create a child account (records the parent\'s consent)',
    description: 'Send exactly one of `pin` and `password`. A weak secret answers 400 `weak_secret` with an `errors` entry naming the broken rule.',
    access: 'adult',
    body: { name: 'CreateChildRequest', schema: createChildBody, example: { username: 'sam_k', pin: '482915', scopes: ['announcements'] } },
    success: { status: 201, description: 'The child account.', body: CHILD, example: childExample },
    problems: ['forbidden', 'weak_secret', 'username_taken'],
  },
  {
    method: 'get',
    path: '/api/v1/children',
    operationId: 'listChildren',
    tag: 'children',
    summary: "The caller's child accounts",
    access: 'adult',
    query: [limitParam(page), cursorParam],
    success: { status: 200, description: 'One page.', body: { name: 'ChildAccountPage', schema: () => pageOf(childAccountViewSchema.schema()) }, example: { items: [childExample], nextCursor: null } },
    problems: ['forbidden'],
  },
  {
    method: 'patch',
    path: '/api/v1/children/{id}',
    operationId: 'updateChild',
    tag: 'children',
    summary: "Change a child's sections, secret or status",
    description: 'A new secret or disabling revokes the child\'s sessions; new sections are a new consent.',
    access: 'the parent',
    body: { name: 'UpdateChildRequest', schema: updateChildBody, example: { scopes: ['announcements', 'events'] } },
    success: { status: 200, description: 'The child account after the change.', body: CHILD, example: childExample },
    problems: ['forbidden', 'not_found', 'weak_secret'],
  },
  {
    method: 'delete',
    path: '/api/v1/children/{id}',
    operationId: 'deleteChild',
    tag: 'children',
    summary: 'Delete (disable) a child account, or erase it',
    access: 'the parent',
    query: [booleanParam('erase', 'Withdraw all consent and erase the child.')],
    success: { status: 204, description: 'Deleted (or erased).' },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/children/{id}/sessions',
    operationId: 'listChildSessions',
    tag: 'children',
    summary: "A child's live sessions",
    access: 'the parent',
    success: { status: 200, description: 'One page; `nextCursor` is always null.', body: SESSION_LIST },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'delete',
    path: '/api/v1/children/{id}/sessions',
    operationId: 'deleteChildSessions',
    tag: 'children',
    summary: "End all of a child's live sessions",
    access: 'the parent',
    success: { status: 204, description: 'The sessions ended.' },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'delete',
    path: '/api/v1/children/{id}/sessions/{sessionId}',
    operationId: 'deleteChildSession',
    tag: 'children',
    summary: "End one of a child's live sessions",
    access: 'the parent',
    success: { status: 204, description: 'The session ended.' },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/children/{id}/activity',
    operationId: 'listChildActivity',
    tag: 'children',
    summary: "A child's sign-ins, failures, locks and refusals, newest first",
    access: 'the parent',
    query: [limitParam(ACTIVITY_PAGE), cursorParam],
    success: {
      status: 200,
      description: 'One page.',
      body: { name: 'ActivityPage', schema: () => pageOf(activityItemSchema.schema()) },
      example: { items: [{ time: TIME, outcome: 'sign_in_failed', reason: 'bad_credentials' }], nextCursor: null },
    },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/children/{id}/consents',
    operationId: 'listChildConsents',
    tag: 'children',
    summary: "The parent's consents for a child, newest first",
    access: 'the parent',
    success: { status: 200, description: 'One page; `nextCursor` is always null.', body: { name: 'ConsentList', schema: () => pageOf(childConsentViewSchema.schema()) } },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/users',
    operationId: 'listUsers',
    tag: 'users',
    summary: 'Adults by status (default: pending approval)',
    access: 'admin',
    query: [
      { name: 'status', description: 'The status to list.', schema: { type: 'string', enum: [...USER_STATUSES], default: 'pending_approval' } },
      limitParam(page),
      cursorParam,
    ],
    success: { status: 200, description: 'One page.', body: { name: 'UserPage', schema: () => pageOf(userViewSchema.schema()) }, example: { items: [userExample], nextCursor: null } },
    problems: ['forbidden'],
  },
  {
    method: 'delete',
    path: '/api/v1/users/{id}',
    operationId: 'eraseUser',
    tag: 'users',
    summary: 'Erase an adult pending approval or disabled (an active adult erases themselves)',
    access: 'admin',
    success: { status: 204, description: 'The account is erased.' },
    problems: ['forbidden', 'not_found', 'invalid_transition', 'children_not_erased'],
  },
  {
    method: 'post',
    path: '/api/v1/users/{id}/approve',
    operationId: 'approveUser',
    tag: 'users',
    summary: 'Approve an adult pending approval',
    access: 'admin',
    success: { status: 200, description: 'The user, now active.', body: USER, example: userExample },
    problems: ['forbidden', 'not_found', 'invalid_transition'],
  },
  {
    method: 'patch',
    path: '/api/v1/users/{id}/role',
    operationId: 'changeUserRole',
    tag: 'users',
    summary: "Change an adult's role (revokes their sessions)",
    access: 'admin',
    body: { name: 'RoleChangeRequest', schema: roleChangeBody, example: { role: 'author' } },
    success: { status: 200, description: 'The user.', body: USER, example: { ...userExample, role: 'author' } },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'post',
    path: '/api/v1/announcements',
    operationId: 'createAnnouncement',
    tag: 'announcements',
    summary: 'Write a draft',
    access: 'author or admin',
    body: { name: 'CreateAnnouncementRequest', schema: createAnnouncementBody, example: { title: 'Summer camp', body: 'Sign-up opens on Monday.', channels: ['push', 'email'] } },
    success: { status: 201, description: 'The draft.', body: ANNOUNCEMENT, example: announcementExample },
    problems: ['forbidden'],
  },
  {
    method: 'get',
    path: '/api/v1/announcements',
    operationId: 'listAnnouncements',
    tag: 'announcements',
    summary: 'Announcements the caller may see',
    access: 'signed in',
    query: [{ name: 'status', description: 'Only this status.', schema: { type: 'string', enum: [...ANNOUNCEMENT_STATUSES] } }, limitParam(page), cursorParam],
    success: { status: 200, description: 'One page.', body: { name: 'AnnouncementPage', schema: () => pageOf(announcementViewSchema.schema()) }, example: { items: [announcementExample], nextCursor: null } },
    problems: ['forbidden'],
  },
  {
    method: 'get',
    path: '/api/v1/announcements/{id}',
    operationId: 'getAnnouncement',
    tag: 'announcements',
    summary: 'One announcement the caller may see',
    access: 'signed in',
    success: { status: 200, description: 'The announcement.', body: ANNOUNCEMENT, example: announcementExample },
    problems: ['forbidden', 'not_found'],
  },
  {
    method: 'patch',
    path: '/api/v1/announcements/{id}',
    operationId: 'updateAnnouncement',
    tag: 'announcements',
    summary: 'Edit a draft or a rejected announcement',
    access: 'author or admin',
    body: { name: 'UpdateAnnouncementRequest', schema: updateAnnouncementBody, example: { title: 'Summer camp 2025' } },
    success: { status: 200, description: 'The announcement.', body: ANNOUNCEMENT, example: announcementExample },
    problems: ['forbidden', 'not_found', 'invalid_transition'],
  },
  announcementStep('submit', 'Submit a draft for review', 'author or admin'),
  announcementStep('approve', 'Approve a submitted announcement', 'admin'),
  {
    method: 'post',
    path: '/api/v1/announcements/{id}/reject',
    operationId: 'rejectAnnouncement',
    tag: 'announcements',
    summary: 'Reject a submitted announcement, with a reason for its author',
    access: 'admin',
    body: { name: 'RejectAnnouncementRequest', schema: rejectAnnouncementBody, example: { reason: 'Please add the date.' } },
    success: { status: 200, description: 'The rejected announcement.', body: ANNOUNCEMENT },
    problems: ['forbidden', 'not_found', 'invalid_transition'],
  },
  announcementStep('publish', 'Publish an approved announcement (starts the fan-out)', 'admin'),
  {
    method: 'get',
    path: '/api/health',
    operationId: 'health',
    tag: 'probes',
    summary: 'Liveness: the app answers',
    access: 'public',
    head: true,
    success: { status: 200, description: 'Alive.', body: { name: 'Health', schema: healthSchema }, example: { status: 'ok' } },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/ready',
    operationId: 'ready',
    tag: 'probes',
    summary: 'Readiness: every dependency answers (503 when one does not, and once the instance is shutting down)',
    access: 'public',
    head: true,
    success: { status: 200, description: 'Ready.', body: { name: 'Readiness', schema: readinessSchema }, example: { status: 'ready', checks: { database: 'ok' } } },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'openApiDocument',
    tag: 'meta',
    summary: 'This document',
    access: 'public',
    success: { status: 200, description: 'The OpenAPI 3.1 document.' },
    problems: [],
  },
];

/** The problem+json schema, under its component name. */
export const PROBLEM: NamedSchema = { name: 'Problem', schema: problemBodySchema };
