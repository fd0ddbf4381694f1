import { afterEach, describe, expect, it, vi } from 'vitest';
import { FairQueue, QueueRefusal } from './fair-queue';

/** A task that runs until `finish()` is called, recording when it started. */
function gatedTask(started: string[], name: string): { task: () => Promise<string>; finish: () => void } {
  let finish = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    task: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('FairQueue', () => {
  it('serves waiting clients in turn, so a flood from one does not delay another by more than a turn', async () => {
    const queue = new FairQueue({ limit: 1, maxQueued: 100, maxWaitMs: 60_000 });
    const started: string[] = [];
    const tasks = new Map<string, ReturnType<typeof gatedTask>>();
    const runs: Promise<string>[] = [];
    const submit = (client: string, name: string): void => {
      const gated = gatedTask(started, name);
      tasks.set(name, gated);
      runs.push(queue.run(client, gated.task));
    };
    for (let index = 0; index < 10; index += 1) submit('flood', `flood-${index}`);
    submit('child', 'child');
    expect(queue.queued).toBe(10);
    expect(queue.waitingClients).toBe(2);
    // Finish whatever runs, one at a time, until everything ran.
    while (started.length < 11) {
      await settle();
      tasks.get(started.at(-1) ?? '')?.finish();
      await settle();
    }
    tasks.get(started.at(-1) ?? '')?.finish();
    await Promise.all(runs);
    // flood-0 was running; the child's task is next, not 10th.
    expect(started.slice(0, 3)).toEqual(['flood-0', 'flood-1', 'child']);
    expect({ active: queue.active, queued: queue.queued, clients: queue.waitingClients }).toEqual({ active: 0, queued: 0, clients: 0 });
  });

  it('when full, refuses the newcomer of the client holding the most places, or makes room by refusing that client’s newest', async () => {
    const queue = new FairQueue({ limit: 1, maxQueued: 3, maxWaitMs: 60_000 });
    const started: string[] = [];
    const running = gatedTask(started, 'running');
    const first = queue.run('flood', running.task);
    const waiting = [1, 2, 3].map((n) => queue.run('flood', gatedTask(started, `flood-${n}`).task));
    const refusedFlood = queue.run('flood', async () => 'never');
    await expect(refusedFlood).rejects.toEqual(new QueueRefusal('full', 60));
    // Another client gets in: the flood's newest place is given up for it.
    const child = queue.run('child', async () => 'child');
    await expect(waiting[2]).rejects.toBeInstanceOf(QueueRefusal);
    expect(queue.queued).toBe(3);
    running.finish();
    await first;
    expect(started).toEqual(['running', 'flood-1']);
    expect(started).not.toContain('never');
    void child;
    void waiting[1];
  });

  it('refuses a task that waited maxWaitMs, without running it, and frees its place', async () => {
    vi.useFakeTimers();
    const queue = new FairQueue({ limit: 1, maxQueued: 10, maxWaitMs: 2500 });
    const started: string[] = [];
    const running = gatedTask(started, 'running');
    const first = queue.run('a', running.task);
    const late = queue.run('b', async () => {
      started.push('late');
      return 'late';
    });
    const refused = expect(late).rejects.toEqual(new QueueRefusal('timeout', 3));
    await vi.advanceTimersByTimeAsync(2500);
    await refused;
    expect(queue.queued).toBe(0);
    running.finish();
    await first;
    expect(started).toEqual(['running']);
    expect(queue.active).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const queue = new FairQueue({ limit: 1, maxQueued: 10, maxWaitMs: 60_000 });
    const failing = queue.run('a', async () => {
      throw new Error('boom');
    });
    const next = queue.run('b', async () => 2);
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe(2);
    expect({ active: queue.active, queued: queue.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('refuses settings that are not whole numbers ≥ 1', () => {
    expect(() => new FairQueue({ limit: 0, maxQueued: 1, maxWaitMs: 1 })).toThrow(RangeError);
    expect(() => new FairQueue({ limit: 1, maxQueued: 0, maxWaitMs: 1 })).toThrow(RangeError);
    expect(() => new FairQueue({ limit: 1, maxQueued: 1, maxWaitMs: 0.5 })).toThrow(RangeError);
  });
});
