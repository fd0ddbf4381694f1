import type * as z from 'zod/mini';
import type { FieldError } from './problem';
import { isNameableKey } from '../validation/nameable-key';

/** Enough for any body the API takes; a 16 KiB body of a thousand bad items still gets a bounded answer. */
const MAX_FIELD_ERRORS = 20;
/** How many of them the top-level `detail` names. */
const SUMMARIZED = 5;

/**
 * The `errors` entries of a body that broke its schema: one per failing field, each a JSON Pointer
 * into the body as sent, a code and what a valid value looks like. Nothing in them comes from the
 * submitted value; only the schema's own words (keys, allowed values, limits, the messages of its
 * refinements), and the name of an unknown member when it is a plain name (`/nickname`): one that
 * is not (submitted text that could be data) is pointed at through its object.
 * @param issues zod's issues for `input`.
 * @param input the parsed body, to tell a missing field from one of the wrong type.
 */
export function fieldErrorsOf(issues: readonly z.core.$ZodIssue[], input: unknown): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const entry of issues.flatMap((issue) => entriesOf(issue, [], input))) {
    if (seen.has(entry.pointer)) continue;
    seen.add(entry.pointer);
    errors.push(entry);
    if (errors.length === MAX_FIELD_ERRORS) break;
  }
  return errors;
}

/** The top-level `detail` of a problem carrying `errors`: the first few entries, in one sentence each. */
export function summarizeFieldErrors(errors: readonly FieldError[], subject = 'body'): string {
  const named = errors.slice(0, SUMMARIZED).map((entry) => `${entry.pointer === '' ? `the ${subject}` : entry.pointer}: ${entry.detail}`);
  const more = errors.length > SUMMARIZED ? ` (and ${errors.length - SUMMARIZED} more)` : '';
  return `Invalid ${subject}: ${named.join(' ')}${more}`;
}

/** RFC 6901: `~` and `/` escaped inside a segment. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path
    .filter((segment): segment is string | number => typeof segment !== 'symbol')
    .map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
}

function entriesOf(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[], input: unknown): FieldError[] {
  const path = [...prefix, ...issue.path];
  const pointer = jsonPointer(path);
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(input, path) === undefined
        ? [{ pointer, code: 'required', detail: 'Required.' }]
        : [{ pointer, code: 'invalid_type', detail: `Expected ${article(issue.expected)}.` }];
    case 'too_small':
      return [{ pointer, code: 'too_small', detail: `At least ${String(issue.minimum)}${unitOf(issue.origin, issue.minimum)}.` }];
    case 'too_big':
      return [{ pointer, code: 'too_big', detail: `At most ${String(issue.maximum)}${unitOf(issue.origin, issue.maximum)}.` }];
    case 'invalid_format':
      return [{ pointer, code: 'invalid_format', detail: issue.format === 'regex' ? 'Not in the expected format.' : `Not a valid ${issue.format}.` }];
    case 'invalid_value':
      return [{ pointer, code: 'invalid_value', detail: `One of: ${issue.values.map((value) => String(value)).join(', ')}.` }];
    case 'unrecognized_keys':
      return issue.keys.map((key) =>
        isNameableKey(key)
          ? { pointer: jsonPointer([...path, key]), code: 'unknown_field', detail: 'Unknown field; remove it.' }
          : { pointer, code: 'unknown_field', detail: 'Unknown fields are not allowed; remove them.' },
      );
    case 'invalid_union':
      return unionEntries(issue, path, input);
    case 'custom':
      // A refinement's message is the schema author's sentence, never the value; it may name its
      // entry's code (`params.fieldCode`, e.g. `too_small` for a username rule).
      return [{ pointer, code: fieldCodeOf(issue.params) ?? 'invalid', detail: sentence(issue.message) }];
    default:
      return [{ pointer, code: 'invalid', detail: 'Invalid.' }];
  }
}

/**
 * A union (a PIN or a password) fails as one issue holding each alternative's issues. The
 * alternative with the fewest failing fields is what the client meant (`pin` sent as a number);
 * when several are as close (both `pin` and `password`, or neither), the fields every alternative
 * agrees on are named, and the union's own message says how to choose.
 */
function unionEntries(issue: z.core.$ZodIssue & { code: 'invalid_union' }, path: readonly PropertyKey[], input: unknown): FieldError[] {
  const alternatives = issue.errors.map((branch) => dedupe(branch.flatMap((inner) => entriesOf(inner, path, input))));
  if (alternatives.length === 0) return [{ pointer: jsonPointer(path), code: 'invalid', detail: 'Invalid.' }];
  const fewest = Math.min(...alternatives.map((entries) => entries.length));
  const closest = alternatives.filter((entries) => entries.length === fewest);
  if (closest.length === 1) return closest[0] ?? [];
  const key = (entry: FieldError) => `${entry.pointer}\u0000${entry.code}`;
  const shared = (closest[0] ?? []).filter((entry) => closest.every((entries) => entries.some((other) => key(other) === key(entry))));
  const choose = { pointer: jsonPointer(path), code: 'invalid', detail: issue.message && issue.message !== 'Invalid input' ? sentence(issue.message) : 'Matches none of the allowed forms.' };
  return [choose, ...shared.filter((entry) => entry.pointer !== choose.pointer)];
}

/** The codes a refinement may give its entry (docs/api.md, "OpenAPI document and field errors"). */
const REFINEMENT_CODES = new Set(['too_small', 'too_big', 'invalid_format', 'invalid_value', 'invalid']);

function fieldCodeOf(params: Record<string, unknown> | undefined): string | undefined {
  const code = params?.fieldCode;
  return typeof code === 'string' && REFINEMENT_CODES.has(code) ? code : undefined;
}

function dedupe(entries: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return entries.filter((entry) => (seen.has(entry.pointer) ? false : (seen.add(entry.pointer), true)));
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || typeof segment === 'symbol') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

function unitOf(origin: string, count: number | bigint): string {
  const plural = Number(count) === 1 ? '' : 's';
  if (origin === 'string') return ` character${plural}`;
  if (origin === 'array' || origin === 'set') return ` item${plural}`;
  return '';
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
