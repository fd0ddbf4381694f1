import { describe, expect, it } from 'vitest';
import { encodeFanoutMessage } from '../../messages/fanout-message';
import { encodeNoticeMessage, type NoticeMessage } from '../../messages/notice-message';
import { decodePoisonMessage } from './decode-poison-message';

const ID = '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5';

describe('decodePoisonMessage', () => {
  it('reads the base64 JSON the host moved, first and batch messages alike', () => {
    const batch = { announcementId: ID, batch: { afterUserId: '', throughUserId: 'b', size: 2 } };
    expect(decodePoisonMessage(encodeFanoutMessage({ announcementId: ID }))).toEqual({ ok: true, message: { kind: 'announcement', message: { announcementId: ID } } });
    expect(decodePoisonMessage(encodeFanoutMessage(batch))).toEqual({ ok: true, message: { kind: 'announcement', message: batch } });
  });

  it('reads plain JSON put there by hand, with its kind or without (as messages were before kinds)', () => {
    const message = { kind: 'announcement', message: { announcementId: ID } };
    expect(decodePoisonMessage(` {"kind":"announcement","announcementId":"${ID}"} `)).toEqual({ ok: true, message });
    expect(decodePoisonMessage(` {"announcementId":"${ID}"} `)).toEqual({ ok: true, message });
  });

  it("reads an account notice's message, base64 or plain", () => {
    const notice = { notice: { id: ID, kind: 'child_locked' } };
    const decoded = { ok: true, message: { kind: 'notice', message: notice } };
    expect(decodePoisonMessage(encodeNoticeMessage(notice as NoticeMessage))).toEqual(decoded);
    expect(decodePoisonMessage(Buffer.from(JSON.stringify(notice)).toString('base64'))).toEqual(decoded);
    expect(decodePoisonMessage(JSON.stringify(notice))).toEqual(decoded);
  });

  it('refuses what the fan-out would refuse, naming no part of it', () => {
    const refused = [
      '',
      'not json at all',
      'bm90IGpzb24=',
      Buffer.from('{"announcementId":"x"}').toString('base64'),
      `{"announcementId":"${ID}","extra":1}`,
      '[]',
      `{"notice":{"id":"${ID}","kind":"other"}}`,
      `{"notice":{"id":"x","kind":"child_locked"}}`,
      `{"notice":{"id":"${ID}","kind":"child_locked"},"announcementId":"${ID}"}`,
      `{"kind":"notice","announcementId":"${ID}"}`,
      `{"kind":"announcement","notice":{"id":"${ID}","kind":"child_locked"}}`,
      `{"kind":"other","announcementId":"${ID}"}`,
    ];
    for (const text of refused) expect(decodePoisonMessage(text), text).toEqual({ ok: false, reason: 'invalid_fanout_message' });
  });
});
