/**
 * The common-password list: zxcvbn-ts's `passwords-common` (about 49,000 entries from leaked
 * password corpora, all lower case). Loaded and built into a set on first use, not at import, so
 * modules that only import the rules (and cold starts that never check a password) skip it.
 */
let commonPasswords: ReadonlySet<string> | undefined;

/**
 * True when `password`, compared case-insensitively, is on the common-password list.
 * @param password the candidate, already NFKC-normalised by the caller (`hashedForm`).
 */
export function isCommonPassword(password: string): boolean {
  if (!commonPasswords) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { dictionary } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    commonPasswords = new Set(dictionary['passwords-common']);
  }
  return commonPasswords.has(password.toLowerCase());
}
