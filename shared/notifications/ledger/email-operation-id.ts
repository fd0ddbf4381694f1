import { createHash } from 'node:crypto';
import type { DeliveryKey } from './delivery-ledger';

/**
 * The provider operation id of a ledger row's e-mail: a UUID derived from the row, so it is known
 * before the send (written with the claim; the delivery report names it) and the same on every try.
 */
export function emailOperationId(key: Pick<DeliveryKey, 'announcementId' | 'userId'>): string {
  const hex = createHash('sha256').update(`email\n${key.announcementId}\n${key.userId}`).digest('hex');
  // RFC 9562 layout: version 8 (custom), variant 10.
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
