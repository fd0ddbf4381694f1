/** Summary statistics of latency samples (milliseconds). */

/**
 * The nearest-rank percentile: the smallest sample with at least `p` percent of the samples at
 * or below it (so p99 of 100 samples is the 99th smallest, never an interpolated value).
 * @param p in (0, 100].
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of no samples');
  if (!(p > 0 && p <= 100)) throw new Error(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1] as number;
}

/** The median: the middle sample, or the mean of the two middle ones. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new Error('median of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The smallest, median and largest of repeated measurements of one figure. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** Min / median / max of `samples`, the form every repeated figure of the bench report takes. */
export function spread(samples: readonly number[]): Spread {
  if (samples.length === 0) throw new Error('spread of no samples');
  return { min: Math.min(...samples), median: median(samples), max: Math.max(...samples) };
}

/**
 * `samples` cut into `rounds` consecutive runs of near-equal length (the first ones one longer when
 * it does not divide), in order: one-at-a-time measurements taken in a row become per-round figures
 * whose spread shows how much the machine moved during the run.
 */
export function splitIntoRounds<T>(samples: readonly T[], rounds: number): T[][] {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a positive integer, got ${rounds}`);
  if (samples.length < rounds) throw new Error(`${samples.length} samples cannot make ${rounds} rounds`);
  const result: T[][] = [];
  let start = 0;
  for (let round = 0; round < rounds; round += 1) {
    const length = Math.floor(samples.length / rounds) + (round < samples.length % rounds ? 1 : 0);
    result.push(samples.slice(start, start + length));
    start += length;
  }
  return result;
}
