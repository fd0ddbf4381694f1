/**
 * The last line of defence against secrets and personal data in log lines and telemetry: whatever
 * slipped past the field-level redaction (an error message quoting a token, a library's stack
 * trace with an e-mail address) is replaced by `REDACTION_MARKER` before a line leaves the process.
 */

export const REDACTION_MARKER = '[REDACTED]';

/** The domain of an e-mail address, matched where an `@` stands. */
const EMAIL_DOMAIN = /[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/y;

/** `[A-Za-z0-9._%+-]`: what the local part of an e-mail address is made of. */
function isLocalPartChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 46 || // .
    code === 95 || // _
    code === 37 || // %
    code === 43 || // +
    code === 45 // -
  );
}

/**
 * Replaces every e-mail address: exactly what `/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g`
 * replaces, found from each `@` instead. That pattern tries every position of every word and cost a
 * fifth of the logger's time; this costs one search for `@` on a line without one.
 */
function scrubEmailAddresses(text: string): string {
  let at = text.indexOf('@');
  if (at === -1) return text;
  let result = '';
  // Text before `copied` is in `result`; a match never starts inside the previous one.
  let copied = 0;
  while (at !== -1) {
    let start = at;
    while (start > copied && isLocalPartChar(text.charCodeAt(start - 1))) start -= 1;
    if (start < at) {
      EMAIL_DOMAIN.lastIndex = at + 1;
      if (EMAIL_DOMAIN.test(text)) {
        result += text.slice(copied, start) + REDACTION_MARKER;
        copied = EMAIL_DOMAIN.lastIndex;
        at = text.indexOf('@', copied);
        continue;
      }
    }
    at = text.indexOf('@', at + 1);
  }
  return copied === 0 ? text : result + text.slice(copied);
}

// Each pattern only ever matches characters that are legal inside a JSON string, and a backslash
// only with the character it escapes, so a JSON line stays valid JSON.
/** Bearer credentials, whatever the token looks like. */
const BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi;
/** JWT / JWS compact form: a base64url JSON header ("eyJ") and at least one more segment. */
const JWT = /\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,4}/g;
/** Expo push tokens (device addresses). */
const EXPO_PUSH_TOKEN = /\b(?:Exponent|Expo)PushToken\[[^\]"\s]*\]/g;
/** Argon2 PHC strings. */
const ARGON2_HASH = /\$argon2(?:id|i|d)\$[A-Za-z0-9$=,+/.]+/g;
/** International phone numbers: a plus sign, then 7 to 15 digits with common separators. */
const INTERNATIONAL_PHONE = /\+\d(?:[\s().-]?\d){6,14}\b/g;
/** National numbers written with separators, e.g. (555) 123-4567 or 555.123.4567; dates and times do not fit. */
const NATIONAL_PHONE = /\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b/g;
/** Secrets inside connection strings; the key stays. */
const CONNECTION_STRING_SECRET = /\b(AccountKey|SharedAccessKey|AccessKey|Password|Pwd|InstrumentationKey|sig)=(?:[^;"\s&\\]|\\.)+/gi;

function replaceAll(text: string, pattern: RegExp): string {
  return text.replace(pattern, (match, key?: string) =>
    typeof key === 'string' && match.startsWith(key) ? `${key}=${REDACTION_MARKER}` : REDACTION_MARKER,
  );
}

/**
 * Replaces JWT-shaped strings, bearer tokens, Expo push tokens, Argon2 hashes, e-mail addresses,
 * phone numbers and connection-string secrets with `REDACTION_MARKER` (connection-string keys stay).
 *
 * Every log line passes here, so a pattern runs only on text that holds something it cannot match
 * without: one character (`J` of `eyJ`, `$`, `+`, `=`, the `@` the e-mail scan starts from) or a
 * long literal, the searches that cost a tenth of a pattern's scan. Bearer tokens (any case) and
 * national numbers have no such mark and are always scanned. The order is the order the patterns
 * always ran in: a later one sees the earlier markers.
 * @param text any text; a serialized JSON log line stays valid JSON.
 */
export function scrubSecrets(text: string): string {
  let result = replaceAll(text, BEARER);
  if (result.includes('J')) result = replaceAll(result, JWT);
  if (result.includes('PushToken[')) result = replaceAll(result, EXPO_PUSH_TOKEN);
  if (result.includes('$')) result = replaceAll(result, ARGON2_HASH);
  result = scrubEmailAddresses(result);
  if (result.includes('+')) result = replaceAll(result, INTERNATIONAL_PHONE);
  result = replaceAll(result, NATIONAL_PHONE);
  if (result.includes('=')) result = replaceAll(result, CONNECTION_STRING_SECRET);
  return result;
}
