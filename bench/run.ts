import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createChildren, signInAdults } from './accounts';
import { BENCH_TMP, PROJECT_ROOT, startBenchHost, type BenchHost } from './bench-host';
import { ADAPTER_CHANNELS, FANOUT_PHASES, measureFanout, type FanoutPlan } from './fanout';
import { renderFanoutSection } from './fanout-report';
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
 * that every answer had the expected status and every delivery was taken by its provider. The
 * request counts keep the auth sections under a minute on two cores; the fan-out's runs (each channel
 * alone, all three, then each ACS adapter alone) take about three minutes more.
 *
 * For iterating on the fan-out alone (prints its section, leaves bench/results.md alone):
 *   node dist/bench/run.js --only fanout [--phases push,sms,email,combined,sms-adapter,email-adapter] [--cpu-prof <dir>]
 * `--cpu-prof` makes each fan-out worker write a V8 CPU profile to <dir>.
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
  fanout: {
    recipients: 10_000,
    providerDelayMs: 50,
    parallelBatches: 4,
    sampleEveryMs: 20,
    // As ACS answers: e-mail operations run on after the 202, and a status request is told to come back in 20 s.
    acs: { emailPollsUntilDone: 2, emailRetryAfterSeconds: 20 },
  },
} as const;
/** A bench-only pepper: the host and the in-process hasher must share it. */
const PEPPER = 'bench-only-pepper-not-a-secret-0123456789';
const RESULTS_FILE = path.join(PROJECT_ROOT, 'bench', 'results.md');
const MiB = 1024 ** 2;

function note(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

interface Options {
  only?: 'fanout';
  phases?: NonNullable<FanoutPlan['phases']>;
  cpuProfileDir?: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {};
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--only' && value === 'fanout') options.only = 'fanout';
    else if (flag === '--phases' && value) {
      const known: string[] = [...FANOUT_PHASES.map((phase) => phase.name), ...ADAPTER_CHANNELS.map((channel) => `${channel}-adapter`)];
      const names = value.split(',');
      const unknown = names.filter((name) => !known.includes(name));
      if (unknown.length > 0) throw new Error(`unknown fan-out runs: ${unknown.join(', ')} (known: ${known.join(', ')})`);
      options.phases = names as NonNullable<FanoutPlan['phases']>;
    } else if (flag === '--cpu-prof' && value) options.cpuProfileDir = path.resolve(value);
    else throw new Error(`unknown option ${String(flag)} (see bench/run.ts)`);
    i += 1;
  }
  if ((options.phases || options.cpuProfileDir) && options.only !== 'fanout') throw new Error('--phases and --cpu-prof go with --only fanout');
  return options;
}

/** `--only fanout`: the fan-out runs alone; prints its section, does not touch bench/results.md. */
async function fanoutOnly(options: Options): Promise<void> {
  rmSync(BENCH_TMP, { recursive: true, force: true });
  mkdirSync(BENCH_TMP, { recursive: true });
  if (options.cpuProfileDir) mkdirSync(options.cpuProfileDir, { recursive: true });
  try {
    const fanout = await measureFanout(
      {
        ...PLAN.fanout,
        sqliteDir: BENCH_TMP,
        ...(options.phases ? { phases: options.phases } : {}),
        ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
      },
      note,
    );
    process.stdout.write(`${renderFanoutSection(fanout).join('\n')}\n`);
  } finally {
    rmSync(BENCH_TMP, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.only === 'fanout') {
    await fanoutOnly(options);
    return;
  }
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

    note(`fan-out to ${PLAN.fanout.recipients} recipients: push, SMS, e-mail alone, then all three; providers answering after ${PLAN.fanout.providerDelayMs} ms`);
    const fanout = await measureFanout({ ...PLAN.fanout, sqliteDir: BENCH_TMP }, note);

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
