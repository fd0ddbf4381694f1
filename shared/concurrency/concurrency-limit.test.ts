import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit';

describe('ConcurrencyLimit', () => {
  it('frees the slot of a task that fails, and hands it to the next in line', async () => {
    const limit = new ConcurrencyLimit(1);
    const order: string[] = [];
    const failing = limit.run(async () => {
      order.push('first');
      throw new Error('boom');
    });
    const second = limit.run(async () => {
      order.push('second');
      return 2;
    });
    expect(limit.queued).toBe(1);
    await expect(failing).rejects.toThrow('boom');
    expect(await second).toBe(2);
    expect(order).toEqual(['first', 'second']);
    expect({ active: limit.active, queued: limit.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('refuses a limit below 1 or not whole', () => {
    expect(() => new ConcurrencyLimit(0)).toThrow(RangeError);
    expect(() => new ConcurrencyLimit(1.5)).toThrow(RangeError);
  });
});
