import * as z from 'zod/mini';
import { problem, type Problem } from '../errors/problem';
import { lazySchema } from '../validation/lazy-schema';

/**
 * A resource id in a path (`/children/{id}`): a UUID as the app makes them, in its one stored
 * form, lower case. An id in upper case is the same id: SQLite would not find it as sent, SQL
 * Server's default collation would, so it is lower-cased before any lookup. Anything else is a bad
 * path parameter.
 */
export const resourceIdParam = lazySchema(() =>
  z.pipe(
    z.uuid(),
    z.transform((id: string) => id.toLowerCase()),
  ),
);

/** What an id in a path names, with its article, for the sentence of the 400 answer (`id: not a child account id.`). */
export type ResourceNoun = 'a child account' | 'a user' | 'an announcement';

/**
 * The `{id}` of a request's path in its stored form, or the 400 `invalid_request` problem that
 * says which kind of id it is not. Every endpoint under a `{id}` route reads it this way, so the
 * form and the sentence are the same everywhere.
 */
export function resourceIdOf(
  params: Readonly<Record<string, string | undefined>>,
  noun: ResourceNoun,
): { ok: true; id: string } | { ok: false; problem: Problem } {
  const id = resourceIdParam.safeParse(params.id);
  if (!id.success) return { ok: false, problem: problem('invalid_request', { detail: `id: not ${noun} id.` }) };
  return { ok: true, id: id.data };
}

