import { problem, type Problem } from '../errors/problem';
import { isNameableKey } from '../validation/nameable-key';

/**
 * Refuses a query string that gives one key twice (`?limit=5&limit=7`, or `?limit=5&LIMIT=7`).
 * The Functions host merges such keys, case-insensitively, into one value joined with ","
 * (`"5,7"`, ASP.NET Core's query collection through `ToRpcHttp`) while a plain URL parser keeps
 * the first: the same request would mean different things on different hosts. The raw query string
 * is read from the URL, which every host passes unchanged.
 * @returns a 400 `invalid_request` naming the key (when it looks like a parameter name), else undefined.
 */
export function refuseRepeatedQueryKeys(url: string): Problem | undefined {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  const seen = new Set<string>();
  for (const key of params.keys()) {
    const folded = key.toLowerCase();
    if (seen.has(folded)) {
      const detail = isNameableKey(key)
        ? `Query parameter "${folded}" is given more than once; give it once.`
        : 'A query parameter is given more than once; give each once.';
      return problem('invalid_request', { detail });
    }
    seen.add(folded);
  }
  return undefined;
}
