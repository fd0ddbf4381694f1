/**
 * Child usernames (contract section 6): the one place a submitted username is validated and put
 * into the form the database sees. Nothing relies on an engine's comparison rules: SQL Server
 * ignores trailing spaces in `=` under every collation and Azure's default collation also folds
 * case and width, while SQLite compares exactly. So only a username in its stored form (valid,
 * ASCII lower case) is ever sent to SQL, and the throttle counts every spelling that could be
 * taken for a name under that name.
 */

/** A username in its stored form: 3 to 32 of `a-z 0-9 . _ -` as `checkUsername` accepts it, lower case. */
export type ChildUsername = string & { readonly __childUsername: unique symbol };

export type UsernameRule =
  | 'too_short'
  | 'too_long'
  | 'invalid_characters'
  /** Starts or ends with `.`, `_` or `-`. */
  | 'separator_at_edge'
  /** Two of `.`, `_`, `-` side by side. */
  | 'consecutive_separators';

export type UsernameCheck = { ok: true; username: ChildUsername } | { ok: false; rule: UsernameRule };

export const USERNAME_LIMITS = { minLength: 3, maxLength: 32 } as const;

/** What a valid username looks like: the one sentence every refusal of a new username carries. */
export const USERNAME_RULE_DETAIL =
  '3 to 32 characters of a-z, 0-9, ".", "_" and "-", starting and ending with a letter or digit, no two separators together.';

/** The field-error code of each broken rule (docs/api.md, "OpenAPI document and field errors"). */
export const USERNAME_RULE_FIELD_CODES = {
  too_short: 'too_small',
  too_long: 'too_big',
  invalid_characters: 'invalid_format',
  separator_at_edge: 'invalid_format',
  consecutive_separators: 'invalid_format',
} as const satisfies Record<UsernameRule, string>;

const USERNAME_CHARACTERS = /^[A-Za-z0-9._-]+$/;
const SEPARATOR_AT_EDGE = /^[._-]|[._-]$/;
const CONSECUTIVE_SEPARATORS = /[._-]{2}/;
const STORED_FORM = /^[a-z0-9](?:[a-z0-9]|[._-](?=[a-z0-9])){2,31}$/;
/** Zero-width and other invisible code points: typed by accident or on purpose, never part of a name. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Checks a username: 3 to 32 characters of `a-z 0-9 . _ -`, upper case accepted and folded to
 * lower case (usernames compare case-insensitively). Beyond the contract, a name must start and
 * end with a letter or digit and may not put two separators side by side, so that names a child
 * reads aloud or types on a phone cannot differ only in punctuation (`kid.` vs `kid`, `a..b` vs
 * `a.b`). Only ASCII letters are folded: `toLowerCase` maps some other letters onto ASCII (the
 * Kelvin sign becomes `k`), which would let an invalid name alias a valid one.
 * @param raw the username as submitted.
 * @returns the stored form when valid, else the first rule it breaks.
 */
export function checkUsername(raw: string): UsernameCheck {
  if (raw.length < USERNAME_LIMITS.minLength) return { ok: false, rule: 'too_short' };
  if (raw.length > USERNAME_LIMITS.maxLength) return { ok: false, rule: 'too_long' };
  if (!USERNAME_CHARACTERS.test(raw)) return { ok: false, rule: 'invalid_characters' };
  if (SEPARATOR_AT_EDGE.test(raw)) return { ok: false, rule: 'separator_at_edge' };
  if (CONSECUTIVE_SEPARATORS.test(raw)) return { ok: false, rule: 'consecutive_separators' };
  return { ok: true, username: raw.toLowerCase() as ChildUsername };
}

/** True when `value` is a username in its stored form: what a store may put into a statement. */
export function isChildUsername(value: string): value is ChildUsername {
  return STORED_FORM.test(value);
}

/**
 * The identity a submitted username is throttled under, valid or not: compatibility-normalised
 * (NFKC: full-width `ｋｉｄ` is `kid`), invisible characters removed, trimmed and lower-cased.
 * Every spelling that reads as one name shares its failure count, so `KID `, ` kid` and `ｋｉｄ`
 * cannot each get the free failures of `kid`. For a valid username it is its stored form.
 * @param raw the username as submitted.
 */
export function usernameIdentity(raw: string): string {
  return raw.normalize('NFKC').replace(INVISIBLE, '').trim().toLowerCase().normalize('NFKC');
}

/** What a child sign-in may do with a submitted username. */
export interface SubmittedUsername {
  /** The throttle identity (`usernameIdentity`). */
  identity: string;
  /**
   * The stored form to look up, or null when the submission is not a valid name after ASCII case
   * folding: such a sign-in is answered exactly like an unknown username, without a lookup.
   */
  lookup: ChildUsername | null;
}

/**
 * Reads the username of a sign-in attempt.
 * @param raw the username as submitted (any string; the endpoint bounds its length).
 */
export function readSubmittedUsername(raw: string): SubmittedUsername {
  const checked = checkUsername(raw);
  return { identity: usernameIdentity(raw), lookup: checked.ok ? checked.username : null };
}
