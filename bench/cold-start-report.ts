import type { ColdStartResult } from './cold-start/measure';
import type { StartProfile } from './cold-start-profile';
import type { ColdStartCase } from './cold-start-scenarios';
import { verdictOf, verdictText, type GoalRow, type Verdict } from './goals';
import { ms, spreadText, table, times } from './markdown';
import { median } from './stats';

/** The cold-start section's runs: each case with its result, in the scenarios' order (the baseline first). */
export interface ColdStartMeasurement {
  rounds: number;
  cases: { about: string; goal?: number; result: ColdStartResult }[];
  /** Where the time of the bare app's start and of the app's (no telemetry) goes, from profiled extra starts. */
  profiles?: { bare: StartProfile; app: StartProfile };
  /** `telemetryReadyScenarios`, measured apart: when a telemetry backend loaded after registration is ready. */
  telemetryReady?: { rounds: number; results: ColdStartResult[] };
}

/** Pairs each case with its result (`measureColdStarts` answers in the scenarios' order). */
export function coldStartMeasurement(
  cases: readonly ColdStartCase[],
  results: readonly ColdStartResult[],
  rounds: number,
  extra: Pick<ColdStartMeasurement, 'profiles' | 'telemetryReady'> = {},
): ColdStartMeasurement {
  return {
    rounds,
    ...extra,
    cases: cases.map((c, index) => {
      const result = results[index];
      if (!result || result.label !== c.scenario.label) throw new Error('unreachable: one result per scenario, in order');
      return { about: c.about, ...(c.goal === undefined ? {} : { goal: c.goal }), result };
    }),
  };
}

/** Judged on the time to ready: entry point loaded and every `appStart` hook done. */
const verdictOfCase = (c: ColdStartMeasurement['cases'][number]): Verdict | undefined =>
  c.goal === undefined ? undefined : verdictOf(c.result.ready.ratio.median <= c.goal);

const cpuMedian = (result: ColdStartResult): number => median(result.samples.map((s) => s.cpuMs));
/** A difference with its sign: `+12.3`, `−0.45`. */
const signed = (value: number): string => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;
const signedMs = (value: number): string => `${signed(value)} ms`;

type Case = ColdStartMeasurement['cases'][number];

/**
 * When the telemetry backends are ready: off the path to the first request (the figure judged
 * above), but work the process still does while its first requests come in.
 */
function renderTelemetryReady({ rounds, results }: NonNullable<ColdStartMeasurement['telemetryReady']>): string[] {
  const withBackend = results.filter((r) => r.telemetryReady);
  if (withBackend.length === 0) return [];
  return [
    `A configured telemetry backend is loaded by a worker thread of its own, started on the turn after the facade is made (after ready), so neither its load nor its exporters run on the main thread; when it is ready, measured apart (${rounds} interleaved rounds, each process kept alive until the app's \`telemetry ready\` line, timed from the process's spawn; such a process is then killed, so Node never writes its compile cache and every run compiles as with an empty cache):`,
    '',
    table(
      ['Scenario', 'Backend it named', 'ms to registration closed (min / median / max)', '**Telemetry ready**, ms from spawn (min / median / max)'],
      withBackend.map((r) => [r.label, `\`${r.telemetryReady?.backend ?? ''}\``, spreadText(r.ms, ms), spreadText(r.telemetryReady?.ms ?? r.ms, ms)]),
      2,
    ),
    '',
  ];
}

/** The origins whose self time the app adds most to the bare app's, largest first. */
function addedMost({ bare, app }: NonNullable<ColdStartMeasurement['profiles']>, count = 4): { origin: string; ms: number }[] {
  const bareMs = new Map(bare.origins.map((o) => [o.origin, o.selfMs]));
  return app.origins
    .map((o) => ({ origin: o.origin, ms: o.selfMs - (bareMs.get(o.origin) ?? 0) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

/** Origins shown one by one; the rest are summed in one row. */
const PROFILE_ROWS = 14;

/**
 * Self time by origin, the bare app beside the app: the origins the app spends most in first,
 * with what each adds over the bare app.
 */
function renderProfiles({ bare, app }: NonNullable<ColdStartMeasurement['profiles']>): string[] {
  const bareMs = new Map(bare.origins.map((o) => [o.origin, o.selfMs]));
  const shown = app.origins.slice(0, PROFILE_ROWS);
  const rest = (profile: StartProfile, skip: ReadonlySet<string>): number =>
    profile.origins.filter((o) => !skip.has(o.origin)).reduce((sum, o) => sum + o.selfMs, 0);
  const shownNames = new Set(shown.map((o) => o.origin));
  const added = addedMost({ bare, app });
  return [
    `### Where a start's time goes (${app.starts} extra starts of each under V8's CPU profiler, not counted above)`,
    '',
    `Self time by origin: the package, the app's folder or the part of Node whose code was running, found through the bundle's source map; mean of ${app.starts} starts each, sampled every 0.1 ms. The profiler slows a start and does not see Node's first milliseconds, so these times are larger, and their total (${ms(bare.profiledMs)} ms for the bare app, ${ms(app.profiledMs)} ms for the app) is not the figure above; they tell where the difference comes from.`,
    '',
    table(
      ['Origin', `${bare.label}, ms`, `${app.label}, ms`, 'The app − the bare app, ms'],
      [
        ...shown.map((o) => [o.origin, ms(bareMs.get(o.origin) ?? 0), ms(o.selfMs), signed(o.selfMs - (bareMs.get(o.origin) ?? 0))]),
        ['Every other origin', ms(rest(bare, shownNames)), ms(rest(app, shownNames)), signed(rest(app, shownNames) - rest(bare, shownNames))],
        ['**Profiled in all**', ms(bare.profiledMs), ms(app.profiledMs), signed(app.profiledMs - bare.profiledMs)],
      ],
      3,
    ),
    '',
    `What the app adds most: ${added.map((a) => `${a.origin} ${signedMs(a.ms)}`).join(', ')}.`,
    '',
  ];
}

/**
 * What a telemetry backend adds to the start, against the room the goals leave it (the telemetry
 * goal's ratio minus the no-telemetry goal's): says whether the backend or the start under it misses.
 */
function telemetryShare(c: Case, withoutTelemetry: Case): string {
  const added = c.result.ready.ratio.median - withoutTelemetry.result.ready.ratio.median;
  const room = (c.goal ?? 0) - (withoutTelemetry.goal ?? 0);
  const figures = `against the app without telemetry its median time to ready is ${signedMs(c.result.ready.ms.median - withoutTelemetry.result.ready.ms.median)} and its median ratio ${times(c.result.ready.ratio.median)} against ${times(withoutTelemetry.result.ready.ratio.median)}`;
  const share = `${added >= 0 ? '+' : '−'}${Math.abs(added).toFixed(2)}×`;
  return added <= room
    ? `${figures}: the backend adds ${share} the bare app's start, within the ${room.toFixed(1)}× the goals leave it (${c.goal}× − ${withoutTelemetry.goal}×), so what misses is the start without telemetry`
    : `${figures}: the backend adds ${share} the bare app's start, more than the ${room.toFixed(1)}× the goals leave it (${c.goal}× − ${withoutTelemetry.goal}×)`;
}

/** The goal summary's rows of this section (issue goal 1, one row per goal-bearing scenario, plus the new container's start). */
export function coldStartGoals(m: ColdStartMeasurement): GoalRow[] {
  const baseline = m.cases[0]?.result;
  if (!baseline) return [];
  const ready = (m.telemetryReady?.results ?? []).flatMap((r): GoalRow[] =>
    r.telemetryReady
      ? [
          {
            goal: `Cold start, ${r.label.charAt(0).toLowerCase()}${r.label.slice(1)}: the backend loads in its worker thread after ready (no figure set)`,
            figure: `\`${r.telemetryReady.backend}\` ready ${spreadText(r.telemetryReady.ms, ms)} ms from spawn`,
            verdict: 'informational',
          },
        ]
      : [],
  );
  const starts = m.cases.slice(1).flatMap((c): GoalRow[] => {
    const verdict = verdictOfCase(c);
    const figure = `${spreadText(c.result.ready.ratio, times)} the bare app (medians ${ms(c.result.ready.ms.median)} against ${ms(baseline.ready.ms.median)} ms; registration only ${times(c.result.ratio.median)})`;
    const label = `${c.result.label.charAt(0).toLowerCase()}${c.result.label.slice(1)}`;
    if (verdict) return [{ goal: `Time to ready, ${label}: ≤ ${c.goal}× the bare app`, figure, verdict }];
    // The unbundled output is a comparison, not a way the app starts.
    if (c.result.label.startsWith('For comparison')) return [];
    return [{ goal: `Time to ready, ${label} (no figure set)`, figure, verdict: 'informational' }];
  });
  const invocations = m.cases.slice(1).flatMap((c): GoalRow[] =>
    c.result.invocation && baseline.invocation
      ? [
          {
            goal: `First invocation right after ready, ${c.result.label.charAt(0).toLowerCase()}${c.result.label.slice(1)} (\`/api/health\`; no figure set)`,
            figure: `${spreadText(c.result.invocation.first, ms)} ms (second ${ms(c.result.invocation.second.median)} ms; the bare app's first ${ms(baseline.invocation.first.median)} ms)`,
            verdict: 'informational',
          },
        ]
      : [],
  );
  return [...starts, ...invocations, ...ready];
}

/**
 * Registration alone, informational: the Functions worker answers the host only after the
 * `appStart` hooks, so work moved from registration into a hook is not gained.
 */
function renderRegistration(m: ColdStartMeasurement): string[] {
  return [
    "Registration alone (the entry point loaded, before the `appStart` hooks): informational, since work moved from registration into a hook is still waited for. Same runs:",
    '',
    table(
      ['Scenario', 'ms to registration closed (min / median / max)', 'CPU ms by then (median)', '÷ bare app (min / median / max)'],
      m.cases.map((c, index) => [
        c.result.label,
        spreadText(c.result.ms, ms),
        ms(cpuMedian(c.result)),
        index === 0 ? '×1 (the baseline)' : spreadText(c.result.ratio, times),
      ]),
      1,
    ),
    '',
  ];
}

/** The first invocation right after ready and a second one, through the registered handler (same runs). */
function renderInvocations(m: ColdStartMeasurement): string[] {
  const invoked = m.cases.filter((c) => c.result.invocation);
  if (invoked.length === 0) return [];
  return [
    "The first invocation right after ready (the probe invokes the registered HTTP function as the worker would, with the library's own request and context: the app's `/api/health`, the bare app's `hello`), then a second one. Whatever the start hook left for later is paid here (the services, the telemetry facade). Same runs:",
    '',
    table(
      ['Scenario', 'First invocation, ms (min / median / max)', 'Second, ms (min / median / max)', 'First ÷ the bare app\'s first (median)'],
      invoked.map((c, index) => [
        c.result.label,
        spreadText(c.result.invocation?.first ?? c.result.ms, ms),
        spreadText(c.result.invocation?.second ?? c.result.ms, ms),
        index === 0 ? '×1 (the baseline)' : times(c.result.invocation?.firstRatio.median ?? Number.NaN),
      ]),
      1,
    ),
    '',
  ];
}

/**
 * The cold-start section: every scenario as whole fresh processes, interleaved rounds, time and
 * the per-round ratio to the bare app as min / median / max, the goal judged on the median ratio;
 * for each goal missed, the figures that say where the time went.
 */
export function renderColdStartSection(m: ColdStartMeasurement): string[] {
  const [baseline] = m.cases;
  if (!baseline) return [];
  const bundled = m.cases[1];
  const unbundled = m.cases.find((c) => c.result.label.startsWith('For comparison'));
  const missed = m.cases.filter((c) => verdictOfCase(c) === 'not met');
  const rows = m.cases.map((c, index) => {
    const verdict = verdictOfCase(c);
    return [
      c.result.label,
      c.about,
      String(c.result.modules),
      String(c.result.registrations),
      spreadText(c.result.ready.ms, ms),
      index === 0 ? '×1 (the baseline)' : spreadText(c.result.ready.ratio, times),
      c.goal === undefined ? (index === 0 ? '–' : 'informational') : `≤ ${c.goal}×`,
      verdict ? verdictText(verdict) : '–',
    ];
  });
  return [
    `## Cold start: time to ready, whole processes, ${m.rounds} interleaved rounds`,
    '',
    `Each start is a fresh \`node\` process running \`bench/cold-start/probe.ts\`: it provides \`@azure/functions-core\` as the Functions worker does, loads the app's entry, closes registration, runs the app's \`appStart\` hooks one after another as the worker's \`startApp\` does before it answers the host, and reports the milliseconds since the process began until they are done (**time to ready**, the judged figure; Node's own start-up included, the same for every scenario), the same until registration closed, its CPU time and the modules loaded (the probe's own included). The scenarios take turns: round 1 starts each once, then round 2… so a change in the machine's load hits all of them; the ratio to the bare app is taken within each round; the bare app has no hook, so its ready is its registration. The app's scenarios run with production settings (\`APP_ENV=production\` and placeholders for what production requires; nothing is connected at start). Compile cache: \`warm\` gives a scenario a \`NODE_COMPILE_CACHE\` directory of its own, filled by one unmeasured start (an image that carries the cache, or a restart); \`empty\` starts each run with a new empty directory. Goals are judged on the **median** ratio.`,
    '',
    table(
      [
        'Scenario',
        'What it is',
        'Modules loaded',
        'Registrations',
        '**ms to ready**: entry point and every `appStart` hook (min / median / max)',
        '÷ bare app (min / median / max)',
        'Goal',
        'Met',
      ],
      rows,
      6,
    ),
    '',
    ...renderRegistration(m),
    ...renderInvocations(m),
    ...(m.telemetryReady ? renderTelemetryReady(m.telemetryReady) : []),
    ...(bundled && unbundled
      ? [
          `The bundle against the unbundled tsc output (both warm, no telemetry): ${ms(bundled.result.ms.median)} ms against ${ms(unbundled.result.ms.median)} ms median, ${bundled.result.modules} modules loaded against ${unbundled.result.modules}.`,
          '',
        ]
      : []),
    ...(m.profiles ? renderProfiles(m.profiles) : []),
    ...(missed.length > 0
      ? [
          '### Where a cold-start goal is missed',
          '',
          ...missed.map(
            (c) =>
              `- **${c.result.label}: ready at ${times(c.result.ready.ratio.median)} the bare app, goal ≤ ${c.goal}× not met.** Median ${ms(c.result.ready.ms.median)} ms against the bare app's ${ms(baseline.result.ready.ms.median)} ms: ${ms(c.result.ready.ms.median - baseline.result.ready.ms.median)} ms more (registration alone ${ms(c.result.ms.median - baseline.result.ms.median)} ms more), and ${ms(cpuMedian(c.result) - cpuMedian(baseline.result))} ms more CPU time${bundled && c !== bundled ? `; ${telemetryShare(c, bundled)}` : ''}${c === bundled && m.profiles ? `. The profile above says where: ${addedMost(m.profiles, 3).map((a) => `${a.origin} ${signedMs(a.ms)}`).join(', ')} (profiled time)` : ''}.`,
          ),
          '',
        ]
      : []),
  ];
}
