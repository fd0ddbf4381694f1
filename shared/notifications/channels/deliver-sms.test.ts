import { describe, expect, it } from 'vitest';
import { SMS_MAX_SEGMENTS, smsText } from './deliver-sms';
import { keyOfSmsReportTag, smsReportTag } from '../ledger/sms-report-tag';
import { smsSegments } from './sms-segments';

describe('the SMS of an announcement', () => {
  it('carries title and body, cut to fit three segments of its own encoding with a GSM-7 marker', () => {
    expect(smsText('Bake sale', 'In the gym.')).toBe('Bake sale\nIn the gym.');
    const long = smsText('Sports day', 'x'.repeat(1000));
    expect(smsSegments(long)).toMatchObject({ encoding: 'gsm7', segments: SMS_MAX_SEGMENTS });
    expect(long.endsWith('...')).toBe(true);
    const greek = smsText('Σχολική γιορτή', 'ώ'.repeat(400));
    expect(smsSegments(greek)).toMatchObject({ encoding: 'ucs2', segments: SMS_MAX_SEGMENTS });
  });

  it('names its ledger row in the tag, and reads back only tags of that shape', () => {
    const tag = smsReportTag({ announcementId: '0b9dc8ec-6f2f-4ea6-9045-234292aa847c', userId: 'bb09faf3-e562-45f3-83e9-5a68fe29bdf1' });
    expect(keyOfSmsReportTag(tag)).toEqual({
      announcementId: '0b9dc8ec-6f2f-4ea6-9045-234292aa847c',
      userId: 'bb09faf3-e562-45f3-83e9-5a68fe29bdf1',
      channel: 'sms',
    });
    for (const foreign of [undefined, 42, '', 'a/b/c', 'campaign-7', `${'a'.repeat(65)}/u`, "a/u' OR 1=1"]) {
      expect(keyOfSmsReportTag(foreign)).toBeUndefined();
    }
  });
});
