import type { FieldError } from './problem';
import { jsonPointer } from './field-errors';

/** As many entries as `fieldErrorsOf` gives at most. */
const MAX_ENTRIES = 20;

const DETAIL = 'Not well-formed Unicode: holds a lone surrogate (\\ud800 to \\udfff without its pair); send I-JSON (RFC 7493).';
const MEMBER_NAME_DETAIL = 'A member name is not well-formed Unicode: it holds a lone surrogate; send I-JSON (RFC 7493).';

/**
 * The `errors` entries of a parsed JSON body whose strings are not all well-formed Unicode
 * (RFC 7493 §2.1: I-JSON carries no lone surrogates). UTF-8 on the wire cannot hold one, but a
 * `\ud800` escape can; such a string would otherwise be stored as sent, or become U+FFFD on its
 * way to UTF-8 (so that `a\ud800b` and `a\udbffb` would be one password). Each entry points at the
 * field; a member name that holds one is reported at its object, since the pointer would repeat
 * the submitted name. Nothing in an entry comes from the value.
 * @param body what `JSON.parse` made of the body.
 * @returns no entries when every string is well-formed.
 */
export function loneSurrogateErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  // Iterative, not recursive (a 16 KiB body can nest thousands of levels deep), and each node
  // links to its parent instead of copying its path: the pointer is spelled out only for an error.
  const pending: Node[] = [{ value: body, parent: undefined, key: '' }];
  while (pending.length > 0 && errors.length < MAX_ENTRIES) {
    const node = pending.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) errors.push({ pointer: pointerOf(node), code: 'lone_surrogate', detail: DETAIL });
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) pending.push({ value: value[index], parent: node, key: index });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      if (entries.some(([name]) => hasLoneSurrogate(name))) {
        errors.push({ pointer: pointerOf(node), code: 'lone_surrogate', detail: MEMBER_NAME_DETAIL });
      }
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [name, member] = entries[index] as [string, unknown];
        if (!hasLoneSurrogate(name)) pending.push({ value: member, parent: node, key: name });
      }
    }
  }
  return errors;
}

/** True when `text` is not well-formed UTF-16. */
export function hasLoneSurrogate(text: string): boolean {
  // In a `u` regex a surrogate pair is one astral code point: only a lone surrogate is category Cs.
  return LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /\p{Cs}/u;

interface Node {
  value: unknown;
  parent: Node | undefined;
  key: string | number;
}

function pointerOf(node: Node): string {
  const path: Array<string | number> = [];
  for (let at: Node | undefined = node; at?.parent !== undefined; at = at.parent) path.push(at.key);
  return jsonPointer(path.reverse());
}
