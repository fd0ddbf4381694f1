import { createHash } from 'node:crypto';
import { toClientLabel } from './client-label';
import type { LiveSession } from './session';
import * as z from 'zod/mini';
import { lazySchema } from '../validation/lazy-schema';
import { timestamp } from '../users/api-fields';
import { CLIENT_LABELS } from './client-label';

/** Domain separation: this hash of a row id serves no other purpose. */
const PUBLIC_ID_CONTEXT = 'community-platform:session-public-id:v1:';

/** 32 lower-case hex digits: how a public session id looks in a path. */
export const PUBLIC_SESSION_ID = /^[0-9a-f]{32}$/;

/**
 * The public id of a session: the first 128 bits of SHA-256 over its row id, in hex. Stable for the
 * session's life and computed, not stored, so every session has one without a column to fill; the
 * row id is 128 random bits, so the public id can neither be reversed nor guessed, and it proves
 * nothing: the token's secret half takes no part in it.
 */
export function publicSessionId(rowId: string): string {
  return createHash('sha256').update(PUBLIC_ID_CONTEXT + rowId, 'utf8').digest('hex').slice(0, 32);
}

/**
 * A public session id as sent in a path, in its one form (lower case); undefined for anything
 * else, which the endpoint answers with 400.
 */
export function readPublicSessionId(raw: string | undefined): string | undefined {
  const id = raw?.toLowerCase();
  return id !== undefined && PUBLIC_SESSION_ID.test(id) ? id : undefined;
}

/** The list entry of a live session; `currentRowId` is the presented session's row id, if any. */
export function toSessionView(session: LiveSession, currentRowId: string | null): SessionView {
  return {
    id: publicSessionId(session.id),
    createdAt: session.createdAt,
    lastUsedAt: session.lastUsedAt,
    expiresAt: session.absoluteExpiresAt,
    client: toClientLabel(session.clientLabel),
    current: session.id === currentRowId,
  };
}

/** What the session lists show of a session: the OpenAPI document's schema, and `SessionView`. */
export const sessionViewSchema = lazySchema(() =>
  z.strictObject({
    // The session's public id, never the token or any part of it: the row id is the token's first
    // half, so it stays inside the service (audit rows, the database).
    id: z.string().check(z.regex(PUBLIC_SESSION_ID)),
    createdAt: timestamp(),
    // Written at most once per touch interval (an hour): accurate to that.
    lastUsedAt: timestamp(),
    // The absolute expiry, as the sign-in answer and `/me` give it; an idle session ends earlier.
    expiresAt: timestamp(),
    client: z.enum(CLIENT_LABELS),
    current: z.boolean(),
  }),
);

/**
 * A session as `GET /api/v1/me/sessions` and `GET /api/v1/children/{id}/sessions` show it
 * (`sessionViewSchema`); `current` is true for the session the request was made with.
 */
export type SessionView = z.output<ReturnType<typeof sessionViewSchema.schema>>;
