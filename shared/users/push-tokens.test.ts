import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAdult, migratedMemoryDatabase } from '../../test/notifications/notification-fixtures';
import type { Database } from '../db/database';
import {
  countPushTokens,
  MAX_DEVICES_PER_USER,
  pushTokenBody,
  pushTokensInRange,
  registerPushToken,
  removePushToken,
  removeStalePushToken,
} from './push-tokens';

const token = (n: number): string => `ExponentPushToken[device-${String(n).padStart(4, '0')}]`;
const at = (minute: number): string => new Date(Date.UTC(2031, 4, 10, 8, minute)).toISOString();

let db: Database;

beforeEach(async () => {
  db = await migratedMemoryDatabase();
});

afterEach(async () => {
  await db.close();
});

async function register(userId: string, value: string, now: string): Promise<void> {
  await db.transaction((tx) => registerPushToken(tx, userId, value, now));
}

describe('push token format', () => {
  it.each([
    ['ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]', true],
    ['ExpoPushToken[AbC-123_xyz]', true],
    ['ExponentPushToken[]', false],
    ['ExponentPushToken[abc', false],
    ['FcmToken[abc]', false],
    ['ExponentPushToken[abc] ', false],
    ['ExponentPushToken[a b]', false],
    [`ExponentPushToken[${'a'.repeat(201)}]`, false],
  ])('%s → %s', (value, valid) => {
    expect(pushTokenBody.safeParse({ token: value }).success).toBe(valid);
  });

  it('refuses other fields', () => {
    expect(pushTokenBody.safeParse({ token: token(1), platform: 'ios' }).success).toBe(false);
  });
});

describe('push token registration', () => {
  it('registers a device once, however often it is sent', async () => {
    const user = await addAdult(db);
    await register(user.id, token(1), at(0));
    await register(user.id, token(1), at(1));
    expect(await countPushTokens(db, user.id)).toBe(1);
  });

  it('moves a token to the user who registers it last', async () => {
    const first = await addAdult(db);
    const second = await addAdult(db);
    await register(first.id, token(1), at(0));
    await register(second.id, token(1), at(1));
    expect(await countPushTokens(db, first.id)).toBe(0);
    expect(await countPushTokens(db, second.id)).toBe(1);
  });

  it(`keeps the ${MAX_DEVICES_PER_USER} most recently registered devices`, async () => {
    const user = await addAdult(db);
    for (let n = 0; n < MAX_DEVICES_PER_USER + 2; n += 1) await register(user.id, token(n), at(n));
    const tokens = (await pushTokensInRange(db, '', user.id)).get(user.id) ?? [];
    expect(tokens).toHaveLength(MAX_DEVICES_PER_USER);
    expect(tokens).not.toContain(token(0));
    expect(tokens).not.toContain(token(1));
    expect(tokens[0]).toBe(token(MAX_DEVICES_PER_USER + 1));
  });

  it("removes only the caller's own token", async () => {
    const owner = await addAdult(db);
    const stranger = await addAdult(db);
    await register(owner.id, token(1), at(0));
    expect(await removePushToken(db, stranger.id, token(1))).toBe(false);
    expect(await removePushToken(db, owner.id, token(1))).toBe(true);
    expect(await removePushToken(db, owner.id, token(1))).toBe(false);
  });

  it('removes a stale token unless it was registered again after the send', async () => {
    const user = await addAdult(db);
    await register(user.id, token(1), at(0));
    await register(user.id, token(2), at(0));
    await register(user.id, token(2), at(5));
    expect(await removeStalePushToken(db, token(1), at(2))).toBe(true);
    expect(await removeStalePushToken(db, token(2), at(2))).toBe(false);
    expect((await pushTokensInRange(db, '', user.id)).get(user.id)).toEqual([token(2)]);
  });

  it('reads the devices of a range of users in one query', async () => {
    const a = await addAdult(db);
    const b = await addAdult(db);
    const c = await addAdult(db);
    await register(a.id, token(1), at(0));
    await register(b.id, token(2), at(0));
    await register(c.id, token(3), at(0));
    const range = await pushTokensInRange(db, a.id, b.id);
    expect([...range.keys()]).toEqual([b.id]);
  });
});

describe('a token registered by another account', () => {
  it('moves to the new account and names the account it was taken from', async () => {
    const first = await addAdult(db);
    const second = await addAdult(db);
    expect(await db.transaction((tx) => registerPushToken(tx, first.id, token(1), at(0)))).toEqual({ registered: true, movedFromUserId: null });
    expect(await db.transaction((tx) => registerPushToken(tx, first.id, token(1), at(1)))).toEqual({ registered: true, movedFromUserId: null });
    expect(await db.transaction((tx) => registerPushToken(tx, second.id, token(1), at(2)))).toEqual({ registered: true, movedFromUserId: first.id });
    expect(await countPushTokens(db, first.id)).toBe(0);
    expect(await countPushTokens(db, second.id)).toBe(1);
  });
});
