import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { spread, type Spread } from '../stats';

const run = promisify(execFile);

/** One way of starting the app, measured as a whole fresh process. */
export interface ColdStartScenario {
  label: string;
  /** The app's root (its package.json) and the entry files the worker loads (`main`, expanded). */
  appRoot: string;
  entries: readonly string[];
  /** Settings of the process, on top of a minimal environment (PATH only). */
  env: Readonly<Record<string, string>>;
  /**
   * Node's compile cache: `warm` gives the scenario a cache directory of its own, filled by one
   * unmeasured start first (a container whose image carries the cache, or a restart); `empty`
   * gives every run a new empty directory (a new container that compiles everything).
   */
  compileCache?: 'warm' | 'empty';
  /**
   * Also time, from the process's spawn, the app's `telemetry ready` line of a backend loaded after
   * registration (`ColdStartSample.telemetryReadyMs`): its load is off the registration path, not free.
   */
  waitForTelemetry?: boolean;
  /**
   * An HTTP function to invoke right after ready (`health` for the app, `hello` for the bare app):
   * the first invocation's time, and a second one's, go into the sample.
   */
  invoke?: string;
}

export interface ColdStartSample {
  ms: number;
  /** CPU time of the process (user + system) until registration closed. */
  cpuMs: number;
  modules: number;
  registrations: number;
  /** ms since the process began until the app's `appStart` hooks were done: when the worker answers the host (the judged figure). */
  readyMs: number;
  /** With `invoke`: ms of the first invocation right after ready, and of the one after it. */
  firstInvocationMs?: number;
  secondInvocationMs?: number;
  /** With `waitForTelemetry`: ms from spawn to the `telemetry ready` line, and the backend it named. */
  telemetryReadyMs?: number;
  telemetryBackend?: string;
}

export interface ColdStartResult {
  label: string;
  samples: ColdStartSample[];
  ms: Spread;
  modules: number;
  registrations: number;
  /** Each round's time ÷ the baseline's in the same round: min / median / max. */
  ratio: Spread;
  /** Until the `appStart` hooks were done (`ColdStartSample.readyMs`), and each round's ÷ the baseline's: the judged figure. */
  ready: { ms: Spread; ratio: Spread };
  /** With `invoke`: the first invocation after ready and the second, ms, and the first ÷ the baseline's first. */
  invocation?: { first: Spread; second: Spread; firstRatio: Spread };
  /** With `waitForTelemetry`: when the backend was ready (ms from spawn), and which it was. */
  telemetryReady?: { ms: Spread; backend: string };
}

const PROBE = path.join(__dirname, 'probe.js');

/** How long a probe waits for a telemetry backend before the bench gives up on it. */
const TELEMETRY_WAIT_MS = 30_000;

async function startOnce(scenario: ColdStartScenario, cacheDir: string | undefined): Promise<ColdStartSample> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...scenario.env, ...(scenario.invoke ? { BENCH_PROBE_INVOKE: scenario.invoke } : {}) };
  if (cacheDir) env.NODE_COMPILE_CACHE = cacheDir;
  if (scenario.waitForTelemetry) return startAndWaitForTelemetry(scenario, env);
  const { stdout } = await run(process.execPath, [PROBE, scenario.appRoot, ...scenario.entries], { env, maxBuffer: 16 * 1024 ** 2 });
  // The app's own log lines come first; the probe's JSON line is the last.
  return parseSample(stdout.trim().split('\n').at(-1) ?? '', scenario.label);
}

function parseSample(line: string, label: string): ColdStartSample {
  const sample = JSON.parse(line) as ColdStartSample;
  if (typeof sample.ms !== 'number' || typeof sample.readyMs !== 'number' || sample.registrations < 1) throw new Error(`cold start of ${label}: unexpected probe output`);
  return sample;
}

/** A probe that stays up until the app's `telemetry ready` line (or `TELEMETRY_WAIT_MS`). */
function startAndWaitForTelemetry(scenario: ColdStartScenario, env: Record<string, string>): Promise<ColdStartSample> {
  return new Promise((resolve, reject) => {
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, [PROBE, scenario.appRoot, ...scenario.entries], {
      env: { ...env, BENCH_PROBE_STAY_MS: String(TELEMETRY_WAIT_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    let sample: ColdStartSample | undefined;
    let ready: { ms: number; backend: string } | undefined;
    const finish = (): void => {
      if (!sample || !ready) return;
      const result = { ...sample, telemetryReadyMs: ready.ms, telemetryBackend: ready.backend };
      // The next start waits for this process to be gone: it would share the CPU otherwise.
      child.once('exit', () => resolve(result));
      child.kill();
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.startsWith('{"ms"')) sample = parseSample(line, scenario.label);
        else if (line.includes('"telemetry ready"')) {
          const { telemetryBackend } = JSON.parse(line) as { telemetryBackend?: string };
          ready = { ms: performance.now() - spawnedAt, backend: telemetryBackend ?? 'unknown' };
        }
        finish();
      }
    });
    child.on('error', reject);
    child.once('exit', () => {
      if (!sample || !ready) reject(new Error(`cold start of ${scenario.label}: no ${sample ? 'telemetry ready line' : 'probe output'} before exit`));
    });
  });
}

/**
 * Starts each scenario `rounds` times, interleaved (round 1: every scenario once, then round 2…),
 * so a change in the machine's load hits them alike. The first scenario is the baseline of the
 * per-round ratios.
 */
export async function measureColdStarts(
  scenarios: readonly ColdStartScenario[],
  options: { rounds: number; tmpDir: string },
): Promise<ColdStartResult[]> {
  const cacheRoot = mkdtempSync(path.join(options.tmpDir, 'compile-cache-'));
  try {
    const warmDirs = scenarios.map((scenario, index) => (scenario.compileCache === 'warm' ? path.join(cacheRoot, `warm-${index}`) : undefined));
    for (const [index, scenario] of scenarios.entries()) {
      const dir = warmDirs[index];
      if (dir) {
        mkdirSync(dir, { recursive: true });
        await startOnce(scenario, dir);
      }
    }
    const samples: ColdStartSample[][] = scenarios.map(() => []);
    for (let round = 0; round < options.rounds; round += 1) {
      for (const [index, scenario] of scenarios.entries()) {
        let dir = warmDirs[index];
        if (scenario.compileCache === 'empty') dir = mkdtempSync(path.join(cacheRoot, 'empty-'));
        samples[index]?.push(await startOnce(scenario, dir));
      }
    }
    const baseline = samples[0] ?? [];
    return scenarios.map((scenario, index) => {
      const own = samples[index] ?? [];
      return {
        label: scenario.label,
        samples: own,
        ms: spread(own.map((s) => s.ms)),
        modules: Math.max(...own.map((s) => s.modules)),
        registrations: Math.max(...own.map((s) => s.registrations)),
        ratio: spread(own.map((s, round) => s.ms / (baseline[round]?.ms ?? Number.NaN))),
        ready: {
          ms: spread(own.map((s) => s.readyMs)),
          ratio: spread(own.map((s, round) => s.readyMs / (baseline[round]?.readyMs ?? Number.NaN))),
        },
        ...(scenario.invoke
          ? {
              invocation: {
                first: spread(own.map((s) => s.firstInvocationMs ?? Number.NaN)),
                second: spread(own.map((s) => s.secondInvocationMs ?? Number.NaN)),
                firstRatio: spread(own.map((s, round) => (s.firstInvocationMs ?? Number.NaN) / (baseline[round]?.firstInvocationMs ?? Number.NaN))),
              },
            }
          : {}),
        ...(scenario.waitForTelemetry
          ? { telemetryReady: { ms: spread(own.map((s) => s.telemetryReadyMs ?? Number.NaN)), backend: own[0]?.telemetryBackend ?? 'unknown' } }
          : {}),
      };
    });
  } finally {
    rmSync(cacheRoot, { recursive: true, force: true });
  }
}

/**
 * A bare function app: one `app.http` function answering `{}`, as the Functions quick start writes
 * it, in a directory of its own under `tmpDir`. The yardstick of the app's cold start.
 */
export function writeBareApp(tmpDir: string): { appRoot: string; entry: string } {
  const appRoot = path.join(tmpDir, 'bare-app');
  mkdirSync(appRoot, { recursive: true });
  writeFileSync(path.join(appRoot, 'package.json'), JSON.stringify({ name: 'bare-app', main: 'index.js' }));
  const functionsPackage = require.resolve('@azure/functions');
  writeFileSync(
    path.join(appRoot, 'index.js'),
    `const { app } = require(${JSON.stringify(functionsPackage)});\n` +
      `app.http('hello', { methods: ['GET'], authLevel: 'anonymous', handler: async () => ({ jsonBody: {} }) });\n`,
  );
  return { appRoot, entry: path.join(appRoot, 'index.js') };
}
