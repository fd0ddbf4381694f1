import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, migratedMemoryDatabase } from '../../../test/notifications/notification-fixtures';
import type { Database } from '../../db/database';
import { updatePreferences } from '../../users/notification-preferences';
import { clearProviderSmsOptOut, recordProviderSmsOptOut, smsOptOutOf } from './sms-opt-outs';

const NOW = '2031-05-10T08:00:00.000Z';
const LATER = '2031-05-10T09:00:00.000Z';
const LATEST = '2031-05-10T10:00:00.000Z';
const PHONE = '+15550109876';

let db: Database;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
});

afterEach(async () => {
  await db.close();
});

describe('SMS opt-outs', () => {
  it('let an SMS go by default', async () => {
    const user = await addAdult(db, { phone: PHONE });
    expect(await smsOptOutOf(db, user.id, PHONE)).toBeUndefined();
  });

  it("honour the user's own choice", async () => {
    const user = await addAdult(db, { phone: PHONE });
    await db.transaction((tx) => updatePreferences(tx, user.id, { sms: false }, NOW));
    expect(await smsOptOutOf(db, user.id, PHONE)).toBe('user_choice');
    await db.transaction((tx) => updatePreferences(tx, user.id, { sms: true }, NOW));
    expect(await smsOptOutOf(db, user.id, PHONE)).toBeUndefined();
  });

  it("honour the provider's STOP report for the number, whoever lists it, until it is cleared", async () => {
    const first = await addAdult(db, { phone: PHONE });
    const second = await addAdult(db, { phone: PHONE });
    const other = await addAdult(db, { phone: '+15550100000' });
    await recordProviderSmsOptOut(db, PHONE, NOW);
    await recordProviderSmsOptOut(db, PHONE, NOW);
    expect(await smsOptOutOf(db, first.id, PHONE)).toBe('provider_stop');
    expect(await smsOptOutOf(db, second.id, PHONE)).toBe('provider_stop');
    expect(await smsOptOutOf(db, other.id, '+15550100000')).toBeUndefined();
    await clearProviderSmsOptOut(db, PHONE, LATER);
    expect(await smsOptOutOf(db, first.id, PHONE)).toBeUndefined();
  });

  it('keep the later keyword in force whatever order the reports arrive in, and apply each once', async () => {
    const user = await addAdult(db, { phone: PHONE });
    // START (sent later) arrives before the STOP it answers: the number stays opted in.
    await clearProviderSmsOptOut(db, PHONE, LATER);
    await recordProviderSmsOptOut(db, PHONE, NOW);
    expect(await smsOptOutOf(db, user.id, PHONE)).toBeUndefined();
    // A newer STOP wins; a replay of the older START changes nothing.
    await recordProviderSmsOptOut(db, PHONE, LATEST);
    await clearProviderSmsOptOut(db, PHONE, LATER);
    expect(await smsOptOutOf(db, user.id, PHONE)).toBe('provider_stop');
  });
});
