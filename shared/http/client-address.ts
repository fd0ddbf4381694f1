import { isIP } from 'node:net';

/**
 * The client's IP address from `X-Forwarded-For`, trusting exactly `trustedHops` proxies: each
 * proxy appends the address it received the request from, so the entry `trustedHops` places from
 * the right is the first one a trusted proxy wrote. Entries further left are the client's own
 * claims and are ignored. With no trusted hop (the contract's default) the address is unknown.
 * Azure's front end writes `ip:port`; the port is dropped.
 */
export function clientAddress(forwardedFor: string | null, trustedHops: number): string | null {
  if (trustedHops <= 0 || !forwardedFor || forwardedFor.length > 2048) return null;
  const entries = forwardedFor.split(',').map((entry) => entry.trim());
  const entry = entries[entries.length - trustedHops];
  return entry ? withoutPort(entry) : null;
}

function withoutPort(entry: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed?.[1]) return isIP(bracketed[1]) ? bracketed[1] : null;
  if (isIP(entry)) return entry;
  const hostPort = /^([^:]+):\d+$/.exec(entry);
  if (hostPort?.[1] && isIP(hostPort[1]) === 4) return hostPort[1];
  return null;
}
