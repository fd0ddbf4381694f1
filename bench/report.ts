import { renderArgon2Section } from './argon2-report';
import { coldStartGoals, renderColdStartSection, type ColdStartMeasurement } from './cold-start-report';
import { firstSignInGoals, renderFirstSignInSection, type FirstSignInMeasurement } from './first-sign-in';
import type { FanoutMeasurement } from './fanout';
import { fanoutGoals, pushScalingGoals, renderFanoutSection, renderPushScaling, type PushScaling } from './fanout-report';
import { hashFairnessGoals, renderHashFairnessSection, type HashFairnessMeasurement } from './hash-fairness';
import { verdictText, type GoalRow } from './goals';
import { httpGoals, renderHttpSection, type HttpMeasurement } from './http-report';
import type { LoggerCostResult } from './logger-cost';
import { loggerGoals, renderLoggerSection } from './logger-report';
import { table } from './markdown';
import { memoryGoals, renderMemorySection, type MemoryMeasurement } from './memory-report';
import { SECTIONS, type Section } from './options';
import type { Argon2VersusSignIn, UnknownVersusWrong } from './scenarios';
import { renderTimingSection, timingGoals } from './timing-report';
import type { PushTelemetry } from './push-telemetry';
import { pushTelemetryGoals, renderPushTelemetry } from './push-telemetry-report';

/** How long one section took and how loaded the machine was when it began. */
export interface SectionRun {
  /** A section, or the setup the host sections share (`host setup`). */
  section: Section | 'host setup';
  seconds: number;
  /** The 1-minute load average when the section started. */
  loadBefore: number;
}

/** What a run measured: every section it ran (a partial run, `--only`, leaves the others out). */
export interface BenchResults {
  date: Date;
  machine: string;
  /** Cores available to this process: a load average above it means work waited for a core. */
  cores: number;
  /** The 1-minute load average when the run started and when it ended: other work on the machine skews every number. */
  loadBefore: number;
  loadAfter: number;
  sectionRuns: SectionRun[];
  /** The settings of the local host the HTTP, Argon2, timing and memory sections ran on. */
  hostSettings?: { appEnv: string; logLevel: string };
  http?: HttpMeasurement;
  argon2?: Argon2VersusSignIn;
  timing?: UnknownVersusWrong;
  memory?: MemoryMeasurement;
  hashFairness?: HashFairnessMeasurement;
  coldStart?: ColdStartMeasurement;
  firstSignIn?: FirstSignInMeasurement;
  logger?: LoggerCostResult;
  fanout?: FanoutMeasurement;
  pushTelemetry?: PushTelemetry;
  pushScaling?: PushScaling;
}

/** Every goal with its figure and verdict, in the issue's order, then the contract's. */
export function goalRows(r: BenchResults): GoalRow[] {
  return [
    ...(r.coldStart ? coldStartGoals(r.coldStart) : []),
    ...(r.firstSignIn ? firstSignInGoals(r.firstSignIn) : []),
    ...(r.logger ? loggerGoals(r.logger) : []),
    ...(r.http ? httpGoals(r.http) : []),
    ...(r.memory ? memoryGoals(r.memory) : []),
    ...(r.hashFairness ? hashFairnessGoals(r.hashFairness) : []),
    ...(r.fanout ? fanoutGoals(r.fanout) : []),
    ...(r.pushTelemetry ? pushTelemetryGoals(r.pushTelemetry) : []),
    ...(r.pushScaling ? pushScalingGoals(r.pushScaling) : []),
    ...(r.timing ? timingGoals(r.timing) : []),
  ];
}

function header(r: BenchResults): string[] {
  const ran = new Set<string>(r.sectionRuns.map((run) => run.section));
  const onHost = ran.has('http') || ran.has('argon2') || ran.has('timing') || ran.has('memory');
  return [
    '# Bench results',
    '',
    `- Date: ${r.date.toISOString()}`,
    `- Machine: ${r.machine}`,
    `- Load average (1 min): ${r.loadBefore.toFixed(2)} when the run started, ${r.loadAfter.toFixed(2)} when it ended, on ${r.cores} cores (above ${r.cores}, work waited for a core; each section's own is in the last table)`,
    ...(onHost && r.hostSettings
      ? [
          `- Host of the HTTP, Argon2id, timing and memory sections: the project's local host (\`dist/devhost/main.js\`, the stand-in for the Functions host), SQLite, \`APP_ENV=${r.hostSettings.appEnv}\`, \`LOG_LEVEL=${r.hostSettings.logLevel}\` (one log line per`,
          '  request, drained unread), ID tokens verified against a JWKS server on 127.0.0.1. The client runs on the same',
          '  machine, over keep-alive HTTP, and shares its CPU: absolute numbers are a floor for this machine, not a capacity plan.',
        ]
      : []),
    ...(SECTIONS.some((section) => !ran.has(section)) ? [`- A partial run (\`--only\`): ${SECTIONS.filter((section) => ran.has(section)).map((section) => `\`${section}\``).join(', ')}.`] : []),
    '',
  ];
}

function goalSummary(r: BenchResults): string[] {
  const rows = goalRows(r);
  if (rows.length === 0) return [];
  const missed = rows.filter((row) => row.verdict === 'not met');
  const judged = rows.filter((row) => row.verdict !== 'informational').length;
  return [
    '## Goals',
    '',
    'Every figure is repeated (rounds, repeats or fresh processes; each section says how) and shown as min / **median** / max; a goal is judged on the median. A goal not met is explained, with its figures, in its section.',
    '',
    table(
      ['Goal', 'Figure: min / **median** / max', 'Verdict'],
      rows.map((row) => [row.goal, row.figure, verdictText(row.verdict)]),
      0,
    ),
    '',
    ...(judged === 0
      ? []
      : [
          missed.length === 0
            ? `All ${judged} goals with a figure are met.`
            : `${missed.length} of ${judged} goals with a figure are **not met**: ${missed.map((row) => row.goal.replace(/ \((issue goal \d|contract section \d)\)$/, '')).join('; ')}.`,
          '',
        ]),
  ];
}

function sectionTimes(r: BenchResults): string[] {
  return [
    '## Sections run',
    '',
    table(
      ['Section', 'Time', 'Load average (1 min) when it started'],
      r.sectionRuns.map((run) => [`\`${run.section}\``, `${run.seconds.toFixed(0)} s`, run.loadBefore.toFixed(2)]),
    ),
    '',
  ];
}

/** The results as a markdown document: where they were measured, the goals and their verdicts, then every section's figures. */
export function renderReport(r: BenchResults): string {
  return [
    ...header(r),
    ...goalSummary(r),
    ...(r.coldStart ? renderColdStartSection(r.coldStart) : []),
    ...(r.firstSignIn ? renderFirstSignInSection(r.firstSignIn) : []),
    ...(r.logger ? renderLoggerSection(r.logger) : []),
    ...(r.http ? renderHttpSection(r.http) : []),
    ...(r.argon2 ? renderArgon2Section(r.argon2) : []),
    ...(r.timing ? renderTimingSection(r.timing) : []),
    ...(r.memory ? renderMemorySection(r.memory) : []),
    ...(r.hashFairness ? renderHashFairnessSection(r.hashFairness) : []),
    ...(r.fanout ? renderFanoutSection(r.fanout) : []),
    ...(r.pushTelemetry ? renderPushTelemetry(r.pushTelemetry) : []),
    ...(r.pushScaling ? renderPushScaling(r.pushScaling) : []),
    ...sectionTimes(r),
  ].join('\n');
}
