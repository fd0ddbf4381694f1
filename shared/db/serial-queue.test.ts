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

describe('SerialQueue.runFirst', () => {
  it('runs a task ahead of every task not started yet, after the one running and earlier first tasks', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let release: () => void = () => undefined;
    const running = queue.run(async () => {
      events.push('running');
      await new Promise<void>((resolve) => (release = resolve));
    });
    await new Promise((resolve) => setImmediate(resolve));
    const later = ['b', 'c'].map((name) => queue.run(() => void events.push(name)));
    const urgent = ['first-1', 'first-2'].map((name) => queue.runFirst(() => void events.push(name)));
    const failing = queue.runFirst(() => {
      throw new Error('refused');
    });
    release();
    await Promise.all([running, ...later, ...urgent]);
    await expect(failing).rejects.toThrow('refused');
    expect(events).toEqual(['running', 'first-1', 'first-2', 'b', 'c']);
  });
});
