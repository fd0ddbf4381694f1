import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue';

describe('SerialQueue', () => {
  it('runs tasks one at a time in order, whatever their outcome', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    const task = (name: string, ms: number, fail = false) =>
      queue.run(async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([task('a', 15), task('b', 1, true), task('c', 1)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});
