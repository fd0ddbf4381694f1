import { ARGON2ID_PARAMS } from '../shared/ports/secret-hasher';
import { GOALS, verdictOf, verdictText, type GoalRow } from './goals';
import { mib, ms, spreadText, table } from './markdown';
import type { BurstMemory } from './scenarios';
import { spread, type Spread } from './stats';

const MiB = 1024 ** 2;

/** The memory section's runs: the burst, repeated on fresh hosts; the HTTP host's RSS for comparison. */
export interface MemoryMeasurement {
  /** One burst per fresh host: the goal's figure. */
  bursts: BurstMemory[];
  /** The same burst again on each of those hosts right after the first: what the host keeps, and what a burst needs on top. */
  again: BurstMemory[];
  /** Argon2 verifications the host's hasher runs at once (its default, from this machine's CPUs). */
  argon2AtOnce: number;
  /** The first host's RSS right after start and after the HTTP sections; absent when they did not run. */
  firstHost?: { startBytes: number; afterRunsBytes: number };
}

const aboveIdle = (m: MemoryMeasurement): Spread => spread(m.bursts.map((b) => b.peakBytes - b.idleBytes));
const met = (m: MemoryMeasurement): boolean => aboveIdle(m).median <= GOALS.burstMiB * MiB;
const mibText = (bytes: number): string => mib(bytes);

/** What the second burst on the same host says about the first one's peak. */
function secondBurst(aboveBytes: number, keptBytes: number, againBytes: number): string {
  const figures = `The second burst on the same host starts from an idle ${mib(keptBytes)} MiB above the first one's, memory the host kept from the first burst, and peaks ${mib(againBytes)} MiB above it`;
  return keptBytes >= 0.8 * aboveBytes
    ? `${figures}: the host keeps nearly all the first burst grew (its RSS does not fall back) and a second burst reuses it. The goal's figure is memory a process grows to once, for its first burst, and keeps, not memory every burst costs anew.`
    : `${figures}: the host gives back ${mib(aboveBytes - keptBytes)} MiB of the first burst's ${mib(aboveBytes)} MiB, and a second burst needs ${mib(againBytes)} MiB again.`;
}

/** The goal summary's row of this section (issue goal 4). */
export function memoryGoals(m: MemoryMeasurement): GoalRow[] {
  const burst = m.bursts[0]?.burst.samples ?? 0;
  return [
    {
      goal: `${burst} concurrent child sign-ins add ≤ ${GOALS.burstMiB} MiB (issue goal 4)`,
      figure: `peak above idle ${spreadText(aboveIdle(m), mibText)} MiB (${m.bursts.length} fresh hosts)`,
      verdict: verdictOf(met(m)),
    },
  ];
}

/**
 * The memory section: the burst of child sign-ins, each on a freshly started host, every figure
 * as min / median / max over the hosts; the goal judged on the median peak above idle, and when it
 * is missed, the part of it Argon2's own working memory explains.
 */
export function renderMemorySection(m: MemoryMeasurement): string[] {
  const of = (pick: (b: BurstMemory) => number): Spread => spread(m.bursts.map(pick));
  const count = m.bursts[0]?.burst.samples ?? 0;
  const argon2Bytes = m.argon2AtOnce * ARGON2ID_PARAMS.memoryCost * 1024;
  const above = aboveIdle(m);
  const againOf = (pick: (b: BurstMemory) => number): Spread => spread(m.again.map(pick));
  const againAbove = againOf((b) => b.peakBytes - b.idleBytes);
  const kept = spread(m.again.map((b, index) => b.idleBytes - (m.bursts[index]?.idleBytes ?? Number.NaN)));
  return [
    `## Memory: ${count} child sign-ins at once (issue goal 4: ≤ ${GOALS.burstMiB} MiB above idle; ${m.bursts.length} fresh hosts)`,
    '',
    table(
      ['Measurement', 'Min / median / max over the hosts'],
      [
        ['Fresh host, idle (database open), before the burst', `${spreadText(of((b) => b.idleBytes), mibText)} MiB`],
        ['Peak during the burst', `${spreadText(of((b) => b.peakBytes), mibText)} MiB`],
        [`**Peak above idle** (goal ≤ ${GOALS.burstMiB} MiB)`, `${spreadText(above, mibText)} MiB: ${verdictText(verdictOf(met(m)))}`],
        ['Answers 200', m.bursts.map((b) => `${b.answered200} / ${b.burst.samples}`).join(', ')],
        ['Burst wall time', `${spreadText(of((b) => b.burst.wallMs), ms)} ms`],
        ['Sign-in latency in the burst: median', `${spreadText(of((b) => b.burst.medianMs), ms)} ms`],
        ['Sign-in latency in the burst: p99', `${spreadText(of((b) => b.burst.p99Ms), ms)} ms`],
        ['Then the same burst again on the same host: its idle before it', `${spreadText(againOf((b) => b.idleBytes), mibText)} MiB`],
        ['… its peak above that idle (informational)', `${spreadText(againAbove, mibText)} MiB`],
        ['… memory the host kept from the first burst (second idle − first idle)', `${spreadText(kept, mibText)} MiB`],
        ...(m.firstHost
          ? [
              ['For comparison, the HTTP sections\' host right after start', `${mib(m.firstHost.startBytes)} MiB`],
              ['For comparison, the HTTP sections\' host after its runs', `${mib(m.firstHost.afterRunsBytes)} MiB`],
            ]
          : []),
      ],
      1,
    ),
    '',
    `RSS of the host process. Each burst runs on a host started for it alone, on the same database, so memory the allocator kept from earlier work does not hide what the burst needs; the goal is judged on the median of the hosts' peaks above idle. Peak: the highest of the readings every 20 ms (${m.bursts.map((b) => b.readings).join(', ')}) and, on Linux, the kernel's high-water mark (VmHWM, reset just before the burst).`,
    '',
    ...(met(m)
      ? []
      : [
          `Why the goal is missed: the median peak is ${mib(above.median)} MiB above idle, ${mib(above.median - GOALS.burstMiB * MiB)} MiB over ${GOALS.burstMiB} MiB. Argon2id holds m = ${mib(ARGON2ID_PARAMS.memoryCost * 1024)} MiB for each verification while it runs, and the host's hasher runs ${m.argon2AtOnce} at once on this machine (the rest queue): ${mib(argon2Bytes)} MiB of the peak is Argon2's working memory, which the contract's parameters fix. The other ${mib(above.median - argon2Bytes)} MiB is the rest of the sign-in path with ${count} requests in flight at once (their bodies, answers, session rows and the V8 heap that holds them) and whatever it does for the first time in a process (code compiled, anything loaded on first use). ${secondBurst(above.median, kept.median, againAbove.median)}`,
          '',
        ]),
  ];
}
