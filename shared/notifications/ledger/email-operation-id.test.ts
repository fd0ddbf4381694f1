import { describe, expect, it } from 'vitest';
import { emailOperationId } from './email-operation-id';

describe('emailOperationId', () => {
  it('is a UUID (version 8, RFC 9562 variant) fixed by the ledger row, and differs between rows', () => {
    const id = emailOperationId({ announcementId: 'a1', userId: 'u1' });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(emailOperationId({ announcementId: 'a1', userId: 'u1' })).toBe(id);
    expect(emailOperationId({ announcementId: 'a1', userId: 'u2' })).not.toBe(id);
    expect(emailOperationId({ announcementId: 'a2', userId: 'u1' })).not.toBe(id);
  });
});
