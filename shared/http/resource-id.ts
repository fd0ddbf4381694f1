import * as z from 'zod/mini';
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
