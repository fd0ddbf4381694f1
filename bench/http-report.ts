import type { GoalRow } from './goals';
import { ms, spreadText, table, times } from './markdown';
import type { LatencySummary, SideBySideResult } from './scenarios';
import { spread, type Spread } from './stats';

/** The HTTP section's runs: the two floors and the endpoints, taking turns in `rounds` rounds. */
export interface HttpMeasurement {
  concurrency: number;
  rounds: number;
  /** Plain `node:http` in a process of its own answering `{}` (`bench/raw-http/server.ts`). */
  raw: SideBySideResult;
  /** `GET /api/bench/empty` on the local host: the app's pipeline answering `{}`. */
  empty: SideBySideResult;
  me: SideBySideResult;
  adultSignIn: SideBySideResult;
}

const figure = (result: SideBySideResult, pick: (s: LatencySummary) => number): Spread => spread(result.rounds.map(pick));

/** Each round's median of `result` ÷ the same round's median of `floor`. */
export function perRoundRatio(result: SideBySideResult, floor: SideBySideResult): Spread {
  return spread(
    result.rounds.map((round, index) => {
      const under = floor.rounds[index];
      if (!under) throw new Error('unreachable: both endpoints ran every round');
      return round.medianMs / under.medianMs;
    }),
  );
}

/** The goal summary's rows of this section: `/me` has no figure to meet, only to show. */
export function httpGoals(m: HttpMeasurement): GoalRow[] {
  return [
    {
      goal: '`/me` in one round trip to the store (issue goal 3): measured, no figure to meet',
      figure: `median ${ms(m.me.all.medianMs)} ms; ÷ \`{}\` ${spreadText(perRoundRatio(m.me, m.empty), times)}; ÷ raw \`node:http\` ${spreadText(perRoundRatio(m.me, m.raw), times)}`,
      verdict: 'informational',
    },
  ];
}

/**
 * The HTTP section: the raw `node:http` floor and the local host's `{}` floor side by side with
 * `/me` and adult sign-in, every figure per round (min / median / max of the rounds), and each
 * endpoint's per-round ratio to each floor.
 */
export function renderHttpSection(m: HttpMeasurement): string[] {
  const row = (label: string, result: SideBySideResult, isRaw: boolean, isEmpty: boolean): string[] => [
    label,
    String(result.all.samples),
    spreadText(figure(result, (s) => s.medianMs), ms),
    spreadText(figure(result, (s) => s.p99Ms), ms),
    spreadText(figure(result, (s) => s.perSecond ?? 0), (value) => value.toFixed(0)),
    isRaw ? '×1 (the floor)' : spreadText(perRoundRatio(result, m.raw), times),
    isRaw ? '–' : isEmpty ? '×1 (the floor)' : spreadText(perRoundRatio(result, m.empty), times),
    `${ms(result.all.medianMs)} / ${ms(result.all.p99Ms)}`,
  ];
  const hostOverRaw = perRoundRatio(m.empty, m.raw);
  return [
    `## HTTP endpoints against two floors: raw \`node:http\` and \`{}\` on the local host (${m.concurrency} requests at a time, ${m.rounds} rounds)`,
    '',
    `The four endpoints take turns: in each of ${m.rounds} rounds every endpoint gets its slice of requests, one after another, so a busy moment of the machine falls on all of them. Each figure is computed per round; the cells show the rounds' **min / median / max**, and a ratio is taken within a round (this round's median ÷ this round's floor median) before its spread. The raw floor is plain \`node:http\` in a process of its own answering every \`GET\` with \`{}\` (\`bench/raw-http/server.ts\`), reached by the same client with the same ${m.concurrency} keep-alive connections: what any Node HTTP server costs on this machine, client included. \`{}\` on the local host (\`GET /api/bench/empty\`, bench-only) goes through the stand-in Functions host and the app's whole pipeline (request id, log context, one \`request handled\` line) and does nothing else.`,
    '',
    table(
      [
        'Endpoint',
        'Requests',
        'Median ms',
        'p99 ms',
        'Requests/s',
        'Median ÷ raw `node:http`',
        'Median ÷ `{}`',
        'All requests pooled: median / p99 ms',
      ],
      [
        row('Raw `node:http` answering `{}` (separate process)', m.raw, true, false),
        row('`GET /api/bench/empty` on the local host (bench-only, answers `{}`)', m.empty, false, true),
        row('`GET /api/v1/me`', m.me, false, false),
        row('`POST /api/v1/auth/session` (adult sign-in)', m.adultSignIn, false, false),
      ],
      7,
    ),
    '',
    `The local host's \`{}\` takes ${spreadText(hostOverRaw, times)} the raw floor's median: the stand-in host and the app's pipeline around an endpoint that does nothing. Against the raw floor, \`/me\` takes ${spreadText(perRoundRatio(m.me, m.raw), times)} and adult sign-in ${spreadText(perRoundRatio(m.adultSignIn, m.raw), times)}; against \`{}\`, ${spreadText(perRoundRatio(m.me, m.empty), times)} and ${spreadText(perRoundRatio(m.adultSignIn, m.empty), times)}. No goal is set on these figures; \`/me\`'s (issue goal 3: one round trip) is a count of store round trips, which \`test/auth/flows/session-round-trips.test.ts\` checks; the bench shows its time.`,
    '',
  ];
}
