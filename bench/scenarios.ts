import { randomUUID } from 'node:crypto';
import { ARGON2ID_PARAMS, createSecretHasher } from '../shared/ports/secret-hasher';
import { CHILD_PIN, WRONG_PIN, childUsername, type Adult } from './accounts';
import { createClient, runLoad, type BenchClient, type BenchRequest } from './http-client';
import type { RssProbe } from './rss';
import { median, percentile, splitIntoRounds } from './stats';

export interface LatencySummary {
  samples: number;
  medianMs: number;
  p99Ms: number;
  /** Requests per second over the whole run; absent for one-at-a-time runs. */
  perSecond?: number;
}

function summarize(latencies: readonly number[], wallMs?: number): LatencySummary {
  return {
    samples: latencies.length,
    medianMs: median(latencies),
    p99Ms: percentile(latencies, 99),
    ...(wallMs === undefined ? {} : { perSecond: (latencies.length * 1000) / wallMs }),
  };
}

/** Fails the bench when an answer was not the expected one: a 429 or 500 would time the wrong work. */
function requireExpected(label: string, unexpected: number): void {
  if (unexpected > 0) throw new Error(`${label}: ${unexpected} answers had an unexpected status`);
}

export interface SideBySideEndpoint {
  label: string;
  /** The client of the server this endpoint is on (the local host, or the raw `node:http` floor). */
  client: BenchClient;
  warmUp: number;
  count: number;
  /** The i-th request; warm-up requests take the first indexes. */
  makeRequest: (index: number) => BenchRequest;
}

/** One endpoint's figures: over all its requests, and for each round on its own. */
export interface SideBySideResult {
  all: LatencySummary;
  /** One summary per round, in order: the spread of the figures, and per-round ratios between endpoints. */
  rounds: LatencySummary[];
}

/**
 * Each endpoint's `count` requests, `concurrency` at a time, after `warmUp` untimed ones. The
 * endpoints take turns in `rounds` slices, so a noisy moment of the machine (or the host's heap
 * growing) falls on all of them alike rather than on whichever ran last; the slices of one round
 * are close in time, so a ratio of two endpoints' figures in the same round is the fairest ratio.
 * @returns one result per endpoint, in the order given; requests per second counts only the
 * time that endpoint's own slices took.
 */
export async function measureSideBySide(
  endpoints: readonly SideBySideEndpoint[],
  options: { rounds: number; concurrency: number; expectedStatus: number },
): Promise<SideBySideResult[]> {
  for (const endpoint of endpoints) {
    const warm = await runLoad(endpoint.client, { ...options, count: endpoint.warmUp }, endpoint.makeRequest);
    requireExpected(`${endpoint.label} (warm-up)`, warm.unexpected);
  }
  const results = endpoints.map(() => ({ latencies: [] as number[], wallMs: 0, rounds: [] as LatencySummary[] }));
  const sent = endpoints.map((endpoint) => endpoint.warmUp);
  for (let round = 0; round < options.rounds; round += 1) {
    for (const [index, endpoint] of endpoints.entries()) {
      const result = results[index];
      const offset = sent[index];
      if (!result || offset === undefined) throw new Error('unreachable: one result per endpoint');
      const count = Math.floor(endpoint.count / options.rounds) + (round < endpoint.count % options.rounds ? 1 : 0);
      const run = await runLoad(endpoint.client, { ...options, count }, (i) => endpoint.makeRequest(offset + i));
      requireExpected(endpoint.label, run.unexpected);
      result.latencies.push(...run.latencies);
      result.wallMs += run.wallMs;
      result.rounds.push(summarize(run.latencies, run.wallMs));
      sent[index] = offset + count;
    }
  }
  return results.map((result) => ({ all: summarize(result.latencies, result.wallMs), rounds: result.rounds }));
}

export const adultSignIn = (adults: readonly Adult[]) => (index: number): BenchRequest => ({
  method: 'POST',
  path: '/api/v1/auth/session',
  body: { idToken: adults[index % adults.length]?.idToken },
});

export const getMe = (adults: readonly Adult[]) => (index: number): BenchRequest => ({
  method: 'GET',
  path: '/api/v1/me',
  headers: { authorization: `Bearer ${adults[index % adults.length]?.sessionToken}` },
});

export const getEmpty = (): BenchRequest => ({ method: 'GET', path: '/api/bench/empty' });

/** The raw `node:http` floor answers `{}` on any path. */
export const getRaw = (): BenchRequest => ({ method: 'GET', path: '/' });

let benchAddresses = 0;

/**
 * A child sign-in from an address of its own (198.18.0.0/15, the benchmarking range, behind the one
 * trusted proxy hop the bench host is given): failures without an address share one bucket and hit
 * the per-address cap (30 in 10 minutes) within a timing run.
 */
const childSignIn = (username: string, pin: string): BenchRequest => {
  benchAddresses += 1;
  return {
    method: 'POST',
    path: '/api/v1/auth/child-session',
    headers: { 'x-forwarded-for': `198.${18 + ((benchAddresses >> 16) & 1)}.${(benchAddresses >> 8) & 255}.${benchAddresses & 255}` },
    body: { username, pin },
  };
};

export interface Argon2VersusSignIn {
  argon2: LatencySummary;
  childSignIn: LatencySummary;
  /** The same samples cut into consecutive rounds: one pair of summaries per round. */
  rounds: { argon2: LatencySummary; childSignIn: LatencySummary }[];
}

/**
 * One Argon2id verification in this process (the app's parameters and a pepper) against one full
 * child sign-in with the correct PIN, strictly one at a time so neither waits in a queue, and
 * taking turns (which goes first alternates) so both see the same machine. The samples are also
 * summarized in `rounds` consecutive slices, for the spread of each figure.
 */
export async function measureArgon2VersusSignIn(
  client: BenchClient,
  options: { pepper: string; warmUp: number; count: number; rounds: number },
): Promise<Argon2VersusSignIn> {
  const hasher = createSecretHasher({ pepper: options.pepper, params: ARGON2ID_PARAMS });
  const storedHash = await hasher.hash(CHILD_PIN);
  const verifyAlone = async (): Promise<number> => {
    const started = performance.now();
    const { valid } = await hasher.verify(storedHash, CHILD_PIN);
    if (!valid) throw new Error('the bench hash did not verify');
    return performance.now() - started;
  };
  // Successful sign-ins reset the child's failure count: one child can sign in any number of times.
  const signIn = async (): Promise<number> => {
    const response = await client.send(childSignIn(childUsername(0), CHILD_PIN));
    if (response.status !== 200) throw new Error(`a child sign-in answered ${response.status}: ${response.body}`);
    return response.ms;
  };
  const argon2: number[] = [];
  const signIns: number[] = [];
  for (let index = 0; index < options.warmUp + options.count; index += 1) {
    const [first, second] = index % 2 === 0 ? [verifyAlone, signIn] : [signIn, verifyAlone];
    const firstMs = await first();
    const secondMs = await second();
    if (index < options.warmUp) continue;
    argon2.push(first === verifyAlone ? firstMs : secondMs);
    signIns.push(first === signIn ? firstMs : secondMs);
  }
  const signInRounds = splitIntoRounds(signIns, options.rounds);
  return {
    argon2: summarize(argon2),
    childSignIn: summarize(signIns),
    rounds: splitIntoRounds(argon2, options.rounds).map((slice, round) => ({
      argon2: summarize(slice),
      childSignIn: summarize(signInRounds[round] ?? []),
    })),
  };
}

export interface UnknownVersusWrong {
  unknown: LatencySummary;
  wrongPin: LatencySummary;
  /** The same pairs cut into consecutive rounds: one pair of summaries per round. */
  rounds: { unknown: LatencySummary; wrongPin: LatencySummary }[];
}

/**
 * Contract section 4: an unknown username and a wrong PIN must take the same time. Attempts go one
 * at a time, alternating which kind goes first, so drift over the run hits both kinds alike.
 * Throttling would answer 429 (cheaply) after 3 failures of one username, so every unknown name is
 * fresh and the wrong PINs are spread over the children, at most `childCount` a round. The pairs
 * are also summarized in `rounds` consecutive slices, for the spread of the ratio.
 */
export async function measureUnknownVersusWrong(
  client: BenchClient,
  options: { warmUp: number; pairs: number; childCount: number; rounds: number },
): Promise<UnknownVersusWrong> {
  if (options.warmUp + options.pairs > options.childCount * 2) throw new Error('too few children for 2 wrong PINs each at most');
  const unknown: number[] = [];
  const wrongPin: number[] = [];
  for (let index = 0; index < options.warmUp + options.pairs; index += 1) {
    const attempts = [
      { kind: 'unknown', request: childSignIn(`bench-nobody-${randomUUID().slice(0, 8)}`, CHILD_PIN) },
      { kind: 'wrong', request: childSignIn(childUsername(index % options.childCount), WRONG_PIN) },
    ] as const;
    for (const attempt of index % 2 === 0 ? attempts : [...attempts].reverse()) {
      const response = await client.send(attempt.request);
      if (response.status !== 401) throw new Error(`a ${attempt.kind} sign-in answered ${response.status}: ${response.body}`);
      if (index >= options.warmUp) (attempt.kind === 'unknown' ? unknown : wrongPin).push(response.ms);
    }
  }
  const wrongRounds = splitIntoRounds(wrongPin, options.rounds);
  return {
    unknown: summarize(unknown),
    wrongPin: summarize(wrongPin),
    rounds: splitIntoRounds(unknown, options.rounds).map((slice, round) => ({
      unknown: summarize(slice),
      wrongPin: summarize(wrongRounds[round] ?? []),
    })),
  };
}

export interface BurstMemory {
  /** RSS of the idle host just before the burst. */
  idleBytes: number;
  peakBytes: number;
  readings: number;
  answered200: number;
  burst: LatencySummary & { wallMs: number; maxMs: number };
}

/**
 * `count` child sign-ins (distinct children, correct PIN) sent at once, each on a connection of its
 * own, while the host's RSS is watched. Meant for a freshly started host: memory the allocator
 * kept from earlier work would hide what the burst itself needs. One readiness request first
 * opens the database, so the idle reading includes it.
 */
export async function measureBurstMemory(
  baseUrl: string,
  rss: RssProbe,
  options: { count: number; sampleEveryMs: number },
): Promise<BurstMemory> {
  const client = createClient(baseUrl, options.count);
  try {
    const ready = await client.send({ method: 'GET', path: '/api/ready' });
    if (ready.status !== 200) throw new Error(`GET /api/ready answered ${ready.status}: ${ready.body}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const idleBytes = rss.current();
    const watch = rss.watch(options.sampleEveryMs);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: options.count }, (_, index) => client.send(childSignIn(childUsername(index), CHILD_PIN))),
    );
    const wallMs = performance.now() - started;
    const { peakBytes, samples } = watch.stop();
    const latencies = answers.map((answer) => answer.ms);
    return {
      idleBytes,
      peakBytes,
      readings: samples,
      answered200: answers.filter((answer) => answer.status === 200).length,
      burst: { ...summarize(latencies), wallMs, maxMs: Math.max(...latencies) },
    };
  } finally {
    client.close();
  }
}
