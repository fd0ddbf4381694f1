import { GOALS, verdictOf, verdictText, type GoalRow } from './goals';
import { ms, spreadText, table } from './markdown';
import type { UnknownVersusWrong } from './scenarios';
import { spread, type Spread } from './stats';

/** unknown ÷ wrong PIN, the ratio of the two medians within each round. */
const perRoundRatio = (r: UnknownVersusWrong): Spread => spread(r.rounds.map((round) => round.unknown.medianMs / round.wrongPin.medianMs));

/** How far apart a ratio of two times is: the slower one's excess over the faster (0.05 = 5%). */
const apart = (ratio: number): number => Math.max(ratio, 1 / ratio) - 1;

/**
 * Judged on the median of the per-round ratios: a ratio's noise falls on both sides of it, while
 * the per-round distance from 1 only grows with noise.
 */
const met = (r: UnknownVersusWrong): boolean => apart(perRoundRatio(r).median) <= GOALS.timingTolerance;

const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

/** The goal summary's row of this section (the contract's, not the issue's). */
export function timingGoals(r: UnknownVersusWrong): GoalRow[] {
  const ratio = perRoundRatio(r);
  return [
    {
      goal: `Unknown username and wrong PIN within ${GOALS.timingTolerance * 100}% (contract section 4)`,
      figure: `unknown ÷ wrong PIN ${spreadText(ratio, (value) => value.toFixed(3))}: ${percent(apart(ratio.median))} apart`,
      verdict: verdictOf(met(r)),
    },
  ];
}

/** Why the goal is missed: the rounds agree on which is slower (a real difference), or they do not (the machine's noise). */
function missed(r: UnknownVersusWrong): string {
  const ratio = perRoundRatio(r);
  const slower = ratio.median > 1 ? 'unknown username' : 'wrong PIN';
  const gap = `${ms(Math.abs(r.unknown.medianMs - r.wrongPin.medianMs))} ms between the pooled medians`;
  return ratio.min < 1 && ratio.max > 1
    ? `Why the goal is missed: the rounds disagree on which is slower (ratios from ${ratio.min.toFixed(3)} to ${ratio.max.toFixed(3)}), ${gap}: the machine's noise during the run outweighs any difference of the two paths; see the load averages in the last table.`
    : `Why the goal is missed: every round has the ${slower} slower, ${gap}: the two paths differ in the work they do, which the contract forbids (\`shared/auth/sign-in-child.ts\`: both must spend one Argon2id verification and the same lookups).`;
}

/** The unknown-username against wrong-PIN section: each figure per round, the ratio within each round. */
export function renderTimingSection(r: UnknownVersusWrong): string[] {
  const ratio = perRoundRatio(r);
  const row = (label: string, all: UnknownVersusWrong['unknown'], pick: (round: UnknownVersusWrong['rounds'][number]) => number): string[] => [
    label,
    String(all.samples),
    spreadText(spread(r.rounds.map(pick)), ms),
    `${ms(all.medianMs)} / ${ms(all.p99Ms)}`,
  ];
  return [
    `## Unknown username against wrong PIN (contract section 4: within ${GOALS.timingTolerance * 100}%; ${r.rounds.length} rounds)`,
    '',
    table(
      ['Child sign-in answered 401', 'Samples', 'Median ms (min / median / max of the rounds)', 'All samples: median / p99 ms'],
      [
        row('Unknown username (fresh each time)', r.unknown, (round) => round.unknown.medianMs),
        row('Wrong PIN of an existing child', r.wrongPin, (round) => round.wrongPin.medianMs),
      ],
      3,
    ),
    '',
    `Ratio of medians (unknown ÷ wrong PIN) per round: ${spreadText(ratio, (value) => value.toFixed(3))} (all samples pooled: ${(r.unknown.medianMs / r.wrongPin.medianMs).toFixed(3)}). At the median ratio the slower is ${percent(apart(ratio.median))} above the faster: ${verdictText(verdictOf(met(r)))} (goal: within ${GOALS.timingTolerance * 100}%, judged on the median ratio; one round's ratio rests on ${r.rounds[0]?.unknown.samples ?? 0} pairs, so its min and max carry that much noise).`,
    '',
    ...(met(r) ? [] : [missed(r), '']),
  ];
}
