import { describe, expect, it } from 'vitest';
import { TurnGroups } from './turn-groups';

describe('TurnGroups', () => {
  it('answers the items asked for in one turn in one call, at most maxItems a call, in order', async () => {
    const calls: number[][] = [];
    const groups = new TurnGroups(async (items: number[]) => {
      calls.push(items);
      return items.map((item) => item * 10);
    }, 3);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((item) => groups.ask(item)));
    expect(answers).toEqual([10, 20, 30, 40, 50]);
    expect(calls).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('never holds an item for one asked later: asks made while a group runs form the next group', async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const groups = new TurnGroups(async (items: string[]) => {
      calls.push(items);
      if (calls.length === 1) await held;
      return items.map((item) => item.toUpperCase());
    }, 10);
    const first = groups.ask('a');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(calls).toEqual([['a']]);
    const later = [groups.ask('b'), groups.ask('c')];
    release();
    expect(await first).toBe('A');
    expect(await Promise.all(later)).toEqual(['B', 'C']);
    expect(calls).toEqual([['a'], ['b', 'c']]);
  });

  it("refuses a failed group's items with its error, and answers the next group as usual", async () => {
    let fail = true;
    const groups = new TurnGroups(async (items: number[]) => {
      if (fail) {
        fail = false;
        throw new Error('database down');
      }
      return items;
    }, 10);
    const failed = [groups.ask(1), groups.ask(2)];
    await expect(Promise.all(failed)).rejects.toThrow('database down');
    await expect(failed[1]).rejects.toThrow('database down');
    expect(await groups.ask(3)).toBe(3);
  });

  it('refuses every item of a group answered with the wrong number of answers', async () => {
    const groups = new TurnGroups(async () => [1], 10);
    await expect(Promise.all([groups.ask(1), groups.ask(2)])).rejects.toThrow(/1 answers for 2 items/);
  });
});
