import { describe, expect, it } from 'vitest';
import { parseLogLine } from './log-schema';

const valid = {
  timestamp: '2026-11-21T05:36:37.123Z',
  level: 'info',
  service: 'api',
  traceId: 'a'.repeat(32),
  userId: null,
  message: 'request handled',
};

describe('parseLogLine', () => {
  it('accepts a line with the required fields, and nested objects repeating top-level names', () => {
    expect(parseLogLine(JSON.stringify({ ...valid, properties: { level: 'x', message: 'y' } }))).toMatchObject(valid);
  });

  it('refuses a top-level field written twice', () => {
    const line = JSON.stringify(valid).replace('"service":"api"', '"service":"api","requestId":"r1","requestId":"r1"');
    expect(() => parseLogLine(line)).toThrow(/repeats "requestId"/);
  });

  it.each([
    ['a missing userId', { ...valid, userId: undefined }],
    ['a level word outside the four', { ...valid, level: 'fatal' }],
    ['a numeric timestamp', { ...valid, timestamp: 1763703397123 }],
    ['an error without stack', { ...valid, level: 'error', errorCode: 'internal_error' }],
    ['a status code without endpoint', { ...valid, statusCode: 200, durationMs: 1, requestId: 'r' }],
  ])('refuses %s', (_name, line) => {
    expect(() => parseLogLine(JSON.stringify(line))).toThrow(/schema/);
  });

  it('refuses a line that is not JSON', () => {
    expect(() => parseLogLine('npm WARN something')).toThrow(/not JSON/);
  });
});
