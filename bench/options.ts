import path from 'node:path';
import { ADAPTER_CHANNELS, FANOUT_PHASES, type FanoutPlan } from './fanout';

/** The parts of the bench, in the order a full run measures them. */
export const SECTIONS = ['http', 'argon2', 'timing', 'memory', 'hash-fairness', 'cold-start', 'first-sign-in', 'logger', 'fanout', 'push-telemetry', 'push-scaling'] as const;
export type Section = (typeof SECTIONS)[number];

/** The sections that need the local host, its identity provider and the bench's accounts. */
export const HOST_SECTIONS: readonly Section[] = ['http', 'argon2', 'timing', 'memory'];

export interface BenchOptions {
  /** What to measure: every section unless `--only` named some. */
  sections: readonly Section[];
  /** True with `--only`: print the sections and leave bench/results.md alone. */
  partial: boolean;
  /** `--phases`: only these fan-out runs. */
  phases?: NonNullable<FanoutPlan['phases']>;
  /** `--cpu-prof <dir>`: each fan-out worker writes a V8 CPU profile there. */
  cpuProfileDir?: string;
  /** `--fanout-repeats <n>`: how many times each fan-out run is repeated (undefined: the bench's default). */
  fanoutRepeats?: number;
}

/** The fan-out run names `--phases` accepts: the fan-outs and the adapter-alone runs. */
const knownPhases = (): string[] => [...FANOUT_PHASES.map((phase) => phase.name), ...ADAPTER_CHANNELS.map((channel) => `${channel}-adapter`)];

function listOf<T extends string>(flag: string, value: string, known: readonly string[]): T[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`${flag}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  if (names.length === 0) throw new Error(`${flag} needs a comma-separated list (known: ${known.join(', ')})`);
  return names as T[];
}

/**
 * The bench's command line:
 *   [--only <sections>] (any of `SECTIONS`, comma-separated)
 *   [--phases push,sms,email,combined,sms-adapter,email-adapter] [--cpu-prof <dir>] [--fanout-repeats <n>]
 * `--phases` and `--cpu-prof` shape the fan-out and so need it selected.
 * @throws on an unknown flag or name, a missing value, or fan-out flags without the fan-out.
 */
export function parseOptions(argv: readonly string[]): BenchOptions {
  let only: Section[] | undefined;
  const options: Omit<BenchOptions, 'sections' | 'partial'> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${String(flag)} needs a value (see bench/options.ts)`);
    if (flag === '--only') only = listOf<Section>(flag, value, SECTIONS);
    else if (flag === '--phases') options.phases = listOf(flag, value, knownPhases());
    else if (flag === '--cpu-prof') options.cpuProfileDir = path.resolve(value);
    else if (flag === '--fanout-repeats') {
      const repeats = Number(value);
      if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--fanout-repeats must be a positive integer, got ${value}`);
      options.fanoutRepeats = repeats;
    } else throw new Error(`unknown option ${String(flag)} (see bench/options.ts)`);
  }
  // Kept in the bench's own order whatever order --only listed them in.
  const sections = only ? SECTIONS.filter((section) => only.includes(section)) : [...SECTIONS];
  if ((options.phases || options.cpuProfileDir || options.fanoutRepeats) && !sections.includes('fanout')) {
    throw new Error('--phases, --cpu-prof and --fanout-repeats shape the fan-out: select it (--only fanout,…)');
  }
  return { sections, partial: only !== undefined, ...options };
}
