/**
 * Parses a .NET TimeSpan as host.json and timer schedules write it: `[-][d.]hh:mm[:ss[.fffffff]]`.
 * @returns milliseconds, or undefined when the text is not a TimeSpan.
 */
export function parseTimeSpan(text: string): number | undefined {
  const match = /^\s*(-)?(?:(\d+)\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,7}))?)?\s*$/.exec(text);
  if (!match) return undefined;
  const [, negative, days = '0', hours = '0', minutes = '0', seconds = '0', fraction = ''] = match;
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  const milliseconds =
    ((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60_000 +
    Number(seconds) * 1000 +
    Math.round(Number(`0.${fraction || '0'}`) * 1000);
  return negative ? -milliseconds : milliseconds;
}
