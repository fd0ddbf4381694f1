/**
 * The last line of defence against secrets and personal data in log lines and telemetry: whatever
 * slipped past the field-level redaction (an error message quoting a token, a library's stack
 * trace with an e-mail address) is replaced by `REDACTION_MARKER` before a line leaves the process.
 */

export const REDACTION_MARKER = '[REDACTED]';

/** Each pattern only ever matches characters that are legal inside a JSON string, so the line stays valid JSON. */
const PATTERNS: readonly RegExp[] = [
  // Bearer credentials, whatever the token looks like.
  /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi,
  // JWT / JWS compact form: a base64url JSON header ("eyJ") and at least one more segment.
  /\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,4}/g,
  // Expo push tokens (device addresses).
  /\b(?:Exponent|Expo)PushToken\[[^\]"\s]*\]/g,
  // Argon2 PHC strings.
  /\$argon2(?:id|i|d)\$[A-Za-z0-9$=,+/.]+/g,
  // E-mail addresses.
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
  // International phone numbers: a plus sign, then 7 to 15 digits with common separators.
  /\+\d(?:[\s().-]?\d){6,14}\b/g,
  // National numbers written with separators, e.g. (555) 123-4567 or 555.123.4567; dates and times do not fit.
  /\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b/g,
  // Secrets inside connection strings.
  /\b(AccountKey|SharedAccessKey|AccessKey|Password|Pwd|InstrumentationKey|sig)=[^;"\s&]+/gi,
];

/**
 * Replaces JWT-shaped strings, bearer tokens, Argon2 hashes, e-mail addresses, phone numbers and
 * connection-string secrets with `REDACTION_MARKER`.
 * @param text any text; a serialized JSON log line stays valid JSON.
 */
export function scrubSecrets(text: string): string {
  let result = text;
  for (const pattern of PATTERNS) {
    result = result.replace(pattern, (match, key?: string) =>
      typeof key === 'string' && match.startsWith(key) ? `${key}=${REDACTION_MARKER}` : REDACTION_MARKER,
    );
  }
  return result;
}
