import { describe, expect, it } from 'vitest';
import { fitSmsText, SMS_CUT_MARKER, smsEncoding, smsSegments, type SmsSize } from './sms-segments';

/** The GSM 7-bit default alphabet, 0x00–0x7F without ESC (0x1B). */
const GSM_DEFAULT =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '^{}\\[~]|€\f';
const EMOJI = '😀'; // U+1F600: a surrogate pair, 2 UTF-16 units
const UCS = 'ж'; // U+0436: one UTF-16 unit, not in GSM-7

const a = (count: number) => 'a'.repeat(count);
const ucs = (count: number) => UCS.repeat(count);

describe('smsEncoding', () => {
  it('is GSM-7 for the whole default alphabet (127 characters) and the extension table', () => {
    expect(Array.from(GSM_DEFAULT)).toHaveLength(127);
    expect(smsEncoding(GSM_DEFAULT)).toBe('gsm7');
    expect(smsEncoding(GSM_EXTENSION)).toBe('gsm7');
  });

  it.each(['Δ', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ'])('keeps the Greek capital %s in GSM-7', (greek) => {
    expect(smsSegments(`Hello ${greek}`)).toEqual({ encoding: 'gsm7', units: 7, segments: 1 });
  });

  it.each([
    ['the ellipsis character', '…'],
    ['a Greek capital not in GSM-7', 'Α'], // U+0391 ALPHA looks like A but is not in the alphabet
    ['a Greek small letter', 'δ'],
    ['a small c cedilla (only the capital is at 0x09)', 'ç'],
    ['a curly apostrophe', '’'],
    ['a no-break space', '\u00a0'],
    ['a tab', '\t'],
    ['the escape character itself', '\u001b'],
    ['an emoji', EMOJI],
    ['Cyrillic', UCS],
    ['a backtick', '`'],
  ])('is UCS-2 with %s', (_label, char) => {
    expect(smsEncoding(`Hello ${char}`)).toBe('ucs2');
  });

  it('is GSM-7 for the empty text', () => {
    expect(smsEncoding('')).toBe('gsm7');
  });
});

describe('smsSegments', () => {
  it.each<[string, string, SmsSize]>([
    ['the empty text', '', { encoding: 'gsm7', units: 0, segments: 1 }],
    ['1 GSM character', 'a', { encoding: 'gsm7', units: 1, segments: 1 }],
    ['160 GSM septets', a(160), { encoding: 'gsm7', units: 160, segments: 1 }],
    ['161 GSM septets', a(161), { encoding: 'gsm7', units: 161, segments: 2 }],
    ['153 × 2 = 306 GSM septets', a(306), { encoding: 'gsm7', units: 306, segments: 2 }],
    ['307 GSM septets', a(307), { encoding: 'gsm7', units: 307, segments: 3 }],
    ['153 × 3 = 459 GSM septets', a(459), { encoding: 'gsm7', units: 459, segments: 3 }],
    ['460 GSM septets', a(460), { encoding: 'gsm7', units: 460, segments: 4 }],
    ['400 GSM characters', a(400), { encoding: 'gsm7', units: 400, segments: 3 }],
    ['1 UCS-2 character', UCS, { encoding: 'ucs2', units: 1, segments: 1 }],
    ['70 UCS-2 units', ucs(70), { encoding: 'ucs2', units: 70, segments: 1 }],
    ['71 UCS-2 units', ucs(71), { encoding: 'ucs2', units: 71, segments: 2 }],
    ['67 × 2 = 134 UCS-2 units', ucs(134), { encoding: 'ucs2', units: 134, segments: 2 }],
    ['135 UCS-2 units', ucs(135), { encoding: 'ucs2', units: 135, segments: 3 }],
    // 400 / 67 = 5.97: 6 segments (the "7 segments" does not follow from the spec for 400 BMP characters).
    ['400 UCS-2 units of BMP characters', ucs(400), { encoding: 'ucs2', units: 400, segments: 6 }],
    // 200 emoji are 400 units too, but a pair is never split: 33 emoji (66 units) per segment, ceil(200 / 33) = 7.
    ['200 emoji (400 UCS-2 units)', EMOJI.repeat(200), { encoding: 'ucs2', units: 400, segments: 7 }],
    ['one UCS-2 character among GSM text', `${a(69)}${UCS}`, { encoding: 'ucs2', units: 70, segments: 1 }],
    ['one UCS-2 character making 71 units', `${a(70)}${UCS}`, { encoding: 'ucs2', units: 71, segments: 2 }],
  ])('counts %s', (_label, text, size) => {
    expect(smsSegments(text)).toEqual(size);
  });

  it.each([...GSM_EXTENSION])('counts the extension character %j as 2 septets', (char) => {
    expect(smsSegments(char)).toEqual({ encoding: 'gsm7', units: 2, segments: 1 });
    expect(smsSegments(`${a(158)}${char}`)).toEqual({ encoding: 'gsm7', units: 160, segments: 1 });
    expect(smsSegments(`${a(159)}${char}`)).toEqual({ encoding: 'gsm7', units: 161, segments: 2 });
  });

  it('counts € as 2 septets: 80 of them fill one SMS, 81 need two', () => {
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'gsm7', units: 160, segments: 1 });
    expect(smsSegments('€'.repeat(81))).toEqual({ encoding: 'gsm7', units: 162, segments: 2 });
  });

  it('never splits an escape pair across a GSM-7 segment boundary', () => {
    // 152 septets + `{` (2) would straddle the 153 boundary: it moves to segment 2.
    expect(smsSegments(`${a(152)}{${a(152)}`)).toEqual({ encoding: 'gsm7', units: 306, segments: 3 });
    // Greedy: the same 306 septets split cleanly need only 2.
    expect(smsSegments(`${a(151)}{${a(153)}`)).toEqual({ encoding: 'gsm7', units: 306, segments: 2 });
    // 153 `{`-free septets then `{`: the pair starts segment 2.
    expect(smsSegments(`${a(153)}{${a(151)}`)).toEqual({ encoding: 'gsm7', units: 306, segments: 2 });
    // 153 × 2 septets of only escape pairs: 76 pairs (152 septets) per segment, so 153 pairs need 3.
    expect(smsSegments('€'.repeat(153))).toEqual({ encoding: 'gsm7', units: 306, segments: 3 });
  });

  it('never splits a surrogate pair across a UCS-2 segment boundary', () => {
    // 66 units + an emoji (2) would straddle the 67 boundary: it moves to segment 2.
    expect(smsSegments(`${ucs(66)}${EMOJI}${ucs(66)}`)).toEqual({ encoding: 'ucs2', units: 134, segments: 3 });
    expect(smsSegments(`${ucs(65)}${EMOJI}${ucs(67)}`)).toEqual({ encoding: 'ucs2', units: 134, segments: 2 });
    expect(smsSegments(`${ucs(67)}${EMOJI}${ucs(65)}`)).toEqual({ encoding: 'ucs2', units: 134, segments: 2 });
    // A single SMS holds 70 units whatever they are: 35 emoji.
    expect(smsSegments(EMOJI.repeat(35))).toEqual({ encoding: 'ucs2', units: 70, segments: 1 });
    expect(smsSegments(`${ucs(69)}${EMOJI}`)).toEqual({ encoding: 'ucs2', units: 71, segments: 2 });
  });
});

describe('fitSmsText', () => {
  it.each<[string, string, number]>([
    ['160 GSM septets in 1', a(160), 1],
    ['306 GSM septets in 2', a(306), 2],
    ['70 UCS-2 units in 1', ucs(70), 1],
    ['134 UCS-2 units in 2', ucs(134), 2],
    ['the empty text', '', 1],
    ['a text with trailing spaces', 'Bake sale   ', 1],
  ])('keeps a text that fits unchanged: %s', (_label, text, maxSegments) => {
    expect(fitSmsText(text, maxSegments)).toBe(text);
  });

  it.each<[string, string, number, string]>([
    ['161 GSM septets into 1', a(161), 1, `${a(157)}...`],
    ['307 GSM septets into 2', a(307), 2, `${a(303)}...`],
    ['500 GSM septets into 3', a(500), 3, `${a(456)}...`],
    ['71 UCS-2 units into 1', ucs(71), 1, `${ucs(67)}...`],
    ['135 UCS-2 units into 2', ucs(135), 2, `${ucs(131)}...`],
    ['400 UCS-2 units into 1', ucs(400), 1, `${ucs(67)}...`],
    // An escape pair that would end past the limit is dropped whole.
    ['GSM text with € at the cut', `${a(156)}€${a(10)}`, 1, `${a(156)}...`],
    ['GSM text with € just inside', `${a(155)}€${a(10)}`, 1, `${a(155)}€...`],
  ])('cuts %s', (_label, text, maxSegments, expected) => {
    const fitted = fitSmsText(text, maxSegments);
    expect(fitted).toBe(expected);
    expect(smsSegments(fitted).segments).toBeLessThanOrEqual(maxSegments);
    expect(smsSegments(fitted).encoding).toBe(smsEncoding(text));
  });

  it('never splits a surrogate pair: an emoji straddling the cut is dropped whole', () => {
    const fitted = fitSmsText(`${ucs(66)}${EMOJI}${ucs(10)}`, 1);
    expect(fitted).toBe(`${ucs(66)}...`);
    expect(fitSmsText(`${ucs(65)}${EMOJI}${ucs(10)}`, 1)).toBe(`${ucs(65)}${EMOJI}...`);
    expect(fitSmsText(EMOJI.repeat(40), 1)).toBe(`${EMOJI.repeat(33)}...`);
    // No lone surrogate anywhere in the result.
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(fitSmsText(EMOJI.repeat(200), 2))).toBe(false);
  });

  it('trims trailing whitespace before the marker', () => {
    expect(fitSmsText(`${a(150)}      \n   ${a(20)}`, 1)).toBe(`${a(150)}...`);
    expect(fitSmsText(`${ucs(60)}${' '.repeat(10)}${ucs(20)}`, 1)).toBe(`${ucs(60)}...`);
  });

  it('uses `...`, never `…`, so a GSM-7 text stays GSM-7', () => {
    const fitted = fitSmsText(`Bake sale moved\n${'To the gym, bring cakes. '.repeat(10)}`, 1);
    expect(fitted.endsWith('...')).toBe(true);
    expect(fitted).not.toContain('…');
    expect(smsSegments(fitted)).toMatchObject({ encoding: 'gsm7', segments: 1 });
  });

  it.each(
    [1, 2, 3, 5].flatMap((maxSegments) =>
      [
        'Bake sale moved to the gym! Bring {cakes} & [cookies] ~ €5 each | ^_^ ',
        'Soirée dansante: Ça commence à 20h — venez nombreux 🎉🎉 ',
        'ΔΦΓΛΩΠΨΣΘΞ Greek capitals in GSM-7 ',
        'Привет всем! Встреча в субботу 😀 ',
        '😀🎉👍'.repeat(3),
      ].map((unit) => [maxSegments, unit] as const),
    ),
  )('fits any text into %i segments and marks the cut: %s', (maxSegments, unit) => {
    const text = unit.repeat(40);
    const fitted = fitSmsText(text, maxSegments);
    const size = smsSegments(fitted);
    expect(size.segments).toBeLessThanOrEqual(maxSegments);
    expect(fitted.endsWith('...')).toBe(true);
    const kept = fitted.slice(0, -SMS_CUT_MARKER.length);
    expect(text.startsWith(kept)).toBe(true);
    expect(kept).toBe(kept.trimEnd());
    // The longest: one more character of the text would no longer fit (checked where the result keeps the text's encoding).
    const longer = `${Array.from(text).slice(0, Array.from(kept).length + 1).join('')}${SMS_CUT_MARKER}`;
    if (kept.length > 0 && !/\s$/u.test(longer.slice(0, -SMS_CUT_MARKER.length)) && smsEncoding(longer) === smsEncoding(text)) {
      expect(smsSegments(longer).segments).toBeGreaterThan(maxSegments);
    }
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects %s segments as a bug', (maxSegments) => {
    expect(() => fitSmsText('hello', maxSegments)).toThrow(/maxSegments must be a positive integer/);
  });
});
