import { describe, expect, it } from 'vitest';
import { encodeFanoutMessage } from './fanout-message';
import { encodeNoticeMessage } from './notice-message';
import { decodeNotificationMessage } from './notification-message';

const ID = '6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5';
const fromQueue = (text: string): unknown => JSON.parse(Buffer.from(text, 'base64').toString('utf8'));

describe('the messages of the notification queue', () => {
  it('are written with their kind and read back by it', () => {
    const batch = { announcementId: ID, batch: { afterUserId: '', throughUserId: 'b', size: 2 } };
    const notice = { notice: { id: ID, kind: 'child_locked' as const } };
    expect(fromQueue(encodeFanoutMessage(batch))).toEqual({ kind: 'announcement', ...batch });
    expect(fromQueue(encodeNoticeMessage(notice))).toEqual({ kind: 'notice', ...notice });
    expect(decodeNotificationMessage(fromQueue(encodeFanoutMessage(batch)))).toEqual({ kind: 'announcement', message: batch });
    expect(decodeNotificationMessage(fromQueue(encodeNoticeMessage(notice)))).toEqual({ kind: 'notice', message: notice });
  });

  it('reads the messages enqueued before they had a kind', () => {
    expect(decodeNotificationMessage({ announcementId: ID })).toEqual({ kind: 'announcement', message: { announcementId: ID } });
    expect(decodeNotificationMessage({ notice: { id: ID, kind: 'child_locked' } })).toEqual({
      kind: 'notice',
      message: { notice: { id: ID, kind: 'child_locked' } },
    });
  });

  it('refuses a message whose kind does not match its shape, an unknown kind, and anything else', () => {
    const refused: unknown[] = [
      { kind: 'notice', announcementId: ID },
      { kind: 'announcement', notice: { id: ID, kind: 'child_locked' } },
      { kind: 'other', announcementId: ID },
      { kind: 'announcement', announcementId: ID, extra: 1 },
      { notice: { id: ID, kind: 'child_locked' }, announcementId: ID },
      { notice: 'x' },
      {},
      [],
      'text',
      null,
    ];
    for (const value of refused) expect(decodeNotificationMessage(value), JSON.stringify(value)).toBeUndefined();
  });
});
