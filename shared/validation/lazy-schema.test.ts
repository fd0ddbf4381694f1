import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { lazySchema } from './lazy-schema';

describe('lazySchema', () => {
  it('builds the schema on first use only, then parses with it', () => {
    let builds = 0;
    const positive = lazySchema(() => {
      builds += 1;
      return z.number().check(z.positive());
    });
    expect(builds).toBe(0);
    expect(positive.safeParse(2)).toEqual({ success: true, data: 2 });
    expect(positive.safeParse(-1).success).toBe(false);
    expect(positive.parse(3)).toBe(3);
    expect(() => positive.parse('3')).toThrow();
    expect(positive.schema()).toBe(positive.schema());
    expect(builds).toBe(1);
  });
});
