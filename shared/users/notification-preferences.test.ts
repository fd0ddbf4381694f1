import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, migratedMemoryDatabase } from '../../test/notifications/notification-fixtures';
import type { Database } from '../db/database';
import { DEFAULT_PREFERENCES, preferencesPatchBody, readPreferences, updatePreferences } from './notification-preferences';

let db: Database;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
});

afterEach(async () => {
  await db.close();
});

describe('notification preferences', () => {
  it('default to every channel on', async () => {
    const user = await addAdult(db);
    expect(DEFAULT_PREFERENCES).toEqual({ push: true, sms: true, email: true });
    expect(await readPreferences(db, user.id)).toEqual({ push: true, sms: true, email: true });
  });

  it('change only what a patch names, and keep it', async () => {
    const user = await addAdult(db);
    const other = await addAdult(db);
    expect(await db.transaction((tx) => updatePreferences(tx, user.id, { sms: false }, '2031-05-10T08:00:00.000Z'))).toEqual({
      push: true,
      sms: false,
      email: true,
    });
    expect(await db.transaction((tx) => updatePreferences(tx, user.id, { email: false }, '2031-05-10T08:01:00.000Z'))).toEqual({
      push: true,
      sms: false,
      email: false,
    });
    expect(await readPreferences(db, user.id)).toEqual({ push: true, sms: false, email: false });
    expect(await readPreferences(db, other.id)).toEqual(DEFAULT_PREFERENCES);
  });

  it('accept a patch of booleans only, at least one, nothing else', () => {
    expect(preferencesPatchBody.safeParse({ push: false }).success).toBe(true);
    expect(preferencesPatchBody.safeParse({}).success).toBe(false);
    expect(preferencesPatchBody.safeParse({ push: 'no' }).success).toBe(false);
    expect(preferencesPatchBody.safeParse({ push: true, fax: true }).success).toBe(false);
  });
});
