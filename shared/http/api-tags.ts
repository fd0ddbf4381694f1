/**
 * The groups the API's endpoints are listed under (the OpenAPI document's `tags`), each with the
 * sentence the document and the reference page show for it. An endpoint's definition names one.
 */
export const API_TAGS = {
  auth: 'Sign-ins and sign-outs: an adult with an identity provider\'s ID token, a child with username and PIN or password. Each answers a session token.',
  me: 'The signed-in person: profile, own data (export and erasure), sessions, push tokens and notification preferences.',
  children: 'A parent\'s child sub-accounts: creation, the sections they may use, secrets, lock, sessions, activity and consents.',
  users: 'Administration of adult accounts: the approval queue, roles and erasure (admins only).',
  announcements: 'Announcements: drafts, the approval workflow (submit, approve, reject) and publication, which fans out to push, SMS and e-mail.',
  probes: 'Liveness and readiness for the platform\'s health checks; public, and answered to HEAD too.',
  meta: 'This API\'s own description.',
} as const;

/** The name of a group of endpoints. */
export type ApiTag = keyof typeof API_TAGS;
