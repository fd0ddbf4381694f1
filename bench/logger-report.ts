import { GOALS, verdictOf, verdictText, type GoalRow } from './goals';
import { count, spreadText, table, times } from './markdown';
import type { LoggerCostResult, LoggerCostShape } from './logger-cost';

const met = (shape: LoggerCostShape): boolean => shape.ratio.median <= GOALS.loggerLine;

/** The goal summary's rows of this section (issue goal 2, one per line shape). */
export function loggerGoals(r: LoggerCostResult): GoalRow[] {
  return r.shapes.map((shape) => ({
    goal: `A log line of shape \`${shape.shape}\` ≤ ${GOALS.loggerLine}× plain pino (issue goal 2)`,
    figure: `${spreadText(shape.ratio, times)} (${shape.projectNsPerLine.toFixed(0)} against ${shape.plainNsPerLine.toFixed(0)} ns a line)`,
    verdict: verdictOf(met(shape)),
  }));
}

/**
 * The logger section: per line shape, the project's logger against plain pino writing the same
 * fields (`bench/logger-cost.ts`), ratio min / median / max over the interleaved repeats, the
 * goal judged on the median; for a shape that misses it, how many nanoseconds a line are over.
 */
export function renderLoggerSection(r: LoggerCostResult): string[] {
  const missed = r.shapes.filter((shape) => !met(shape));
  return [
    `## A log line against plain pino (issue goal 2: ≤ ${GOALS.loggerLine}× per line shape)`,
    '',
    `\`bench/logger-cost.ts\`, in a process of its own: for each line shape the hot paths write (\`request\`: the HTTP pipeline's \`request handled\`; \`delivery\`: the fan-out's per-attempt line; \`error\`: a failed attempt with its error and stack), ${count(r.lines)} lines through the project's logger (\`createLogger\`, level info, inside the request chain's log context) and ${count(r.lines)} through plain pino with the same base fields, timestamp and message key, both into a sink that keeps only a running length (the cost measured is building the line, not writing it). ${r.repeats} interleaved repeats after an uncounted warm-up, the order alternating; the ratio is taken within each repeat.`,
    '',
    table(
      ['Line shape', 'Project ns a line (median)', 'Plain pino ns a line (median)', 'Project ÷ pino (min / median / max)', 'Goal', 'Met'],
      r.shapes.map((shape) => [
        `\`${shape.shape}\``,
        shape.projectNsPerLine.toFixed(0),
        shape.plainNsPerLine.toFixed(0),
        spreadText(shape.ratio, times),
        `≤ ${GOALS.loggerLine}×`,
        verdictText(verdictOf(met(shape))),
      ]),
      5,
    ),
    '',
    ...(missed.length > 0
      ? [
          `Where the goal is missed: ${missed
            .map(
              (shape) =>
                `\`${shape.shape}\` costs ${(shape.projectNsPerLine - shape.plainNsPerLine).toFixed(0)} ns a line more than plain pino, ${(shape.projectNsPerLine - GOALS.loggerLine * shape.plainNsPerLine).toFixed(0)} ns over the ${GOALS.loggerLine}× budget`,
            )
            .join('; ')}. What the project's logger does per line that plain pino does not (\`shared/logging/logger.ts\`): secret and personal fields redacted by name (a walk of the line's fields and of an error's own properties), then \`scrubSecrets\` over the text the line's own fields added, and the request chain's log context looked up and merged.`,
          '',
        ]
      : []),
  ];
}
