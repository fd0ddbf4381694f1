import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createShutdown, ShutdownError } from './shutdown';
import { DEFAULT_SHUTDOWN_GRACE_SECONDS, shutdownTimings, WORKER_TERMINATE_GRACE_MS } from '../settings/shutdown-timings';

describe('shutdownTimings', () => {
  it('leaves a third of the grace, at most 10 s, after the deadline', () => {
    expect(shutdownTimings(DEFAULT_SHUTDOWN_GRACE_SECONDS * 1000)).toEqual({ graceMs: 30_000, deadlineMs: 20_000, drainMs: 25_000, exitMs: 28_000 });
    expect(shutdownTimings(120_000)).toEqual({ graceMs: 120_000, deadlineMs: 110_000, drainMs: 115_000, exitMs: 118_000 });
    expect(shutdownTimings(6_000)).toEqual({ graceMs: 6_000, deadlineMs: 4_000, drainMs: 5_000, exitMs: 5_600 });
  });

  it('keeps every step inside the grace, in order', () => {
    for (const graceMs of [1, 999, WORKER_TERMINATE_GRACE_MS, 29_999, 600_000]) {
      const t = shutdownTimings(graceMs);
      expect(0).toBeLessThanOrEqual(t.deadlineMs);
      expect(t.deadlineMs).toBeLessThanOrEqual(t.drainMs);
      expect(t.drainMs).toBeLessThanOrEqual(t.exitMs);
      expect(t.exitMs).toBeLessThan(graceMs + 1);
    }
  });

  it('refuses a grace that is not a positive number', () => {
    for (const graceMs of [0, -1, Number.NaN, Infinity]) expect(() => shutdownTimings(graceMs)).toThrow(RangeError);
  });
});

describe('createShutdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('does nothing until termination begins', () => {
    const shutdown = createShutdown({ graceMs: 30_000 });
    vi.advanceTimersByTime(60_000);
    expect(shutdown.stopping.aborted).toBe(false);
    expect(shutdown.deadline.aborted).toBe(false);
    expect(shutdown.remainingMs('deadline')).toBe(Infinity);
  });

  it('stops at once and aborts in-flight work at one deadline derived from the grace', () => {
    const shutdown = createShutdown({ graceMs: 30_000 });
    const seenAtStop: number[] = [];
    shutdown.stopping.addEventListener('abort', () => seenAtStop.push(shutdown.remainingMs('deadline')));

    expect(shutdown.begin('SIGTERM')).toBe(true);
    expect(shutdown.stopping.aborted).toBe(true);
    expect(shutdown.stopping.reason).toBeInstanceOf(ShutdownError);
    expect(seenAtStop).toEqual([20_000]);
    expect(shutdown.remainingMs('drain')).toBe(25_000);
    expect(shutdown.remainingMs('exit')).toBe(28_000);

    vi.advanceTimersByTime(19_999);
    expect(shutdown.deadline.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(shutdown.deadline.aborted).toBe(true);
    expect((shutdown.deadline.reason as Error).message).toContain('SIGTERM');
    expect(shutdown.remainingMs('deadline')).toBe(0);
  });

  it('only ever brings the schedule forward when told again', () => {
    const shutdown = createShutdown({ graceMs: 30_000 });
    shutdown.begin('SIGTERM');
    vi.advanceTimersByTime(10_000);
    // A second notice with the configured grace would end later: the first schedule stands.
    expect(shutdown.begin('SIGINT')).toBe(false);
    expect(shutdown.remainingMs('deadline')).toBe(10_000);
    // The Functions host's 5 s after WorkerTerminate leave less: the deadline moves up.
    shutdown.begin('app_terminate', WORKER_TERMINATE_GRACE_MS);
    expect(shutdown.remainingMs('deadline')).toBe(3_333);
    expect(shutdown.remainingMs('exit')).toBe(4_667);
    vi.advanceTimersByTime(3_333);
    expect(shutdown.deadline.aborted).toBe(true);
  });

  it('waits for tracked work, and no longer than it is told', async () => {
    const shutdown = createShutdown({ graceMs: 30_000 });
    expect(await shutdown.drained(0)).toBe(true);

    let finish: () => void = () => undefined;
    const work = shutdown.track(() => new Promise<string>((resolve) => (finish = () => resolve('done'))));
    const failing = shutdown.track(() => Promise.reject(new Error('failed')));
    await expect(failing).rejects.toThrow('failed');

    const shortWait = shutdown.drained(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await shortWait).toBe(false);

    const longWait = shutdown.drained(10_000);
    await vi.advanceTimersByTimeAsync(500);
    finish();
    expect(await work).toBe('done');
    expect(await longWait).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('marks closing only when the stop says so: neither the signal nor the deadline does', () => {
    const shutdown = createShutdown({ graceMs: 30_000 });
    shutdown.begin('SIGTERM');
    vi.advanceTimersByTime(30_000);
    expect(shutdown.deadline.aborted).toBe(true);
    expect(shutdown.closing.aborted).toBe(false);
    shutdown.closeDown();
    shutdown.closeDown();
    expect(shutdown.closing.aborted).toBe(true);
    expect(shutdown.closing.reason).toBeInstanceOf(ShutdownError);
  });
});
