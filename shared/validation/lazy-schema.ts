import * as z from 'zod/mini';

/**
 * What the app validates input with: a zod schema (`zod/mini`'s have this method) or a
 * `lazySchema`. Callers only parse, so either will do.
 */
export interface Validator<T> {
  safeParse(input: unknown): z.core.util.SafeParseResult<T>;
}

/** A schema built on its first use, then kept. */
export interface LazySchema<S extends z.core.$ZodType> extends Validator<z.output<S>> {
  /** The schema itself (built now if it was not yet). */
  schema(): S;
  /** Parses or throws zod's error (for input that is the app's own, such as a queue message it wrote). */
  parse(input: unknown): z.output<S>;
}

/**
 * Defers building a schema to its first use. Building zod schemas at import costs every cold start
 * for each endpoint's and message's schema, whether or not the instance ever serves that endpoint:
 * about 20 ms of the app's start for its request schemas (`npm run bench`, cold start).
 */
export function lazySchema<S extends z.core.$ZodType>(build: () => S): LazySchema<S> {
  let built: S | undefined;
  const schema = (): S => (built ??= build());
  return {
    schema,
    safeParse: (input) => z.safeParse(schema(), input),
    parse: (input) => z.parse(schema(), input),
  };
}
