import { ARGON2ID_PARAMS } from '../shared/ports/secret-hasher';
import { ms, spreadText, table } from './markdown';
import type { Argon2VersusSignIn } from './scenarios';
import { spread } from './stats';

/**
 * The Argon2id section: one verification alone against a full child sign-in, one at a time, each
 * figure per round (consecutive slices of the samples) as min / median / max, and what the sign-in
 * costs beyond its Argon2id (the difference of the two medians within each round). No goal: it
 * tells the hash's share of a sign-in.
 */
export function renderArgon2Section(r: Argon2VersusSignIn): string[] {
  const params = `m=${ARGON2ID_PARAMS.memoryCost} KiB, t=${ARGON2ID_PARAMS.timeCost}, p=${ARGON2ID_PARAMS.parallelism}`;
  const medians = (pick: (round: Argon2VersusSignIn['rounds'][number]) => number) => spread(r.rounds.map(pick));
  return [
    `## One Argon2id verification against a full child sign-in (one at a time, taking turns, ${r.rounds.length} rounds)`,
    '',
    table(
      ['Measurement', 'Samples', 'Median ms (min / median / max of the rounds)', 'All samples: median / p99 ms'],
      [
        [
          `Argon2id verify alone (${params}, peppered), in the bench process`,
          String(r.argon2.samples),
          spreadText(medians((round) => round.argon2.medianMs), ms),
          `${ms(r.argon2.medianMs)} / ${ms(r.argon2.p99Ms)}`,
        ],
        [
          '`POST /api/v1/auth/child-session`, correct PIN',
          String(r.childSignIn.samples),
          spreadText(medians((round) => round.childSignIn.medianMs), ms),
          `${ms(r.childSignIn.medianMs)} / ${ms(r.childSignIn.p99Ms)}`,
        ],
        [
          'Sign-in beyond Argon2id (difference of the medians)',
          '',
          spreadText(medians((round) => round.childSignIn.medianMs - round.argon2.medianMs), ms),
          ms(r.childSignIn.medianMs - r.argon2.medianMs),
        ],
      ],
      3,
    ),
    '',
  ];
}
