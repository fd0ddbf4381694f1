import type { DeliveryKey } from './delivery-ledger';

/**
 * The SMS `tag` that names a ledger row: ACS echoes it in the delivery report. Ids only, no personal
 * data; `/` never occurs in an id.
 */
export function smsReportTag(key: Pick<DeliveryKey, 'announcementId' | 'userId'>): string {
  return `${key.announcementId}/${key.userId}`;
}

/** The ledger key a delivery report's tag names, or undefined for a tag that is not ours. */
export function keyOfSmsReportTag(tag: unknown): DeliveryKey | undefined {
  if (typeof tag !== 'string') return undefined;
  const match = /^([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-]{1,64})$/.exec(tag);
  return match ? { announcementId: match[1] as string, userId: match[2] as string, channel: 'sms' } : undefined;
}
