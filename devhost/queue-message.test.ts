import { describe, expect, it } from 'vitest';
import { dateTimeOffsetJson, decodeMessageText, queueInput, queueTriggerMetadata } from './queue-message';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('decodeMessageText', () => {
  it('decodes base64 to UTF-8 text', () => {
    expect(decodeMessageText(base64('{"userId":"u1"}'), 'base64')).toEqual({ ok: true, text: '{"userId":"u1"}' });
    expect(decodeMessageText(base64('grüße ✓'), 'base64')).toEqual({ ok: true, text: 'grüße ✓' });
    expect(decodeMessageText('', 'base64')).toEqual({ ok: true, text: '' });
  });

  it('refuses text that is not strict base64 instead of decoding garbage', () => {
    expect(decodeMessageText('{"plain":"json"}', 'base64')).toEqual({ ok: false, reason: 'not valid base64' });
    expect(decodeMessageText('abc', 'base64').ok).toBe(false);
    expect(decodeMessageText('ab$=', 'base64').ok).toBe(false);
  });

  it('passes text through with encoding "none"', () => {
    expect(decodeMessageText('{"plain":"json"}', 'none')).toEqual({ ok: true, text: '{"plain":"json"}' });
  });
});

describe('queueInput', () => {
  it('is parsed JSON when the text parses, else the text', () => {
    expect(queueInput('{"a":1}')).toEqual({ a: 1 });
    expect(queueInput('42')).toBe(42);
    expect(queueInput('hello')).toBe('hello');
  });
});

describe('queueTriggerMetadata', () => {
  it('carries the binding data the host sends, camel-cased like the library does', () => {
    const now = new Date('2024-05-01T12:00:00.000Z');
    const metadata = queueTriggerMetadata(
      {
        messageId: 'm-1',
        popReceipt: 'receipt',
        messageText: base64('{"UserId":"u1"}'),
        dequeueCount: 2,
        insertedOn: new Date('2024-05-01T11:00:00.000Z'),
        expiresOn: new Date('2024-05-08T11:00:00.000Z'),
        nextVisibleOn: new Date('2024-05-01T12:10:00.000Z'),
      },
      '{"UserId":"u1"}',
      'fan-out',
      now,
    );
    expect(metadata).toMatchObject({
      queueTrigger: { userId: 'u1' },
      id: 'm-1',
      popReceipt: 'receipt',
      dequeueCount: 2,
      // As the host serializes the queue binding's DateTimeOffsets (Newtonsoft): `+00:00`, not `Z`.
      insertionTime: '2024-05-01T11:00:00+00:00',
      expirationTime: '2024-05-08T11:00:00+00:00',
      nextVisibleTime: '2024-05-01T12:10:00+00:00',
      sys: { methodName: 'fan-out', utcNow: '2024-05-01T12:00:00.000Z' },
    });
  });

  it('writes a fraction only when there is one, trailing zeros dropped', () => {
    expect(dateTimeOffsetJson(new Date('2024-05-01T11:00:00.120Z'))).toBe('2024-05-01T11:00:00.12+00:00');
    expect(dateTimeOffsetJson(new Date('2024-05-01T11:00:00.000Z'))).toBe('2024-05-01T11:00:00+00:00');
  });
});
