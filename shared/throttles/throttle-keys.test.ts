import { describe, expect, it } from 'vitest';
import { clientAddressBucket, throttleKeys, usernameThrottleKey } from './throttle-keys';

const PEPPER = 'test-pepper-0123456789abcdefghijklmnop';

describe('throttleKeys', () => {
  it('makes 64-hex HMAC keys that hold neither the username nor the address', () => {
    const keys = throttleKeys(PEPPER, 'mia.lund', '203.0.113.7');
    expect(keys.usernameKey).toMatch(/^[0-9a-f]{64}$/);
    expect(keys.addressKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(keys)).not.toMatch(/mia|lund|203\.0/);
    expect(keys).toEqual(throttleKeys(PEPPER, 'mia.lund', '203.0.113.7'));
    expect(keys.usernameKey).toBe(usernameThrottleKey(PEPPER, 'mia.lund'));
  });

  it('depends on the pepper, and keeps usernames and addresses apart', () => {
    const keys = throttleKeys(PEPPER, 'mia.lund', '203.0.113.7');
    expect(throttleKeys(`${PEPPER}x`, 'mia.lund', '203.0.113.7').usernameKey).not.toBe(keys.usernameKey);
    const same = throttleKeys(PEPPER, '203.0.113.7', '203.0.113.7');
    expect(same.usernameKey).not.toBe(same.addressKey);
  });

  it('gives every address of one IPv6 /64 the same key', () => {
    const a = throttleKeys(PEPPER, 'mia', '2001:db8:1:2::1');
    const b = throttleKeys(PEPPER, 'mia', '2001:DB8:1:2:ffff:ee:dd:cc');
    const c = throttleKeys(PEPPER, 'mia', '2001:db8:1:3::1');
    expect(a.addressKey).toBe(b.addressKey);
    expect(a.addressKey).not.toBe(c.addressKey);
  });

  it('refuses an empty pepper', () => {
    expect(() => throttleKeys('', 'mia', '203.0.113.7')).toThrow(/pepper/);
  });
});

describe('clientAddressBucket', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
    ['', ''],
  ])('%s → %s', (address, bucket) => {
    expect(clientAddressBucket(address)).toBe(bucket);
  });
});
