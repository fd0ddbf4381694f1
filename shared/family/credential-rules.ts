import { usernameIdentity } from '../children/child-username';
import { COMMON_PINS } from './common-pins';
import { isCommonPassword } from './common-passwords';
import { hashedForm } from '../ports/secret-hasher';

/**
 * The rules for child PINs and passwords (contract section 6; usernames have their own module,
 * `child-username.ts`). Every check returns a value, never throws: the endpoint turns a refused
 * PIN or password into 400 `weak_secret`. The `rule` names are for tests and for the endpoint's
 * choice of message; none of them echo the submitted value.
 */

export const CREDENTIAL_LIMITS = {
  pinMinLength: 6,
  pinMaxLength: 12,
  passwordMinLength: 8,
  passwordMaxLength: 128,
} as const;

/**
 * What a valid secret looks like, per kind: the one sentence every refusal of that kind carries
 * (and the API document's example), built from the limits above so that it follows them.
 */
export const SECRET_RULE_SENTENCES = {
  pin: `A PIN has ${CREDENTIAL_LIMITS.pinMinLength} to ${CREDENTIAL_LIMITS.pinMaxLength} digits and must not be common, a run or one repeated digit.`,
  password: `A password has ${CREDENTIAL_LIMITS.passwordMinLength} to ${CREDENTIAL_LIMITS.passwordMaxLength} characters and must not be a common password or the username.`,
} as const;

export type PinRule = 'not_digits' | 'too_short' | 'too_long' | 'repeated' | 'sequence' | 'common';
export type PasswordRule = 'too_short' | 'too_long' | 'common' | 'matches_username';

export type SecretCheck<Rule extends string> = { ok: true } | { ok: false; rule: Rule };

const DIGITS = /^[0-9]*$/;
const COMMON_PIN_SET: ReadonlySet<string> = new Set(COMMON_PINS);

/**
 * Checks a new PIN: 6 to 12 ASCII digits, not one repeated digit (`000000`), not a run up or down
 * (`123456`, `987654`), not one of the 100 most common PINs. Runs wrap around 9→0 and 0→9
 * (`890123`, `1234567890`, `210987`): on a phone keypad 0 follows 9, and people type it that way.
 * @param pin the PIN as submitted.
 * @returns the first rule the PIN breaks, checked in the order listed in `PinRule`.
 */
export function checkPin(pin: string): SecretCheck<PinRule> {
  if (!DIGITS.test(pin)) return { ok: false, rule: 'not_digits' };
  if (pin.length < CREDENTIAL_LIMITS.pinMinLength) return { ok: false, rule: 'too_short' };
  if (pin.length > CREDENTIAL_LIMITS.pinMaxLength) return { ok: false, rule: 'too_long' };
  if (isOneRepeatedDigit(pin)) return { ok: false, rule: 'repeated' };
  if (isRun(pin, 1) || isRun(pin, -1)) return { ok: false, rule: 'sequence' };
  if (COMMON_PIN_SET.has(pin)) return { ok: false, rule: 'common' };
  return { ok: true };
}

/**
 * Checks a new password: 8 to 128 characters (Unicode code points after NFKC normalisation, the
 * form the hasher hashes), not on the common-password list (case-insensitively), and, when the
 * username is given, not the username itself in any spelling (`usernameIdentity`).
 * @param password the password as submitted.
 * @param username the child's username (raw or normalised), when known.
 */
export function checkPassword(password: string, username?: string): SecretCheck<PasswordRule> {
  const normalized = hashedForm(password);
  const length = [...normalized].length;
  if (length < CREDENTIAL_LIMITS.passwordMinLength) return { ok: false, rule: 'too_short' };
  if (length > CREDENTIAL_LIMITS.passwordMaxLength) return { ok: false, rule: 'too_long' };
  if (isCommonPassword(normalized)) return { ok: false, rule: 'common' };
  if (username !== undefined && usernameIdentity(normalized) === usernameIdentity(username)) {
    return { ok: false, rule: 'matches_username' };
  }
  return { ok: true };
}

function isOneRepeatedDigit(pin: string): boolean {
  return [...pin].every((digit) => digit === pin[0]);
}

/** True when each digit is the previous one plus `step`, modulo 10. */
function isRun(pin: string, step: 1 | -1): boolean {
  for (let index = 1; index < pin.length; index += 1) {
    const previous = Number(pin[index - 1]);
    const current = Number(pin[index]);
    if (current !== (previous + step + 10) % 10) return false;
  }
  return true;
}
