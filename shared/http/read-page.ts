import type { HttpRequest } from '@azure/functions';
import { problem, type Problem } from '../errors/problem';
import type { ListCursor } from '../db/keyset-page';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/**
 * `?limit=` (1 to 200, default 50) and `?cursor=` (a `nextCursor` from an earlier page) of a list endpoint.
 * @param sizes another default and maximum page size for a list whose contract says so.
 */
export function readPage(
  request: HttpRequest,
  sizes: { defaultLimit: number; maxLimit: number } = { defaultLimit: DEFAULT_PAGE_SIZE, maxLimit: MAX_PAGE_SIZE },
): { ok: true; value: { limit: number; after?: ListCursor } } | { ok: false; problem: Problem } {
  const rawLimit = request.query.get('limit');
  const limit = rawLimit === null ? sizes.defaultLimit : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > sizes.maxLimit) {
    return { ok: false, problem: problem('invalid_request', { detail: `limit: a whole number from 1 to ${sizes.maxLimit}.` }) };
  }
  const rawCursor = request.query.get('cursor');
  if (rawCursor === null) return { ok: true, value: { limit } };
  const after = rawCursor.length <= 512 ? decodeCursor(rawCursor) : undefined;
  if (!after) return { ok: false, problem: problem('invalid_request', { detail: 'cursor: not a cursor this API gave out.' }) };
  return { ok: true, value: { limit, after } };
}

/** Encodes a cursor for `nextCursor`; it reveals only an id and a time, both already in the list. */
export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Decodes a client's cursor; undefined when it is not one of ours. Both parts are checked strictly
 * (an ISO 8601 UTC time as the app writes it, a UUID), because SQL Server compares the time with a
 * `datetime2` column and would fail on anything else: a bad cursor must be a 400, never a 500.
 */
export function decodeCursor(raw: string): ListCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      isAppTimestamp(value[0]) &&
      UUID.test(value[1])
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // not ours: the caller answers 400
  }
  return undefined;
}

/**
 * A timestamp as the app writes it, in the years both engines hold: SQL Server's `datetime2` runs
 * from 0001 to 9999, so year 0000 or an expanded year (+010000) would make it raise a conversion
 * error where SQLite compares text.
 */
const APP_TIMESTAMP = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isAppTimestamp(value: string): boolean {
  if (!APP_TIMESTAMP.test(value)) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString() === value;
}
