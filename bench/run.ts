import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createChildren, signInAdults } from './accounts';
import { BENCH_TMP, PROJECT_ROOT, startBenchHost, type BenchHost } from './bench-host';
import { measureFanout } from './fanout';
import { createClient } from './http-client';
import { startIdentityProvider, type BenchIdentityProvider } from './id-provider';
import { describeMachine } from './machine';
import { renderReport } from './report';
import { rssProbe } from './rss';
import {
  adultSignIn,
  getEmpty,
  getMe,
  measureArgon2VersusSignIn,
  measureBurstMemory,
  measureSideBySide,
  measureUnknownVersusWrong,
} from './scenarios';

/**
 * `npm run bench`: measures the app on the project's local host, then the notification fan-out in a
 * process of its own, and writes bench/results.md. A script, not a test: it asserts nothing but
 * that every answer had the expected status and every delivery succeeded. The request counts keep
 * the auth sections under a minute on two cores; the fan-out takes about half a minute more.
 */
const CONCURRENCY = 8;
const ADULTS = 16;
const CHILDREN = 100;
const PLAN = {
  empty: { warmUp: 500, count: 4000 },
  me: { warmUp: 500, count: 4000 },
  adultSignIn: { warmUp: 200, count: 1500 },
  rounds: 5,
  argon2: { warmUp: 10, count: 100 },
  timing: { warmUp: 4, pairs: 100 },
  burst: { count: 100, sampleEveryMs: 20 },
  /**
   * Issue 4. Four batch messages at a time (runFanoutInProcess's default) already keep the worker's
   * one core busy on two cores; more only raise its memory.
   */
  fanout: { recipients: 10_000, providerDelayMs: 50, parallelBatches: 4, sampleEveryMs: 20 },
} as const;
/** A bench-only pepper: the host and the in-process hasher must share it. */
const PEPPER = 'bench-only-pepper-not-a-secret-0123456789';
const RESULTS_FILE = path.join(PROJECT_ROOT, 'bench', 'results.md');
const MiB = 1024 ** 2;

function note(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

async function main(): Promise<void> {
  const [loadBefore = 0] = loadavg();
  rmSync(BENCH_TMP, { recursive: true, force: true });
  mkdirSync(BENCH_TMP, { recursive: true });
  let idp: BenchIdentityProvider | undefined;
  let host: BenchHost | undefined;
  try {
    idp = await startIdentityProvider();
    const settings = {
      APP_ENV: 'test',
      LOG_LEVEL: 'info',
      SQLITE_PATH: path.join(BENCH_TMP, 'platform.sqlite'),
      IDP_JWKS_URI: idp.jwksUri,
      IDP_ISSUER: idp.issuer,
      IDP_AUDIENCE: idp.audience,
      CHILD_SECRET_PEPPER: PEPPER,
      // No trusted proxy hop: every child sign-in counts in an address bucket of its own, so the
      // per-address cap (30 failures in 10 minutes) cannot turn the timing run into 429s.
      TRUST_PROXY_HOPS: '0',
    };
    host = await startBenchHost(settings);
    const rss = rssProbe(host.pid);
    const startBytes = rss.current();
    const phase = (message: string): void => note(`${message} (host RSS ${(rss.current() / MiB).toFixed(0)} MiB)`);
    const client = createClient(host.baseUrl, CONCURRENCY);
    phase(`local host on ${host.baseUrl}, pid ${host.pid}; creating ${ADULTS} adults and ${CHILDREN} children`);
    const adults = await signInAdults(client, idp, ADULTS);
    const parent = adults[0];
    if (!parent) throw new Error('no adult signed in');
    await createChildren(client, parent, CHILDREN);

    phase(`{} against me against adult sign-in, ${CONCURRENCY} at a time`);
    const [empty, me, adultSignInSummary] = await measureSideBySide(
      client,
      [
        { label: 'empty', ...PLAN.empty, makeRequest: getEmpty },
        { label: 'me', ...PLAN.me, makeRequest: getMe(adults) },
        { label: 'adult sign-in', ...PLAN.adultSignIn, makeRequest: adultSignIn(adults) },
      ],
      { rounds: PLAN.rounds, concurrency: CONCURRENCY, expectedStatus: 200 },
    );
    if (!empty || !me || !adultSignInSummary) throw new Error('unreachable: one summary per endpoint');
    phase('Argon2id alone against child sign-in, one at a time');
    const argon2 = await measureArgon2VersusSignIn(client, { pepper: PEPPER, ...PLAN.argon2 });
    phase('unknown username against wrong PIN, one at a time');
    const timing = await measureUnknownVersusWrong(client, { ...PLAN.timing, childCount: CHILDREN });
    const afterRunsBytes = rss.current();
    client.close();
    await host.stop();

    // A fresh host on the same database, so the burst's peak is not hidden by memory kept from above.
    host = await startBenchHost(settings);
    note(`${PLAN.burst.count} child sign-ins at once on a fresh host (pid ${host.pid})`);
    const memory = await measureBurstMemory(host.baseUrl, rssProbe(host.pid), PLAN.burst);
    await host.stop();

    note(`fan-out to ${PLAN.fanout.recipients} recipients on three channels, providers answering after ${PLAN.fanout.providerDelayMs} ms`);
    const fanout = await measureFanout({ ...PLAN.fanout, sqlitePath: path.join(BENCH_TMP, 'fanout.sqlite') });
    note(`fan-out took ${(fanout.result.wallMs / 1000).toFixed(1)} s; worker peak RSS ${(fanout.peakBytes / MiB).toFixed(0)} MiB`);

    const report = renderReport({
      date: new Date(),
      machine: describeMachine(),
      loadBefore,
      concurrency: CONCURRENCY,
      empty,
      me,
      adultSignIn: adultSignInSummary,
      argon2,
      timing,
      memory: { ...memory, startBytes, afterRunsBytes },
      fanout,
    });
    writeFileSync(RESULTS_FILE, report);
    process.stdout.write(`${report}\n`);
    note(`written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  } finally {
    await host?.stop();
    await idp?.close();
    rmSync(BENCH_TMP, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
