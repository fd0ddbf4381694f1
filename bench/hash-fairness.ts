import path from 'node:path';
import { DEFAULT_HASH_QUEUE } from '../shared/ports/secret-hasher';
import { CHILD_PIN, childUsername, createChildren, signInAdults, WRONG_PIN } from './accounts';
import { BENCH_TMP, startBenchHost } from './bench-host';
import { GOALS, verdictOf, verdictText, type GoalRow } from './goals';
import { createClient, type BenchResponse } from './http-client';
import { startIdentityProvider } from './id-provider';
import { mib, ms, spreadText, table } from './markdown';
import { rssProbe } from './rss';
import { percentile, spread, type Spread } from './stats';

/**
 * Bounded, fair hash work. A real child signs in from its own address while one
 * client floods the host with junk child sign-ins (unknown usernames, one address): Argon2's
 * waiting line serves addresses in turn, so the child waits about one turn, not behind the flood,
 * and the line's bound sends the rest of the flood away with 503 instead of holding it in memory.
 * One fresh host, as deployed (`UV_THREADPOOL_SIZE=2`, the default `HASH_QUEUE_*`, one trusted
 * proxy hop so addresses are known); each round floods from a fresh address with fresh names (the
 * per-address cap would otherwise answer the flood 429 at the door, costing no hash work).
 */

export interface HashFairnessPlan {
  rounds: number;
  /** Junk sign-ins fired at once from one address per round. */
  flood: number;
  /** Real child sign-ins per round, each from an address of its own, started `childEveryMs` apart once the flood is in. */
  childSignIns: number;
  childEveryMs: number;
  /** How long after the flood's first request the first child's starts. */
  childDelayMs: number;
  sampleEveryMs: number;
  pepper: string;
}

export interface HashFairnessRound {
  /** The child's sign-in latencies (all 200). */
  childMs: number[];
  childNot200: number;
  /** The flood's answers by status. */
  floodStatuses: Record<string, number>;
  floodWallMs: number;
  /** RSS just before the flood, the peak during it, and 500 ms after its last answer. */
  beforeBytes: number;
  peakBytes: number;
  afterBytes: number;
}

export interface HashFairnessMeasurement {
  plan: HashFairnessPlan;
  /** The host's RSS once warmed up (database open, one sign-in on each hashing thread), before any flood. */
  idleBytes: number;
  rounds: HashFairnessRound[];
  queue: { maxQueued: number; maxWaitMs: number };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the rounds on a fresh host; throws when the host or the setup fails. */
export async function measureHashFairness(plan: HashFairnessPlan, note: (message: string) => void): Promise<HashFairnessMeasurement> {
  const idp = await startIdentityProvider();
  const host = await startBenchHost({
    APP_ENV: 'test',
    LOG_LEVEL: 'info',
    SQLITE_PATH: path.join(BENCH_TMP, 'hash-fairness.sqlite'),
    IDP_JWKS_URI: idp.jwksUri,
    IDP_ISSUER: idp.issuer,
    IDP_AUDIENCE: idp.audience,
    CHILD_SECRET_PEPPER: plan.pepper,
    // Addresses from X-Forwarded-For, as behind the platform's front end.
    TRUST_PROXY_HOPS: '1',
    UV_THREADPOOL_SIZE: '2',
  });
  const floodClient = createClient(host.baseUrl, plan.flood + 8);
  const childClient = createClient(host.baseUrl, plan.childSignIns + 2);
  try {
    const [parent] = await signInAdults(childClient, idp, 1);
    if (!parent) throw new Error('no adult signed in');
    await createChildren(childClient, parent, 1);
    const childSignIn = (address: string): Promise<BenchResponse> =>
      childClient.send({
        method: 'POST',
        path: '/api/v1/auth/child-session',
        headers: { 'x-forwarded-for': address },
        body: { username: childUsername(0), pin: CHILD_PIN },
      });
    // Warm means every hashing thread has hashed once: glibc keeps each thread's Argon2 memory (19 MiB) in that
    // thread's arena, so a host warmed by one sign-in would count the second thread's first hash as the flood's.
    // (The dummy hash computed at start used to warm the other thread; it is shipped precomputed now, so no start warms a thread.)
    const warm = await Promise.all(['198.51.100.250', '198.51.100.251'].map(childSignIn));
    for (const answer of warm) {
      if (answer.status !== 200) throw new Error(`a warm-up sign-in answered ${answer.status}: ${answer.body}`);
    }
    await pause(300);
    const rss = rssProbe(host.pid);
    const idleBytes = rss.current();
    note(`hash fairness on ${host.baseUrl} (pid ${host.pid}): ${plan.rounds} rounds of ${plan.flood} junk sign-ins from one address and ${plan.childSignIns} real ones from others`);

    const rounds: HashFairnessRound[] = [];
    for (let round = 0; round < plan.rounds; round += 1) {
      const beforeBytes = rss.current();
      const watch = rss.watch(plan.sampleEveryMs);
      const floodAddress = `203.0.113.${round + 1}`;
      const started = performance.now();
      const flood = Promise.all(
        Array.from({ length: plan.flood }, (_, index) =>
          floodClient.send({
            method: 'POST',
            path: '/api/v1/auth/child-session',
            headers: { 'x-forwarded-for': floodAddress },
            body: { username: `bench-junk-${round}-${index}`, pin: WRONG_PIN },
          }),
        ),
      );
      await pause(plan.childDelayMs);
      const children: Promise<BenchResponse>[] = [];
      for (let index = 0; index < plan.childSignIns; index += 1) {
        children.push(childSignIn(`198.51.${100 + round}.${index + 1}`));
        await pause(plan.childEveryMs);
      }
      const [floodAnswers, childAnswers] = await Promise.all([flood, Promise.all(children)]);
      const floodWallMs = performance.now() - started;
      await pause(500);
      const { peakBytes } = watch.stop();
      const floodStatuses: Record<string, number> = {};
      for (const answer of floodAnswers) floodStatuses[answer.status] = (floodStatuses[answer.status] ?? 0) + 1;
      rounds.push({
        childMs: childAnswers.map((answer) => answer.ms),
        childNot200: childAnswers.filter((answer) => answer.status !== 200).length,
        floodStatuses,
        floodWallMs,
        beforeBytes,
        peakBytes,
        afterBytes: rss.current(),
      });
      note(`round ${round + 1}: child p95 ${ms(percentile(rounds.at(-1)?.childMs ?? [0], 95))} ms, flood ${JSON.stringify(floodStatuses)}`);
    }
    return { plan, idleBytes, rounds, queue: { ...DEFAULT_HASH_QUEUE } };
  } finally {
    floodClient.close();
    childClient.close();
    await host.stop();
    await idp.close();
  }
}

const MiB = 1024 ** 2;
const p95Spread = (m: HashFairnessMeasurement): Spread => spread(m.rounds.map((round) => percentile(round.childMs, 95)));
const afterAbove = (m: HashFairnessMeasurement): Spread => spread(m.rounds.map((round) => round.afterBytes - m.idleBytes));
const failedChildren = (m: HashFairnessMeasurement): number => m.rounds.reduce((sum, round) => sum + round.childNot200, 0);
const latencyMet = (m: HashFairnessMeasurement): boolean => failedChildren(m) === 0 && p95Spread(m).median < GOALS.hashFairnessP95Ms;
const memoryMet = (m: HashFairnessMeasurement): boolean => afterAbove(m).median <= GOALS.hashFairnessMiB * MiB;

/** The goal summary's rows of this section. */
export function hashFairnessGoals(m: HashFairnessMeasurement): GoalRow[] {
  return [
    {
      goal: `A child's sign-in behind ${m.plan.flood} junk sign-ins from one client answers in < ${GOALS.hashFairnessP95Ms} ms at p95`,
      figure: `p95 ${spreadText(p95Spread(m), ms)} ms over ${m.rounds.length} rounds${failedChildren(m) > 0 ? `; ${failedChildren(m)} not 200` : ''}`,
      verdict: verdictOf(latencyMet(m)),
    },
    {
      goal: `RSS after the flood within ${GOALS.hashFairnessMiB} MiB of idle`,
      figure: `${spreadText(afterAbove(m), mib)} MiB above idle`,
      verdict: verdictOf(memoryMet(m)),
    },
  ];
}

/** The section: per-round figures as min / median / max, the flood's answers, and the queue's settings. */
export function renderHashFairnessSection(m: HashFairnessMeasurement): string[] {
  const of = (pick: (round: HashFairnessRound) => number): Spread => spread(m.rounds.map(pick));
  const statuses = [...new Set(m.rounds.flatMap((round) => Object.keys(round.floodStatuses)))].sort();
  const all = m.rounds.flatMap((round) => round.childMs);
  return [
    `## Hash fairness: a child behind a flood (p95 < ${GOALS.hashFairnessP95Ms} ms, RSS after ≤ ${GOALS.hashFairnessMiB} MiB above idle; ${m.rounds.length} rounds)`,
    '',
    table(
      ['Measurement', 'Min / median / max over the rounds'],
      [
        [`**Child sign-in p95** (${m.plan.childSignIns} per round, each from its own address)`, `${spreadText(p95Spread(m), ms)} ms: ${verdictText(verdictOf(latencyMet(m)))}`],
        ['Child sign-in median', `${spreadText(of((round) => percentile(round.childMs, 50)), ms)} ms`],
        ['Child sign-ins not answered 200', String(failedChildren(m))],
        [`Flood wall time (${m.plan.flood} at once from one address)`, `${spreadText(of((round) => round.floodWallMs), ms)} ms`],
        ...statuses.map((status) => [`Flood answers ${status}`, spreadText(of((round) => round.floodStatuses[status] ?? 0), String)]),
        ['Host idle (warmed up), before the first flood', `${mib(m.idleBytes)} MiB`],
        ['Peak during the flood, above idle', `${spreadText(of((round) => round.peakBytes - m.idleBytes), mib)} MiB`],
        [`**RSS 500 ms after the flood, above idle** (goal ≤ ${GOALS.hashFairnessMiB} MiB)`, `${spreadText(afterAbove(m), mib)} MiB: ${verdictText(verdictOf(memoryMet(m)))}`],
      ],
      1,
    ),
    '',
    `All ${all.length} child sign-ins together: p95 ${ms(percentile(all, 95))} ms, max ${ms(Math.max(...all))} ms. The host runs as deployed (\`UV_THREADPOOL_SIZE=2\`, so 2 Argon2 computations at once) with the default waiting line (\`HASH_QUEUE_MAX=${m.queue.maxQueued}\`, \`HASH_QUEUE_MAX_WAIT_MS=${m.queue.maxWaitMs}\`): the line serves client addresses in turn, and past its bound the flood's newest attempts get 503 with \`Retry-After\` at once. Each round floods from a fresh address with fresh usernames; the first ${m.plan.childDelayMs} ms let the flood fill the line before the child's first attempt. The client shares the machine's cores with the host, and other work on the machine moves every latency.`,
    '',
  ];
}
