import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
}

export interface ColdStartSample {
  ms: number;
  /** CPU time of the process (user + system) until registration closed. */
  cpuMs: number;
  modules: number;
  registrations: number;
}

export interface ColdStartResult {
  label: string;
  samples: ColdStartSample[];
  ms: Spread;
  modules: number;
  registrations: number;
  /** Each round's time ÷ the baseline's in the same round: min / median / max. */
  ratio: Spread;
}

const PROBE = path.join(__dirname, 'probe.js');

async function startOnce(scenario: ColdStartScenario, cacheDir: string | undefined): Promise<ColdStartSample> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...scenario.env };
  if (cacheDir) env.NODE_COMPILE_CACHE = cacheDir;
  const { stdout } = await run(process.execPath, [PROBE, scenario.appRoot, ...scenario.entries], { env, maxBuffer: 16 * 1024 ** 2 });
  // The app's own log lines come first; the probe's JSON line is the last.
  const last = stdout.trim().split('\n').at(-1) ?? '';
  const sample = JSON.parse(last) as ColdStartSample;
  if (typeof sample.ms !== 'number' || sample.registrations < 1) throw new Error(`cold start of ${scenario.label}: unexpected probe output`);
  return sample;
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
