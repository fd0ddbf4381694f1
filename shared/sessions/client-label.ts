/**
 * The coarse label a session shows in `GET /api/v1/me/sessions` ("iOS app", "Windows browser"):
 * enough for a person to recognise their own devices, nothing that fingerprints one. Only the
 * label is kept, from this fixed set; the `User-Agent` header itself is never stored or logged.
 */

export const CLIENT_LABELS = [
  'iOS app',
  'Android app',
  'iOS browser',
  'Android browser',
  'Windows browser',
  'macOS browser',
  'ChromeOS browser',
  'Linux browser',
  'browser',
  'unknown',
] as const;
export type ClientLabel = (typeof CLIENT_LABELS)[number];

/** The label of a session started before labels existed, or by a client that sent nothing useful. */
export const UNKNOWN_CLIENT: ClientLabel = 'unknown';

/** Only the start of a header is read: the markers sit there, and a 16 KiB header costs nothing more. */
const MAX_INSPECTED_CHARS = 512;

const BROWSER_PLATFORMS: readonly (readonly [RegExp, ClientLabel])[] = [
  // Before Android and Linux: iPadOS in desktop mode says Macintosh, but nothing iOS says Android.
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS browser'],
  [/\bAndroid\b/, 'Android browser'],
  [/\bCrOS\b/, 'ChromeOS browser'],
  [/\bWindows\b/, 'Windows browser'],
  [/\b(?:Macintosh|Mac OS X)\b/, 'macOS browser'],
  [/\b(?:Linux|X11)\b/, 'Linux browser'],
];

/**
 * The label for a `User-Agent` header. Native apps are recognised by their HTTP stacks, which is
 * what React Native and Expo apps send: `CFNetwork/… Darwin/…` on iOS, `okhttp/…` (or Dalvik) on
 * Android, or a platform name in an app's own `User-Agent`. Browsers say `Mozilla/5.0 (<platform> …)`. Anything else (curl, scripts, no header) is
 * `unknown`.
 * @param userAgent the raw header, or null when absent; it is read, never kept.
 */
export function clientLabelOf(userAgent: string | null): ClientLabel {
  if (!userAgent) return UNKNOWN_CLIENT;
  const head = userAgent.slice(0, MAX_INSPECTED_CHARS);
  if (/^Mozilla\/5\.0 \(/.test(head)) {
    for (const [pattern, label] of BROWSER_PLATFORMS) if (pattern.test(head)) return label;
    return 'browser';
  }
  if (/\bokhttp\/|\bDalvik\/|\bAndroid\b/.test(head)) return 'Android app';
  if (/\bCFNetwork\/|\bDarwin\/|\b(?:iOS|iPhone|iPad|iPadOS)\b/.test(head)) return 'iOS app';
  return UNKNOWN_CLIENT;
}

/** A stored label as the API shows it: anything not in the set (never written, but never trusted) is `unknown`. */
export function toClientLabel(stored: string | null | undefined): ClientLabel {
  return (CLIENT_LABELS as readonly string[]).includes(stored ?? '') ? (stored as ClientLabel) : UNKNOWN_CLIENT;
}
