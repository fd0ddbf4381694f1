import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The keys sign-in throttling counts under. Neither the username nor the client address is ever
 * stored: each is replaced by HMAC-SHA256 under the pepper (hex), so the throttle tables reveal
 * nothing about who tried to sign in, and without the pepper the keys cannot be recomputed from a
 * list of usernames. A label in front of each input keeps the two kinds of key apart.
 */

export interface ThrottleKeys {
  /** HMAC of the username's identity (`usernameIdentity`, existing or not). */
  readonly usernameKey: string;
  /** HMAC of the client's address bucket (see `clientAddressBucket`). */
  readonly addressKey: string;
}

/**
 * Both keys of one sign-in attempt.
 * @param pepper `config.hashingSecret`.
 * @param identity `usernameIdentity(submitted)`, valid or not.
 * @param clientAddress the client's IP address as the HTTP layer determined it.
 */
export function throttleKeys(pepper: string, identity: string, clientAddress: string): ThrottleKeys {
  return {
    usernameKey: usernameThrottleKey(pepper, identity),
    addressKey: keyOf(pepper, 'address', clientAddressBucket(clientAddress)),
  };
}

/**
 * The username key alone, e.g. to clear a child's failure count when the parent sets a new secret.
 * @param pepper `config.hashingSecret`.
 * @param identity `usernameIdentity(username)`; a stored username is its own identity.
 */
export function usernameThrottleKey(pepper: string, identity: string): string {
  return keyOf(pepper, 'username', identity);
}

/**
 * The key an adult sign-in's failures count under for its client address: the same address bucket
 * as a child's, under a label of its own, so adults' and children's failures never add up.
 * @param pepper `config.hashingSecret` (the app's throttle-key secret).
 * @param clientAddress the client's IP address, or a fixed word standing for "unknown".
 */
export function adultAddressThrottleKey(pepper: string, clientAddress: string): string {
  return keyOf(pepper, 'adult-address', clientAddressBucket(clientAddress));
}

/**
 * The unit an address is throttled as. An IPv4 address counts alone (IPv4-mapped IPv6 is read as
 * IPv4); an IPv6 address counts as its /64 network, because one subscriber usually holds a whole
 * /64 and could otherwise pick a fresh address for every attempt. Anything else (no address, a
 * host name) counts as the lower-cased text itself.
 * @param address an IP address, possibly with an IPv6 zone (`%eth0`), which is dropped.
 */
export function clientAddressBucket(address: string): string {
  const trimmed = address.trim().toLowerCase();
  if (isIPv4(trimmed)) return trimmed;
  const withoutZone = trimmed.split('%', 1)[0] ?? '';
  if (!isIPv6(withoutZone)) return trimmed;
  const groups = expandIPv6(withoutZone);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

function keyOf(pepper: string, label: string, value: string): string {
  if (pepper.length === 0) throw new Error('The child secret pepper must not be empty');
  return createHmac('sha256', pepper).update(`sign-in-throttle:${label}:${value}`).digest('hex');
}

/** The eight 16-bit groups of a valid IPv6 address (`isIPv6` has already accepted it). */
function expandIPv6(address: string): number[] {
  let text = address;
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) stands for the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string | undefined): number[] =>
    part ? part.split(':').map((group) => Number.parseInt(group, 16)) : [];
  const headGroups = parse(head);
  const tailGroups = parse(tail);
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<number>(missing).fill(0), ...tailGroups];
}
