import * as z from 'zod/mini';

/**
 * The value schemas settings are declared with (`setting-declarations.ts`), in `zod/mini`'s
 * functional form: the schema is built on every cold start, and mini's schemas cost a third as much
 * to build and parse as zod's chained API. Each reads a setting's text; a declared default is that
 * text too, so the same schema checks it.
 */

/** Text, trimmed; absent when unset. */
export const optionalString = () => z.optional(z.string().check(z.trim()));

/** `true`/`false` (or `1`/`0`). */
export const booleanFlag = () =>
  z.pipe(
    z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }),
    z.transform((value) => value === 'true' || value === '1'),
  );

/** A comma-separated list, its items trimmed and blanks dropped; empty when unset. */
export const commaList = () =>
  z.pipe(
    z.optional(z.string()),
    z.transform((value) =>
      (value ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    ),
  );

/**
 * A whole number from `min` to `max`, from its decimal text. One check for the three conditions:
 * each check is a schema of its own, built at every cold start.
 */
export const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER, kind = 'a whole number') => {
  const message = max === Number.MAX_SAFE_INTEGER ? `must be ${kind}, at least ${min}` : `must be ${kind} from ${min} to ${max}`;
  return z.coerce.number({ message }).check(z.refine((value) => Number.isInteger(value) && value >= min && value <= max, { message }));
};

/** A number at least 0, from its decimal text. */
export const amount = () => z.coerce.number({ message: 'must be a number' }).check(z.minimum(0));

/** An absolute URL. */
export const absoluteUrl = () => z.url({ message: 'must be an absolute URL' });

/** Text matching `pattern`, `message` otherwise; absent when unset. */
export const optionalMatching = (pattern: RegExp, message: string) => z.optional(z.string().check(z.regex(pattern, { message })));
