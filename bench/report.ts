import { ARGON2ID_PARAMS } from '../shared/auth/child/secret-hasher';
import type { FanoutMeasurement } from './fanout';
import { renderFanoutSection } from './fanout-report';
import { mib, ms, table } from './markdown';
import type { Argon2VersusSignIn, BurstMemory, LatencySummary, UnknownVersusWrong } from './scenarios';

export interface BenchResults {
  date: Date;
  machine: string;
  /** The 1-minute load average when the run started: other work on the machine skews every number. */
  loadBefore: number;
  concurrency: number;
  empty: LatencySummary;
  me: LatencySummary;
  adultSignIn: LatencySummary;
  argon2: Argon2VersusSignIn;
  timing: UnknownVersusWrong;
  /** The burst ran on a fresh host; the first host's RSS is kept for comparison. */
  memory: BurstMemory & { startBytes: number; afterRunsBytes: number };
  fanout: FanoutMeasurement;
}

/** The contract's bound for unknown-username against wrong-secret response times. */
export const TIMING_TOLERANCE = 0.1;

/** The results as a markdown document: what was measured, where, and the numbers. */
export function renderReport(r: BenchResults): string {
  const versusEmpty = (s: LatencySummary): string => `×${(s.medianMs / r.empty.medianMs).toFixed(1)}`;
  const http = (label: string, s: LatencySummary): string[] => [
    label,
    String(s.samples),
    ms(s.medianMs),
    ms(s.p99Ms),
    (s.perSecond ?? 0).toFixed(0),
    label.includes('{}') ? '×1.0' : versusEmpty(s),
  ];
  const oneAtATime = (label: string, s: LatencySummary): string[] => [label, String(s.samples), ms(s.medianMs), ms(s.p99Ms)];
  const { unknown, wrongPin } = r.timing;
  const slower = Math.max(unknown.medianMs, wrongPin.medianMs);
  const faster = Math.min(unknown.medianMs, wrongPin.medianMs);
  const apart = slower / faster - 1;
  const params = `m=${ARGON2ID_PARAMS.memoryCost} KiB, t=${ARGON2ID_PARAMS.timeCost}, p=${ARGON2ID_PARAMS.parallelism}`;
  const m = r.memory;

  return [
    '# Bench results',
    '',
    `- Date: ${r.date.toISOString()}`,
    `- Machine: ${r.machine}`,
    `- Load average (1 min) when the run started: ${r.loadBefore.toFixed(2)}`,
    '- Host of the HTTP sections: the project\'s local host (`dist/devhost/main.js`), SQLite, `APP_ENV=test`, `LOG_LEVEL=info` (one log line per',
    '  request, drained unread), ID tokens verified against a JWKS server on 127.0.0.1. The client runs on the same',
    '  machine, over keep-alive HTTP, and shares its CPU: absolute numbers are a floor for this machine, not a capacity plan.',
    '',
    `## HTTP endpoints against \`{}\` (${r.concurrency} requests at a time, the three taking turns)`,
    '',
    table(
      ['Endpoint', 'Requests', 'Median ms', 'p99 ms', 'Requests/s', 'Median vs `{}`'],
      [
        http('`GET /api/bench/empty` (bench-only, answers `{}`)', r.empty),
        http('`GET /api/v1/me`', r.me),
        http('`POST /api/v1/auth/session` (adult sign-in)', r.adultSignIn),
      ],
      5,
    ),
    '',
    '## One Argon2id verification against a full child sign-in (one at a time, taking turns)',
    '',
    table(
      ['Measurement', 'Samples', 'Median ms', 'p99 ms'],
      [
        oneAtATime(`Argon2id verify alone (${params}, peppered), in the bench process`, r.argon2.argon2),
        oneAtATime('`POST /api/v1/auth/child-session`, correct PIN', r.argon2.childSignIn),
        ['Sign-in beyond Argon2id (difference of medians)', '', ms(r.argon2.childSignIn.medianMs - r.argon2.argon2.medianMs), ''],
      ],
      3,
    ),
    '',
    '## Unknown username against wrong PIN (contract section 4: within 10%)',
    '',
    table(
      ['Child sign-in answered 401', 'Samples', 'Median ms', 'p99 ms'],
      [oneAtATime('Unknown username (fresh each time)', unknown), oneAtATime('Wrong PIN of an existing child', wrongPin)],
      3,
    ),
    '',
    `Ratio of medians (unknown / wrong PIN): ${(unknown.medianMs / wrongPin.medianMs).toFixed(3)}; the slower is ${(apart * 100).toFixed(1)}% above the faster: ${apart <= TIMING_TOLERANCE ? '**within 10%**' : '**NOT within 10%**'}.`,
    '',
    `## Memory: ${m.burst.samples} child sign-ins at once`,
    '',
    table(
      ['Measurement', 'Value'],
      [
        ['Fresh host, idle (database open), before the burst', `${mib(m.idleBytes)} MiB`],
        ['Peak during the burst', `${mib(m.peakBytes)} MiB`],
        ['Peak above idle', `${mib(m.peakBytes - m.idleBytes)} MiB`],
        ['Answers 200', `${m.answered200} / ${m.burst.samples}`],
        ['Burst wall time', `${ms(m.burst.wallMs)} ms`],
        ['Sign-in latency in the burst: median / p99 / max', `${ms(m.burst.medianMs)} / ${ms(m.burst.p99Ms)} / ${ms(m.burst.maxMs)} ms`],
        ['For comparison, the first host right after start', `${mib(m.startBytes)} MiB`],
        ['For comparison, the first host after all the runs above', `${mib(m.afterRunsBytes)} MiB`],
      ],
      1,
    ),
    '',
    `RSS of the host process. Peak: the highest of ${m.readings} readings every 20 ms and, on Linux, the kernel's high-water mark (VmHWM, reset just before the burst). The burst runs on a freshly started host with the same database, so memory the allocator kept from earlier runs does not hide what the burst needs.`,
    '',
    ...renderFanoutSection(r.fanout),
  ].join('\n');
}
