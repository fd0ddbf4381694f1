import { rmSync } from 'node:fs';
import path from 'node:path';
import { CHILD_PIN, childUsername, createChildren, signInAdults, WRONG_PIN, type Adult } from './accounts';
import { BENCH_TMP, startBenchHost } from './bench-host';
import { GOALS, verdictOf, verdictText, type GoalRow } from './goals';
import { createClient, type BenchRequest } from './http-client';
import { startIdentityProvider } from './id-provider';
import { ms, spreadText, table, times } from './markdown';
import { median, spread, type Spread } from './stats';

/**
 * What the first sign-in of a fresh process costs against a warm one, and
 * unknown username against wrong PIN from the very first request. Each round starts five fresh
 * local hosts on one seeded SQLite database, one after another, each answering a different first
 * request: a child sign-in, an adult sign-in, an unknown username, a wrong PIN, and `/api/health`
 * (the reference: what any first request costs); the child, adult and health hosts then answer
 * `warm` more of the same, whose median is the warm figure of that process. Every request
 * comes from an address of its own (one trusted proxy hop), and every wrong PIN goes to a child of
 * its own, so no throttle answers instead of the sign-in.
 */

export interface FirstSignInPlan {
  rounds: number;
  /** Sign-ins after the first, on the same process: their median is the warm time. */
  warm: number;
  pepper: string;
}

type FirstKind = 'child' | 'adult' | 'unknown' | 'wrongPin' | 'health';
const KINDS: readonly FirstKind[] = ['child', 'adult', 'unknown', 'wrongPin', 'health'];
/** The kinds whose warm figure is measured on the same process after the first. */
const WITH_WARM = ['child', 'adult', 'health'] as const;

export interface FirstSignInRound {
  /** The first request of a fresh host, ms, by kind. */
  first: Record<FirstKind, number>;
  /** The median of the warm requests after it (child, adult and the `/api/health` reference), ms. */
  warm: { child: number; adult: number; health: number };
}

export interface FirstSignInMeasurement {
  plan: FirstSignInPlan;
  rounds: FirstSignInRound[];
  child: { first: Spread; warm: Spread; ratio: Spread };
  adult: { first: Spread; warm: Spread; ratio: Spread };
  /** The reference: what any first request of a fresh process costs (`GET /api/health`, no database, no hashing). */
  health: { first: Spread; warm: Spread; ratio: Spread };
  /**
   * What the first child sign-in costs beyond what any first request of a fresh host costs: (the
   * first child sign-in − the first `/api/health` of that round) ÷ that round's warm child sign-in.
   */
  childBeyondFirstRequest: Spread;
  /** The first unknown username ÷ the first wrong PIN, per round. */
  unknownVsWrongPin: { unknown: Spread; wrongPin: Spread; ratio: Spread };
}

/** Runs the rounds; throws when a host or an answer is not as expected. */
export async function measureFirstSignIns(plan: FirstSignInPlan, note: (message: string) => void): Promise<FirstSignInMeasurement> {
  const idp = await startIdentityProvider();
  const sqlitePath = path.join(BENCH_TMP, 'first-sign-in.sqlite');
  rmSync(sqlitePath, { force: true });
  const settings = {
    APP_ENV: 'test',
    LOG_LEVEL: 'info',
    SQLITE_PATH: sqlitePath,
    IDP_JWKS_URI: idp.jwksUri,
    IDP_ISSUER: idp.issuer,
    IDP_AUDIENCE: idp.audience,
    CHILD_SECRET_PEPPER: plan.pepper,
    TRUST_PROXY_HOPS: '1',
    UV_THREADPOOL_SIZE: '2',
  };
  try {
    // The seed: one adult, child 0 for the right PIN and one child per round for a wrong one.
    const seed = await startBenchHost(settings);
    let adult: Adult | undefined;
    try {
      const client = createClient(seed.baseUrl, 4);
      [adult] = await signInAdults(client, idp, 1);
      if (!adult) throw new Error('no adult signed in');
      await createChildren(client, adult, plan.rounds + 1);
      client.close();
    } finally {
      await seed.stop();
    }
    const parent = adult;
    // The seed host migrated the database. The measured hosts open it as production does, without
    // checking or running migrations (production's schema comes from `npm run migrate`, and
    // APP_ENV=production cannot run on SQLite): MIGRATE_ON_OPEN=false, the only setting that differs.
    const measured = { ...settings, MIGRATE_ON_OPEN: 'false' };
    let address = 0;
    const requestOf = (kind: FirstKind, round: number): BenchRequest => {
      address += 1;
      const headers = { 'x-forwarded-for': `198.51.${100 + Math.floor(address / 250)}.${(address % 250) + 1}` };
      switch (kind) {
        case 'adult':
          return { method: 'POST', path: '/api/v1/auth/session', headers, body: { idToken: parent.idToken } };
        case 'child':
          return { method: 'POST', path: '/api/v1/auth/child-session', headers, body: { username: childUsername(0), pin: CHILD_PIN } };
        case 'unknown':
          return { method: 'POST', path: '/api/v1/auth/child-session', headers, body: { username: `bench-nobody-${round}`, pin: WRONG_PIN } };
        case 'wrongPin':
          return { method: 'POST', path: '/api/v1/auth/child-session', headers, body: { username: childUsername(round + 1), pin: WRONG_PIN } };
        case 'health':
          return { method: 'GET', path: '/api/health', headers };
      }
    };
    const expected: Record<FirstKind, number> = { child: 200, adult: 200, unknown: 401, wrongPin: 401, health: 200 };

    const rounds: FirstSignInRound[] = [];
    for (let round = 0; round < plan.rounds; round += 1) {
      const first = {} as Record<FirstKind, number>;
      const warm = { child: Number.NaN, adult: Number.NaN, health: Number.NaN };
      // The kinds take turns within the round, their order turning each round.
      for (let turn = 0; turn < KINDS.length; turn += 1) {
        const kind = KINDS[(turn + round) % KINDS.length] as FirstKind;
        const host = await startBenchHost(measured);
        const client = createClient(host.baseUrl, 1);
        try {
          const answer = await client.send(requestOf(kind, round));
          if (answer.status !== expected[kind]) throw new Error(`first ${kind} sign-in answered ${answer.status}: ${answer.body}`);
          first[kind] = answer.ms;
          if ((WITH_WARM as readonly FirstKind[]).includes(kind)) {
            const times: number[] = [];
            for (let index = 0; index < plan.warm; index += 1) {
              const again = await client.send(requestOf(kind, round));
              if (again.status !== 200) throw new Error(`warm ${kind} sign-in answered ${again.status}: ${again.body}`);
              times.push(again.ms);
            }
            warm[kind as (typeof WITH_WARM)[number]] = median(times);
          }
        } finally {
          client.close();
          await host.stop();
        }
      }
      rounds.push({ first, warm });
      note(`first sign-ins, round ${round + 1}/${plan.rounds}: child ${ms(first.child)} ms (warm ${ms(warm.child)}), adult ${ms(first.adult)} ms (warm ${ms(warm.adult)}), unknown ${ms(first.unknown)} ms, wrong PIN ${ms(first.wrongPin)} ms, health ${ms(first.health)} ms (warm ${ms(warm.health)})`);
    }
    const of = (pick: (r: FirstSignInRound) => number): Spread => spread(rounds.map(pick));
    return {
      plan,
      rounds,
      child: { first: of((r) => r.first.child), warm: of((r) => r.warm.child), ratio: of((r) => r.first.child / r.warm.child) },
      adult: { first: of((r) => r.first.adult), warm: of((r) => r.warm.adult), ratio: of((r) => r.first.adult / r.warm.adult) },
      health: { first: of((r) => r.first.health), warm: of((r) => r.warm.health), ratio: of((r) => r.first.health / r.warm.health) },
      childBeyondFirstRequest: of((r) => (r.first.child - r.first.health) / r.warm.child),
      unknownVsWrongPin: {
        unknown: of((r) => r.first.unknown),
        wrongPin: of((r) => r.first.wrongPin),
        ratio: of((r) => r.first.unknown / r.first.wrongPin),
      },
    };
  } finally {
    await idp.close();
  }
}

/** Within `tolerance` of 1 either way. */
const within = (ratio: number, tolerance: number): boolean => Math.abs(ratio - 1) <= tolerance;

/** The goal rows: the first child sign-in against a warm one, the first unknown username against the first wrong PIN; the adult's is informational. */
export function firstSignInGoals(m: FirstSignInMeasurement): GoalRow[] {
  return [
    {
      goal: `First child sign-in of a fresh process: ≤ ${GOALS.firstChildSignIn}× a warm one`,
      figure: `${spreadText(m.child.ratio, times)} (first ${ms(m.child.first.median)} ms, warm ${ms(m.child.warm.median)} ms, medians)`,
      verdict: verdictOf(m.child.ratio.median <= GOALS.firstChildSignIn),
    },
    {
      goal: `First sign-in of a fresh process, unknown username ÷ wrong PIN: within ${GOALS.timingTolerance * 100} %`,
      figure: `${spreadText(m.unknownVsWrongPin.ratio, times)} (${ms(m.unknownVsWrongPin.unknown.median)} against ${ms(m.unknownVsWrongPin.wrongPin.median)} ms, medians)`,
      verdict: verdictOf(within(m.unknownVsWrongPin.ratio.median, GOALS.timingTolerance)),
    },
    {
      goal: 'First child sign-in of a fresh process less the first `/api/health` of a fresh process (what any first request costs, the Functions library\'s first invocation included), ÷ a warm one (no figure set)',
      figure: `${spreadText(m.childBeyondFirstRequest, times)} (first child ${ms(m.child.first.median)} ms, first health ${ms(m.health.first.median)} ms, warm child ${ms(m.child.warm.median)} ms, medians; the ratio per round)`,
      verdict: 'informational',
    },
    {
      goal: 'First adult sign-in of a fresh process ÷ a warm one (no figure set)',
      figure: `${spreadText(m.adult.ratio, times)} (first ${ms(m.adult.first.median)} ms, warm ${ms(m.adult.warm.median)} ms, medians)`,
      verdict: 'informational',
    },
  ];
}

export function renderFirstSignInSection(m: FirstSignInMeasurement): string[] {
  const rows = firstSignInGoals(m);
  return [
    `## First sign-ins of a fresh process (${m.plan.rounds} rounds)`,
    '',
    `Each round starts five fresh local hosts (\`dist/devhost/main.js\`, \`APP_ENV=test\`, SQLite, \`UV_THREADPOOL_SIZE=2\`) one after another on one seeded database, migrated by the seeding host; the measured hosts run with \`MIGRATE_ON_OPEN=false\`, so they open it as production does, never checking or running migrations (production takes its schema from \`npm run migrate\`; \`APP_ENV=production\` cannot run on SQLite, and this is the one setting that differs from the seeding host), each sent a different first request: a child sign-in, an adult sign-in (an ID token from the bench's JWKS server on 127.0.0.1), an unknown username, a wrong PIN, and for reference \`GET /api/health\` (what any first request costs: no database, no hashing); the order turns each round. The child, adult and health hosts then answer ${m.plan.warm} more of the same, one at a time: their median is the warm figure, and the ratio is taken within each process. The first request includes everything the process left for later: opening the database, loading argon2 or jose, fetching the JWKS. Times are the client's, from sending to the answer's last byte; the first request also opens its TCP connection.`,
    '',
    table(
      ['First request', 'First, ms (min / median / max)', 'Warm median, ms (min / median / max)', 'First ÷ warm (min / median / max)'],
      [
        ['Child sign-in (200)', spreadText(m.child.first, ms), spreadText(m.child.warm, ms), spreadText(m.child.ratio, times)],
        ['Adult sign-in (200)', spreadText(m.adult.first, ms), spreadText(m.adult.warm, ms), spreadText(m.adult.ratio, times)],
        ['For reference: `GET /api/health` (200)', spreadText(m.health.first, ms), spreadText(m.health.warm, ms), spreadText(m.health.ratio, times)],
        ['Unknown username (401)', spreadText(m.unknownVsWrongPin.unknown, ms), '–', '–'],
        ['Wrong PIN (401)', spreadText(m.unknownVsWrongPin.wrongPin, ms), '–', '–'],
      ],
      3,
    ),
    '',
    ...rows.map((row) => `- ${row.goal}: ${row.figure} — ${verdictText(row.verdict)}.`),
    '',
  ];
}
