/**
 * The one form in which e-mail addresses and phone numbers are stored, compared and sent. Matching
 * a hard bounce or an SMS opt-out against a user's address must not depend on the engine (SQLite
 * compares exactly, SQL Server's default collation folds case and width and ignores trailing
 * spaces), so every address is canonical before it is written or looked up, and the columns that
 * hold them compare exactly.
 */

/** The longest address SMTP allows (64 + 1 + 255), and the column's length. */
export const MAX_EMAIL_LENGTH = 320;

/** Characters people write inside a phone number that carry no meaning. */
const PHONE_SEPARATORS = /[\s().\-\u00a0]/g;
/** E.164: a plus, a country code that does not start with 0, at most 15 digits in all. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * An e-mail address in canonical form: trimmed, NFC, lower case (domains are case-insensitive,
 * and so in practice is every mailbox provider's local part; identity providers hand out lower
 * case too). Undefined when it is not one address: empty, too long, spaces, not one `@`.
 * @param raw an address as received (a verified ID-token claim, a provider's report).
 */
export function canonicalEmail(raw: string): string | undefined {
  const value = raw.trim().normalize('NFC').toLowerCase();
  if (value.length === 0 || value.length > MAX_EMAIL_LENGTH) return undefined;
  return /^[^\s@]+@[^\s@]+$/.test(value) ? value : undefined;
}

/**
 * A phone number in canonical form: E.164 (`+` and 7 to 15 digits), the spaces, dots, dashes and
 * brackets people write removed. Undefined when it is not one.
 * @param raw a number as received (a verified ID-token claim, a provider's report).
 */
export function canonicalPhone(raw: string): string | undefined {
  const value = raw.normalize('NFKC').replace(PHONE_SEPARATORS, '');
  return E164.test(value) ? value : undefined;
}
