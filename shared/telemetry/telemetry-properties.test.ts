import { describe, expect, it } from 'vitest';
import { REDACTION_MARKER } from '../logging/scrub';
import { scrubProperties } from './telemetry-properties';

describe('scrubProperties', () => {
  it('turns every value into a string and drops null and undefined', () => {
    expect(scrubProperties({ channel: 'push', attempt: 2, delivered: false, reason: null, extra: undefined })).toEqual({
      channel: 'push',
      attempt: '2',
      delivered: 'false',
    });
  });

  it('scrubs secrets and personal data out of the values', () => {
    const scrubbed = scrubProperties({
      header: 'Bearer abc.def.ghi',
      who: 'canary.props@example.org',
      connection: 'AccountName=x;AccountKey=c2VjcmV0S2V5;',
    });
    expect(scrubbed).toEqual({
      header: REDACTION_MARKER,
      who: REDACTION_MARKER,
      connection: `AccountName=x;AccountKey=${REDACTION_MARKER};`,
    });
  });

  it('returns an empty record for no properties', () => {
    expect(scrubProperties(undefined)).toEqual({});
  });
});
