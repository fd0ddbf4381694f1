import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * The common-password list: zxcvbn-ts's `passwords-common` (about 49,000 entries from leaked
 * password corpora, all lower case). Built into a set on first use, not at import, so modules
 * that only import the rules (and cold starts that never check a password) skip the ~20 ms.
 */
let commonPasswords: ReadonlySet<string> | undefined;

/**
 * True when `password`, compared case-insensitively, is on the common-password list.
 * @param password the candidate, already NFC-normalised by the caller.
 */
export function isCommonPassword(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common']);
  return commonPasswords.has(password.toLowerCase());
}
