import { describe, expect, it } from 'vitest';
import type { ColdStartResult } from './cold-start/measure';
import { coldStartGoals } from './cold-start-report';
import { perRoundRatio } from './http-report';
import { loggerGoals } from './logger-report';
import { memoryGoals } from './memory-report';
import { renderReport } from './report';
import type { BurstMemory, LatencySummary, SideBySideResult } from './scenarios';
import { spread } from './stats';
import { timingGoals } from './timing-report';

const MiB = 1024 ** 2;
const latency = (medianMs: number): LatencySummary => ({ samples: 10, medianMs, p99Ms: medianMs * 2 });
const sideBySide = (medians: number[]): SideBySideResult => ({ all: latency(medians[0] ?? 0), rounds: medians.map(latency) });

/** `ratios` until ready (judged), `registrationRatios` until registration closed (default: the same). */
const coldStart = (label: string, ratios: number[], registrationRatios: number[] = ratios): ColdStartResult => ({
  label,
  samples: ratios.map((ratio, index) => ({
    ms: 100 * (registrationRatios[index] ?? ratio),
    cpuMs: 90 * ratio,
    modules: 10,
    registrations: 1,
    readyMs: 120 * ratio,
  })),
  ms: spread(registrationRatios.map((ratio) => 100 * ratio)),
  modules: 10,
  registrations: 1,
  ratio: spread(registrationRatios),
  ready: { ms: spread(ratios.map((ratio) => 120 * ratio)), ratio: spread(ratios) },
});

const burst = (idleMiB: number, peakMiB: number): BurstMemory => ({
  idleBytes: idleMiB * MiB,
  peakBytes: peakMiB * MiB,
  readings: 10,
  answered200: 100,
  burst: { ...latency(100), wallMs: 1000, maxMs: 300 },
});

describe('perRoundRatio', () => {
  it('divides each round by the same round of the floor before taking the spread', () => {
    expect(perRoundRatio(sideBySide([2, 6, 3]), sideBySide([1, 2, 3]))).toEqual({ min: 1, median: 2, max: 3 });
  });
});

describe('goals are judged on the median figure', () => {
  it('cold start: a median ratio over the goal is not met even when the min is under it', () => {
    const rows = coldStartGoals({
      rounds: 3,
      cases: [
        { about: 'baseline', result: coldStart('Bare app', [1, 1, 1]) },
        { about: 'no telemetry', goal: 1.5, result: coldStart('The app', [1.2, 1.6, 1.7]) },
        { about: 'with telemetry', goal: 2, result: coldStart('The app, telemetry', [1.9, 1.95, 2.6]) },
        { about: 'empty cache', result: coldStart('The app, empty cache', [3, 3, 3]) },
        { about: 'comparison', result: coldStart('For comparison: unbundled', [4, 4, 4]) },
      ],
    });
    expect(rows.map((row) => row.verdict)).toEqual(['not met', 'met', 'informational']);
  });

  it('cold start: judged on the time to ready (every appStart hook done), not on registration alone', () => {
    const rows = coldStartGoals({
      rounds: 3,
      cases: [
        { about: 'baseline', result: coldStart('Bare app', [1, 1, 1]) },
        // Registration well under the goal, the hooks' work pushing ready over it.
        { about: 'no telemetry', goal: 1.3, result: coldStart('The app', [2.1, 2.2, 2.4], [1.1, 1.2, 1.2]) },
        // The other way round: a slow registration, nothing in the hooks.
        { about: 'with telemetry', goal: 1.5, result: coldStart('The app, telemetry', [1.3, 1.4, 1.4], [1.9, 2, 2.1]) },
      ],
    });
    expect(rows.map((row) => row.verdict)).toEqual(['not met', 'met']);
    expect(rows[0]?.goal).toMatch(/^Time to ready/);
  });

  it('logger: one verdict per line shape', () => {
    const shape = (name: string, median: number) => ({ shape: name, projectNsPerLine: 1, plainNsPerLine: 1, ratio: { min: 1, median, max: 2 } });
    const rows = loggerGoals({ lines: 1, repeats: 3, shapes: [shape('request', 1.3), shape('error', 1.5)] });
    expect(rows.map((row) => row.verdict)).toEqual(['met', 'not met']);
  });

  it('memory: the median peak above idle over the fresh hosts', () => {
    const memory = (peaks: number[]) => ({ bursts: peaks.map((peak) => burst(100, 100 + peak)), again: [], argon2AtOnce: 2 });
    expect(memoryGoals(memory([50, 59, 90]))[0]?.verdict).toBe('met');
    expect(memoryGoals(memory([50, 61, 62]))[0]?.verdict).toBe('not met');
  });

  it('timing: the median of the per-round ratios, on either side of 1', () => {
    const timing = (pairs: [number, number][]) => {
      const rounds = pairs.map(([unknown, wrong]) => ({ unknown: latency(unknown), wrongPin: latency(wrong) }));
      return { unknown: latency(50), wrongPin: latency(50), rounds };
    };
    expect(timingGoals(timing([[50, 40], [50, 49], [40, 50]]))[0]?.verdict).toBe('met');
    expect(timingGoals(timing([[40, 50], [44, 50], [60, 50]]))[0]?.verdict).toBe('not met');
  });
});

describe('renderReport', () => {
  it('says a partial run is partial and lists its goals first', () => {
    const report = renderReport({
      date: new Date('2026-01-01T00:00:00Z'),
      machine: 'a test machine',
      cores: 2,
      loadBefore: 0.5,
      loadAfter: 0.7,
      sectionRuns: [{ section: 'logger', seconds: 12, loadBefore: 0.5 }],
      logger: { lines: 1, repeats: 3, shapes: [{ shape: 'request', projectNsPerLine: 2, plainNsPerLine: 1, ratio: { min: 1.9, median: 2, max: 2.1 } }] },
    });
    expect(report).toContain('A partial run (`--only`): `logger`.');
    expect(report).toContain('0.50 when the run started, 0.70 when it ended');
    expect(report.indexOf('## Goals')).toBeLessThan(report.indexOf('## A log line against plain pino'));
    expect(report).toContain('1 of 1 goals with a figure are **not met**');
  });
});
