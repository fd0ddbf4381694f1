/**
 * A time as the Functions host writes it into trigger metadata, in epoch milliseconds. The host
 * serializes .NET `DateTimeOffset`s with an offset (`2024-05-01T11:00:00+00:00`) and up to seven
 * fraction digits, where the local host and JavaScript write `Z` and three: both forms, and any
 * offset, give the same instant here.
 * @returns undefined for anything that is not such a time.
 */
export function parseHostTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(value.trim());
  if (!match) return undefined;
  const [, seconds, fraction = '', zone = 'Z'] = match;
  // Date.parse takes at most milliseconds reliably: the rest of a .NET fraction is cut, not rounded.
  const millis = fraction.padEnd(3, '0').slice(0, 3);
  const time = Date.parse(`${seconds}.${millis}${zone.toUpperCase()}`);
  return Number.isFinite(time) ? time : undefined;
}
