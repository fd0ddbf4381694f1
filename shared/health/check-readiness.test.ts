import { describe, expect, it } from 'vitest';
import { checkReadiness, type ReadinessProbe } from './check-readiness';

const ok = (dependency: string): ReadinessProbe => ({ dependency, check: async () => undefined });
const failing = (dependency: string, error: Error): ReadinessProbe => ({
  dependency,
  check: async () => {
    throw error;
  },
});
const hanging = (dependency: string): ReadinessProbe => ({ dependency, check: () => new Promise(() => undefined) });

describe('checkReadiness', () => {
  it('is ready when every dependency answers', async () => {
    expect(await checkReadiness([ok('database'), ok('queue')])).toEqual({
      ready: true,
      stopping: false,
      checks: { database: 'ok', queue: 'ok' },
      failures: [],
    });
  });

  it('reports each failing dependency with its cause', async () => {
    const cause = new Error('ECONNREFUSED');
    const report = await checkReadiness([ok('database'), failing('queue', cause)]);
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual({ database: 'ok', queue: 'unavailable' });
    expect(report.failures).toEqual([{ dependency: 'queue', cause }]);
  });

  it('gives up on a hanging dependency after the timeout', async () => {
    const report = await checkReadiness([hanging('database')], { timeoutMs: 50 });
    expect(report.checks.database).toBe('unavailable');
    expect(String(report.failures[0]?.cause)).toMatch(/timed out/);
  });

  it('is not ready once the shutdown is stopping, without probing anything', async () => {
    const stopping = new AbortController();
    let probed = 0;
    const counted: ReadinessProbe = { dependency: 'database', check: async () => void probed++ };
    expect((await checkReadiness([counted], { stopping: stopping.signal })).ready).toBe(true);
    stopping.abort();
    expect(await checkReadiness([counted], { stopping: stopping.signal })).toEqual({ ready: false, stopping: true, checks: {}, failures: [] });
    expect(probed).toBe(1);
  });
});
