import { FANOUT_GOAL_RATIOS } from './fanout';

/**
 * The goals the bench checks (issue "Fast start and a lean hot path", and the contract), each
 * judged on the median of its repeated figure: the min and max beside it show how far one run of
 * the figure can move on this machine, and a goal met only at the min is not met.
 */
export const GOALS = {
  /**
   * Whole-process time to ready (entry point loaded and every `appStart` hook done, when
   * the worker answers the host) ÷ the bare app's, without telemetry.
   */
  coldStartNoTelemetry: 1.3,
  /** The same with a telemetry backend configured (Application Insights, or OTLP). */
  coldStartTelemetry: 1.5,
  /** The first child sign-in of a fresh process ÷ a warm one. */
  firstChildSignIn: 1.2,
  /** The project's logger ÷ plain pino, nanoseconds per line, per line shape. */
  loggerLine: 1.4,
  /** RSS peak above idle of 100 concurrent child sign-ins on a fresh host, MiB. */
  burstMiB: 60,
  /** Contract section 4: unknown username and wrong PIN within this fraction of each other. */
  timingTolerance: 0.1,
  /** A real child's sign-in behind a flood from one client, p95 in ms. */
  hashFairnessP95Ms: 1000,
  /** RSS after that flood above the warmed-up host's idle, MiB. */
  hashFairnessMiB: 50,
  /** Fan-out: each run's time ÷ its floor (push's with the ledger floor), per run. */
  fanoutRatio: FANOUT_GOAL_RATIOS,
} as const;

export type Verdict = 'met' | 'not met' | 'informational';

/** One line of the report's goal summary. */
export interface GoalRow {
  goal: string;
  /** The measured figure the verdict is judged on, with its spread. */
  figure: string;
  verdict: Verdict;
}

/** `met` when `met` is true: the verdict of a figure against its goal. */
export const verdictOf = (met: boolean): Verdict => (met ? 'met' : 'not met');

/** A verdict as a report cell; `not met` stands out. */
export const verdictText = (verdict: Verdict): string => (verdict === 'not met' ? '**not met**' : verdict);
