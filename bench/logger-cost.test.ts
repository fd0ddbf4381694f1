import { describe, expect, it } from 'vitest';
import { formatLoggerCost, measureLoggerCost, sampleLoggerLines } from './logger-cost';

describe('logger cost benchmark', () => {
  it('compares like with like: both loggers write the same fields and values for every shape', () => {
    const samples = sampleLoggerLines();
    expect(samples.map((sample) => sample.shape)).toEqual(['request', 'delivery', 'error']);
    for (const sample of samples) {
      const project = JSON.parse(sample.project) as Record<string, unknown>;
      const plain = JSON.parse(sample.plain) as Record<string, unknown>;
      // The timestamps differ by when each line was written; everything else is the same.
      expect({ ...project, timestamp: 'now' }).toEqual({ ...plain, timestamp: 'now' });
      expect(Object.keys(project).sort()).toEqual(Object.keys(plain).sort());
    }
  });

  it('reports every shape with both costs and the spread of the ratio', async () => {
    const result = await measureLoggerCost({ lines: 50, repeats: 2 });
    expect(result).toMatchObject({ lines: 50, repeats: 2 });
    expect(result.shapes.map((row) => row.shape)).toEqual(['request', 'delivery', 'error']);
    for (const row of result.shapes) {
      expect(row.projectNsPerLine).toBeGreaterThan(0);
      expect(row.plainNsPerLine).toBeGreaterThan(0);
      expect(row.ratio.min).toBeLessThanOrEqual(row.ratio.median);
      expect(row.ratio.median).toBeLessThanOrEqual(row.ratio.max);
    }
    expect(formatLoggerCost(result)).toMatch(/^50 lines x 2 repeats per shape\n.*shape.*\n\s*request\s/);
  });
});
