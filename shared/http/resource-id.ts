import * as z from 'zod';

/**
 * A resource id in a path (`/children/{id}`): a UUID as the app makes them, in its one stored
 * form, lower case. An id in upper case is the same id: SQLite would not find it as sent, SQL
 * Server's default collation would, so it is lower-cased before any lookup. Anything else is a bad
 * path parameter. Built on first use (`z.lazy`), to keep zod off the cold start.
 */
export const resourceIdParam = z.lazy(() => z.uuid().transform((id) => id.toLowerCase()));
