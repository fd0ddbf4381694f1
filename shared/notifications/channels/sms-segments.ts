/**
 * SMS segment counting, from 3GPP TS 23.038 (GSM 03.38) §6.2.1 (the GSM 7-bit default alphabet and
 * its extension table) and TS 23.040 (a concatenated SMS spends 6 octets of each segment's 140 on
 * its user data header). SMS are priced per segment:
 *
 * - GSM-7 (every character in the default alphabet or its extension table): one SMS holds 160
 *   septets; a longer text is sent as segments of 153 septets. Default-alphabet characters take
 *   one septet; extension-table characters (`^ { } \ [ ~ ] | €` and form feed) take two (ESC +
 *   the character), and the two are never split across segments.
 * - UCS-2 (any other character): one SMS holds 70 UTF-16 code units; a longer text is sent as
 *   segments of 67. A surrogate pair (emoji and other characters outside the BMP) takes two units
 *   and is never split across segments.
 *
 * Segments are packed greedily (each is filled until the next character does not fit), which is
 * how phones and providers split text, so an escape pair or a surrogate pair at a boundary can cost
 * one more segment than `ceil(units / 153)` or `ceil(units / 67)`.
 *
 * National language shift tables (TS 23.038 §6.2.1.2.4) are not used: a text outside the default
 * alphabet and its extension table is UCS-2.
 */

/** The encoding an SMS text is sent in. */
export type SmsEncoding = 'gsm7' | 'ucs2';

/** The size of an SMS text: its encoding, its length in that encoding's units, and its segments. */
export interface SmsSize {
  encoding: SmsEncoding;
  /** Septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2. */
  units: number;
  /** The segments it is sent (and priced) as; 1 for the empty text. */
  segments: number;
}

/** GSM-7: the septets of a single SMS, and of each segment of a concatenated one. */
export const GSM7_SINGLE_UNITS = 160;
export const GSM7_SEGMENT_UNITS = 153;
/** UCS-2: the code units of a single SMS, and of each segment of a concatenated one. */
export const UCS2_SINGLE_UNITS = 70;
export const UCS2_SEGMENT_UNITS = 67;

/** The marker that ends a cut text: three GSM-7 full stops (`…` is not in GSM-7 and would force UCS-2). */
export const SMS_CUT_MARKER = '...';

/**
 * The GSM 7-bit default alphabet (TS 23.038 §6.2.1, codes 0x00–0x7F in order, without 0x1B, the
 * escape to the extension table). 0x09 is the capital `Ç`, as in the specification.
 */
const GSM7_DEFAULT =
  '@£$¥èéùìòÇ\nØø\rÅå' +
  'Δ_ΦΓΛΩΠΨΣΘΞ' /* 0x1B ESC */ +
  'ÆæßÉ' +
  ' !"#¤%&\'()*+,-./' +
  '0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNO' +
  'PQRSTUVWXYZÄÖÑÜ§' +
  '¿abcdefghijklmno' +
  'pqrstuvwxyzäöñüà';

/** The default extension table (TS 23.038 §6.2.1.1): each character is ESC + one septet. */
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const GSM7_ONE = new Set(GSM7_DEFAULT);
const GSM7_TWO = new Set(GSM7_EXTENSION);

/** The septets a character takes in GSM-7 (1 or 2), or undefined when it is not in GSM-7. */
function gsm7Septets(char: string): 1 | 2 | undefined {
  if (GSM7_ONE.has(char)) return 1;
  if (GSM7_TWO.has(char)) return 2;
  return undefined;
}

/**
 * The encoding `text` is sent in: `gsm7` when every character is in the GSM 7-bit default alphabet
 * or its extension table, else `ucs2`.
 * @param text the SMS text.
 */
export function smsEncoding(text: string): SmsEncoding {
  for (const char of text) if (gsm7Septets(char) === undefined) return 'ucs2';
  return 'gsm7';
}

/**
 * The encoding, length and segment count of `text` (see the module's rules). The empty text is
 * 0 units and, consistently, 1 segment (an SMS is at least one segment; an empty one is never sent).
 * @param text the SMS text.
 */
export function smsSegments(text: string): SmsSize {
  return sizeIn(text, smsEncoding(text));
}

/**
 * `text` when it fits in `maxSegments` segments; else the longest prefix of it (whole characters:
 * never half of a surrogate pair) that, with trailing whitespace trimmed and `...` appended, fits
 * in `maxSegments` segments of the encoding of `text` itself.
 * @param text the SMS text.
 * @param maxSegments the segments allowed, a positive integer.
 * @throws Error when `maxSegments` is not a positive integer (a caller bug).
 */
export function fitSmsText(text: string, maxSegments: number): string {
  if (!Number.isSafeInteger(maxSegments) || maxSegments < 1) {
    throw new Error(`fitSmsText: maxSegments must be a positive integer, got ${String(maxSegments)}`);
  }
  const encoding = smsEncoding(text);
  if (sizeIn(text, encoding).segments <= maxSegments) return text;
  const chars = Array.from(text);
  const fits = (count: number) => sizeIn(chars.slice(0, count).join('') + SMS_CUT_MARKER, encoding).segments <= maxSegments;
  // Segments grow with the prefix (greedy packing), so the longest prefix that fits is found by bisection.
  let low = 0;
  let high = chars.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return chars.slice(0, low).join('').trimEnd() + SMS_CUT_MARKER;
}

/** The size of `text` counted in `encoding` (every character of `text` must be in it for `gsm7`). */
function sizeIn(text: string, encoding: SmsEncoding): SmsSize {
  const single = encoding === 'gsm7' ? GSM7_SINGLE_UNITS : UCS2_SINGLE_UNITS;
  const perSegment = encoding === 'gsm7' ? GSM7_SEGMENT_UNITS : UCS2_SEGMENT_UNITS;
  let units = 0;
  let segments = 1;
  let used = 0;
  for (const char of text) {
    // A code point: one or two UTF-16 units (a surrogate pair) in UCS-2, one or two septets in GSM-7.
    const width = encoding === 'gsm7' ? (gsm7Septets(char) ?? 1) : char.length;
    units += width;
    if (used + width > perSegment) {
      segments += 1;
      used = 0;
    }
    used += width;
  }
  return { encoding, units, segments: units <= single ? 1 : segments };
}
