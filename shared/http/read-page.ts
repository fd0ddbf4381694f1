import type { HttpRequest } from '@azure/functions';
import { problem, type Problem } from '../errors/problem';
import { decodeCursor, type ListCursor } from '../users/user-store';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** `?limit=` (1 to 200, default 50) and `?cursor=` (a `nextCursor` from an earlier page) of a list endpoint. */
export function readPage(request: HttpRequest): { ok: true; value: { limit: number; after?: ListCursor } } | { ok: false; problem: Problem } {
  const rawLimit = request.query.get('limit');
  const limit = rawLimit === null ? DEFAULT_PAGE_SIZE : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    return { ok: false, problem: problem('invalid_request', { detail: `limit: a whole number from 1 to ${MAX_PAGE_SIZE}.` }) };
  }
  const rawCursor = request.query.get('cursor');
  if (rawCursor === null) return { ok: true, value: { limit } };
  const after = rawCursor.length <= 512 ? decodeCursor(rawCursor) : undefined;
  if (!after) return { ok: false, problem: problem('invalid_request', { detail: 'cursor: not a cursor this API gave out.' }) };
  return { ok: true, value: { limit, after } };
}
