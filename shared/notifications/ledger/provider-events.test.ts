import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migratedMemoryDatabase } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { forgetProviderEvents, PROVIDER_EVENTS_KEPT_MS, recordProviderEvent } from './provider-events';

const NOW = new Date('2031-05-10T08:00:00.000Z');
const at = (msBeforeNow: number): string => new Date(NOW.getTime() - msBeforeNow).toISOString();

let db: Database;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
});

afterEach(async () => {
  await db.close();
});

describe('the provider events already applied', () => {
  it('records an event id once: its redelivery is refused, another id is not', async () => {
    const event = { id: 'evt-1', type: 'Microsoft.Communication.SMSDeliveryReportReceived' };
    expect(await db.transaction((tx) => recordProviderEvent(tx, event, at(0)))).toBe(true);
    expect(await db.transaction((tx) => recordProviderEvent(tx, event, at(0)))).toBe(false);
    expect(await db.transaction((tx) => recordProviderEvent(tx, { ...event, id: 'evt-2' }, at(0)))).toBe(true);
  });

  it('forgets only the ids received longer ago than they are kept', async () => {
    const type = 'Microsoft.Communication.EmailDeliveryReportReceived';
    await db.transaction(async (tx) => {
      await recordProviderEvent(tx, { id: 'old', type }, at(PROVIDER_EVENTS_KEPT_MS + 1));
      await recordProviderEvent(tx, { id: 'kept', type }, at(PROVIDER_EVENTS_KEPT_MS - 1));
    });
    expect(await forgetProviderEvents(db, NOW)).toBe(1);
    // The forgotten id can be applied again; the kept one is still refused.
    expect(await db.transaction((tx) => recordProviderEvent(tx, { id: 'old', type }, at(0)))).toBe(true);
    expect(await db.transaction((tx) => recordProviderEvent(tx, { id: 'kept', type }, at(0)))).toBe(false);
  });
});
