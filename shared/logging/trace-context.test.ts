import { describe, expect, it } from 'vitest';
import { parseTraceParent, resolveTraceId } from './trace-context';

const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('parseTraceParent', () => {
  it('reads a valid version-00 header', () => {
    expect(parseTraceParent(valid)).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: '01' });
  });

  it.each([
    ['empty', ''],
    ['all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['all-zero parent id', `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['short trace id', '00-4bf92f3577b34da6-00f067aa0ba902b7-01'],
    ['trailing data on version 00', `${valid}-extra`],
    ['non-hex', '00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01'],
    ['huge', `00-${'a'.repeat(600)}`],
  ])('refuses %s', (_name, header) => {
    expect(parseTraceParent(header)).toBeUndefined();
  });

  it('accepts a future version with extra fields', () => {
    expect(parseTraceParent(`01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future`)?.traceId).toBe(
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
  });
});

describe('resolveTraceId', () => {
  it('prefers the incoming header, then the invocation, then a new id', () => {
    const other = `00-${'d'.repeat(32)}-00f067aa0ba902b7-01`;
    expect(resolveTraceId(valid, other)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(resolveTraceId('bad', other)).toBe('d'.repeat(32));
    const fresh = resolveTraceId(null, undefined);
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(resolveTraceId(null, undefined)).not.toBe(fresh);
  });
});
