/** A key short and plain enough to name back in an answer: it is submitted text. */
const NAMEABLE_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/**
 * Whether a key the client sent (a query parameter, an unknown member of a body) may be named in
 * the answer: a plain, short name is what a client developer needs to find the mistake, while
 * anything else (an address, digits, spaces, a long string) could be data sent in the wrong
 * place, so the answer points at its object instead.
 */
export function isNameableKey(key: string): boolean {
  return NAMEABLE_KEY.test(key);
}
