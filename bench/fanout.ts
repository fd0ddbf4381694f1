import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createSqliteDatabase } from '../shared/db/sqlite-database';
import { migrateDatabase } from '../shared/db/migrate';
import type { BatchTally } from '../shared/notifications/engine/delivery-context';
import type { DeliveryResult } from '../shared/notifications/ledger/delivery-ledger';
import { PUSH_BATCH_LIMIT } from '../shared/notifications/channels/deliver-push';
import { CHANNELS, type Channel } from '../shared/ports/delivery';
import { startFakeProviders, type FakeProviders } from '../test/helpers/fake-providers/start-fake-providers';
import type { AdapterDone, AdapterRun, FanoutBenchMessage, FanoutDone, FanoutReady, FanoutWorkerMessage } from './fanout-protocol';
import { seedFanoutAudience } from './fanout-seed';
import { measureLedgerFloor, type LedgerFloor } from './ledger-floor';
import { rssProbe } from './rss';
import { NODE_RUNTIME_FLAGS } from '../shared/lifecycle/node-runtime-flags';

/** The SMS spend cap of each run: 10,000 SMS at the default unit price cost $75, which the guard must let through. */
export const FANOUT_SMS_CAP_USD = 1000;

/**
 * The goal of each fan-out run: its time at most this many times its floor (the median of the
 * repeats' ratios). Push's floor is the provider floor plus the ledger floor (`ledger-floor.ts`),
 * the others' the provider floor alone.
 */
export const FANOUT_GOAL_RATIOS: Readonly<Record<FanoutPhaseName, number>> = { push: 1.5, sms: 1.1, email: 1.1, combined: 1.15 };

/** Push alone, at every audience size from 10,000 up, at most this many times (provider floor + ledger floor). */
export const PUSH_GOAL_RATIO = FANOUT_GOAL_RATIOS.push;

/** Push's time per recipient at 100,000 at most this many times that at 10,000. */
export const PUSH_SCALING_GOAL = 1.1;

/**
 * The result a delivery the provider took is recorded with: push is final at Expo's answer; an SMS
 * or e-mail stays `accepted` until its delivery report (or the settle timer) settles it.
 */
export const EXPECTED_RESULT: Record<Channel, DeliveryResult> = { push: 'success', sms: 'accepted', email: 'accepted' };

export type FanoutPhaseName = Channel | 'combined';

/**
 * The measured runs, in this order: one fan-out per channel (an announcement on that channel
 * alone), then the combined one (all three channels), each of the same audience in a database and a
 * worker process of its own.
 */
export const FANOUT_PHASES: readonly { name: FanoutPhaseName; channels: readonly Channel[] }[] = [
  { name: 'push', channels: ['push'] },
  { name: 'sms', channels: ['sms'] },
  { name: 'email', channels: ['email'] },
  { name: 'combined', channels: CHANNELS },
];

export interface FanoutPlan {
  recipients: number;
  /** The fake providers' answer latency. */
  providerDelayMs: number;
  /** Batch messages handled at once (the host runs several queue messages at once). */
  parallelBatches: number;
  sampleEveryMs: number;
  /** How the fake ACS runs an accepted e-mail's operation: `Running` for this many status requests, with this `retry-after`. */
  acs: { emailPollsUntilDone: number; emailRetryAfterSeconds: number };
  /** Where the workers' SQLite databases go (scratch space): one file per run, `<dir>/fanout-<phase>.sqlite`. */
  sqliteDir: string;
  /** Only these runs (default: all of `FANOUT_PHASES` and `ADAPTER_CHANNELS`); the bench's `--phases` sets it. */
  phases?: readonly (FanoutPhaseName | `${AdapterChannel}-adapter`)[];
  /** When set, each worker writes a V8 CPU profile there (`--cpu-prof`): for finding where its CPU time goes. */
  cpuProfileDir?: string;
  /**
   * How many times each run is made (default 1), interleaved: every selected run once, then again.
   * A run's figures are then reported as min / median / max, its details from the median run.
   */
  repeats?: number;
  /**
   * Application Insights configured, as in production: the workers' telemetry goes to this
   * ingestion endpoint (HTTPS, its certificate trusted through `NODE_EXTRA_CA_CERTS`), and each
   * worker starts its run once the backend has loaded. Unset: telemetry goes to the log only.
   */
  telemetry?: { connectionString: string; caCertPath: string };
}

/** The figures of one run of a fan-out or adapter, kept for each repeat: their spread is reported. */
export interface RunFigures {
  wallMs: number;
  floorMs: number;
  /** Push runs: the ledger floor measured beside this repeat (`ledger-floor.ts`). */
  ledgerFloorMs?: number;
  cpuMs: number;
  peakBytes: number;
  loadBefore: number;
}

/** Provider requests a run should make, by kind: one push request per 100 devices, one per SMS and per e-mail, no status polls. */
export interface PlannedRequests {
  push: number;
  sms: number;
  email: number;
  total: number;
}

/**
 * The provider-latency floor of one run: no run can be faster, whatever the CPU.
 * - Requests: every request waits `providerDelayMs`, and at most `inFlight` = delivery concurrency ×
 *   parallel batches are in flight: `requests ÷ inFlight × latency`.
 * - Batches: a batch message's requests go at most `deliveryConcurrency` at a time, so it takes at
 *   least ⌈its requests ÷ concurrency⌉ latencies; one of the `parallelBatches` slots handles at
 *   least ⌈batches ÷ parallel⌉ of them one after another.
 * The floor is the larger. The two agree for SMS and e-mail; for push (100 devices a request) the
 * batch bound is the larger: 20 batches of 5 requests are 5 rounds of one latency.
 */
export interface FanoutFloor {
  inFlight: number;
  requestBoundMs: number;
  batchBoundMs: number;
  /** Requests of the smallest batch, and latencies each batch takes at least. */
  smallestBatchRequests: number;
  roundsPerBatch: number;
  batchesPerSlot: number;
  floorMs: number;
}

/** One fan-out run, as measured. */
export type FanoutPhaseRun = Omit<FanoutPhase, 'repeats'>;

/** A fan-out's run whose time was the median of its repeats, with every repeat's figures. */
export interface FanoutPhase {
  /** Every repeat's figures, in the order they ran (the details below are the median run's). */
  repeats: RunFigures[];
  name: FanoutPhaseName;
  channels: readonly Channel[];
  result: FanoutDone;
  /** Requests the fake providers received during the run. */
  requests: { push: number; pushReceipts: number; sms: number; emailSend: number; emailStatus: number; rejectedSignatures: number; repeats: number };
  /** Messages per push request, smallest and largest (undefined: no push request). */
  pushBatchSizes?: { min: number; max: number };
  planned: PlannedRequests;
  floor: FanoutFloor;
  /** Worker RSS: after start-up (services built, database open), and the peak during the fan-out. */
  idleBytes: number;
  peakBytes: number;
  readings: number;
  /** CPU time of the bench process (the fake providers) while the worker ran. */
  fakesCpuMs: number;
  /** The 1-minute load average just before the run. */
  loadBefore: number;
  /** Writing this run's audience (users, push tokens, the announcement; one transaction). */
  seedMs: number;
  /** Status requests after the run: the worker's one check of an accepted e-mail's operation (e-mail runs only). */
  emailStatusAfter: number;
  /** Push alone: the ledger floor (the same row writes with bare prepared statements), measured right after the run. */
  ledgerFloor?: LedgerFloor;
}

export type AdapterChannel = AdapterRun['channel'];

/**
 * The adapter-alone runs (`measureAdapter`), after the fan-outs: SMS and e-mail. Push needs none:
 * its 100 requests cost nothing to speak of.
 */
export const ADAPTER_CHANNELS: readonly AdapterChannel[] = ['sms', 'email'];

/** One adapter-alone run, as measured. */
export type AdapterPhaseRun = Omit<AdapterPhase, 'repeats'>;

/** An adapter's run whose time was the median of its repeats, with every repeat's figures. */
export interface AdapterPhase {
  /** Every repeat's figures, in the order they ran (the details below are the median run's). */
  repeats: RunFigures[];
  channel: AdapterChannel;
  messages: number;
  /** Sends in flight at most: the fan-out's delivery concurrency × parallel batches. */
  inFlight: number;
  result: AdapterDone;
  requests: FanoutPhase['requests'];
  /** ⌈messages ÷ in flight⌉ × latency. */
  floorMs: number;
  idleBytes: number;
  peakBytes: number;
  fakesCpuMs: number;
  loadBefore: number;
}

export interface FanoutMeasurement {
  plan: FanoutPlan;
  deliveryConcurrency: number;
  batchSize: number;
  phases: FanoutPhase[];
  adapters: AdapterPhase[];
}

/**
 * The fan-out benchmark: `recipients` adults, each with a push token, a phone number and
 * an e-mail address, delivered by the app's fan-out code against local fake Expo and ACS servers
 * that answer after `providerDelayMs`; the fake ACS answers an e-mail send as ACS does (202,
 * `Operation-Location`, the operation `Running` with a `retry-after` on status requests). Four runs
 * (`FANOUT_PHASES`): push alone, SMS alone, e-mail alone, all three; each channel's time is set
 * against its own floor. Each run writes its audience to a fresh SQLite database and runs in a
 * worker process of its own (`fanout-worker.ts`, `runFanoutInProcess`: no queue, no Functions host)
 * whose RSS is watched; the fakes run here, in the bench process, so they use the other core.
 * Then each ACS adapter alone (`ADAPTER_CHANNELS`), to tell its cost from the fan-out's around it.
 * With `plan.repeats`, all of that is repeated, interleaved; each run keeps its median run's details.
 * Fails when a batch failed, a delivery was not taken by its provider, or an e-mail status request
 * came during a run: the time of an incomplete (or differently shaped) fan-out would mislead.
 */
export async function measureFanout(plan: FanoutPlan, note: (message: string) => void = () => undefined): Promise<FanoutMeasurement> {
  const repeats = plan.repeats ?? 1;
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`fan-out repeats must be a positive integer, got ${repeats}`);
  const selectedPhases = FANOUT_PHASES.filter((phase) => !plan.phases || plan.phases.includes(phase.name));
  const selectedAdapters = ADAPTER_CHANNELS.filter((channel) => !plan.phases || plan.phases.includes(`${channel}-adapter`));
  const fakes = await startFakeProviders({ acs: plan.acs });
  const phaseRuns: FanoutPhaseRun[][] = selectedPhases.map(() => []);
  const adapterRuns: AdapterPhaseRun[][] = selectedAdapters.map(() => []);
  let shape: Pick<FanoutMeasurement, 'deliveryConcurrency' | 'batchSize'> | undefined;
  try {
    // Interleaved (every run once, then again) so a change in the machine's load hits every run alike.
    for (let round = 1; round <= repeats; round += 1) {
      const of = repeats > 1 ? ` (repeat ${round} of ${repeats})` : '';
      for (const [index, phase] of selectedPhases.entries()) {
        const measured = await measurePhase(plan, phase, fakes);
        shape ??= { deliveryConcurrency: measured.deliveryConcurrency, batchSize: measured.batchSize };
        phaseRuns[index]?.push(measured.phase);
        const { result, floor } = measured.phase;
        note(
          `fan-out ${phase.name}${of}: ${(result.wallMs / 1000).toFixed(1)} s (×${(result.wallMs / floor.floorMs).toFixed(2)} its floor of ${(floor.floorMs / 1000).toFixed(2)} s), ` +
            `worker CPU ${((result.cpuMs / result.wallMs) * 100).toFixed(0)}%, peak RSS ${(measured.phase.peakBytes / 1024 ** 2).toFixed(0)} MiB`,
        );
      }
      for (const [index, channel] of selectedAdapters.entries()) {
        const adapter = await measureAdapter(plan, channel, fakes);
        adapterRuns[index]?.push(adapter);
        note(
          `${channel} adapter alone${of}: ${(adapter.result.wallMs / 1000).toFixed(1)} s (×${(adapter.result.wallMs / adapter.floorMs).toFixed(2)} its floor), ` +
            `CPU ${((adapter.result.cpuMs / adapter.result.wallMs) * 100).toFixed(0)}%, ${(adapter.result.cpuMs / adapter.messages).toFixed(2)} ms a send`,
        );
      }
    }
  } finally {
    await fakes.close();
  }
  const phases = phaseRuns.map(phaseOfRuns);
  const adapters = adapterRuns.map((runs) => ({
    ...medianRun(runs),
    repeats: runs.map((run) => ({ wallMs: run.result.wallMs, floorMs: run.floorMs, cpuMs: run.result.cpuMs, peakBytes: run.peakBytes, loadBefore: run.loadBefore })),
  }));
  const deliveryConcurrency = shape?.deliveryConcurrency ?? (adapters[0] ? adapters[0].inFlight / plan.parallelBatches : undefined);
  if (deliveryConcurrency === undefined) throw new Error('no fan-out run was selected');
  return { plan, deliveryConcurrency, batchSize: shape?.batchSize ?? Number.NaN, phases, adapters };
}

/** One fan-out's repeats as one phase: the median run's details, every repeat's figures. */
export function phaseOfRuns(runs: readonly FanoutPhaseRun[]): FanoutPhase {
  return {
    ...medianRun(runs),
    repeats: runs.map((run) => ({
      wallMs: run.result.wallMs,
      floorMs: run.floor.floorMs,
      ...(run.ledgerFloor ? { ledgerFloorMs: run.ledgerFloor.ms } : {}),
      cpuMs: run.result.cpuMs,
      peakBytes: run.peakBytes,
      loadBefore: run.loadBefore,
    })),
  };
}

/** The run whose time is the median of the repeats (of an even number, the faster of the two middle ones). */
function medianRun<T extends { result: { wallMs: number } }>(runs: readonly T[]): T {
  const sorted = [...runs].sort((a, b) => a.result.wallMs - b.result.wallMs);
  const run = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!run) throw new Error('unreachable: every selected run ran at least once');
  return run;
}

async function measurePhase(
  plan: FanoutPlan,
  phase: (typeof FANOUT_PHASES)[number],
  fakes: FakeProviders,
): Promise<{ phase: FanoutPhaseRun } & Pick<FanoutMeasurement, 'deliveryConcurrency' | 'batchSize'>> {
  const sqlitePath = path.join(plan.sqliteDir, `fanout-${phase.name}.sqlite`);
  rmSync(sqlitePath, { force: true });
  const seedStarted = performance.now();
  const db = createSqliteDatabase(sqlitePath);
  let announcementId: string;
  try {
    await migrateDatabase(db);
    announcementId = await seedFanoutAudience(db, plan.recipients, new Date(), phase.channels);
  } finally {
    await db.close();
  }
  const seedMs = performance.now() - seedStarted;

  fakes.reset();
  fakes.setDelay(plan.providerDelayMs);
  const [loadBefore = 0] = loadavg();
  const cpuBefore = process.cpuUsage();
  const { expo, acs } = fakes;
  let requestsDuringRun: FanoutPhase['requests'] | undefined;
  const run = await runWorker(
    plan,
    workerEnv(plan, sqlitePath, fakes),
    () => ({ kind: 'run', announcementId, parallelBatches: plan.parallelBatches, checkEmailOperation: phase.channels.includes('email') }),
    'done',
    // Read when the fan-out ends, before the worker's one status check after it.
    () => (requestsDuringRun = fakeRequests(fakes)),
  );
  const cpu = process.cpuUsage(cpuBefore);
  if (!requestsDuringRun) throw new Error('unreachable: the requests are read when the run ends');
  const requests = requestsDuringRun;
  const worker = { ...run, result: run.final, deliveryConcurrency: run.ready.deliveryConcurrency, batchSize: run.ready.batchSize };
  requireComplete(worker.result, run.ready);
  const planned = plannedRequests(phase.channels, worker.result.recipients);
  const floor = fanoutFloor(plan, phase.channels, worker.result, worker.batchSize, worker.deliveryConcurrency);
  requireShape(phase, worker.result, requests, planned);
  const ledgerFloor = phase.name === 'push' ? await measurePushLedgerFloor(plan, worker.batchSize) : undefined;
  return {
    deliveryConcurrency: worker.deliveryConcurrency,
    batchSize: worker.batchSize,
    phase: {
      name: phase.name,
      channels: phase.channels,
      result: worker.result,
      requests,
      ...(expo.batchSizes.length > 0 ? { pushBatchSizes: { min: Math.min(...expo.batchSizes), max: Math.max(...expo.batchSizes) } } : {}),
      planned,
      floor,
      idleBytes: worker.idleBytes,
      peakBytes: worker.peakBytes,
      readings: worker.readings,
      fakesCpuMs: (cpu.user + cpu.system) / 1000,
      loadBefore,
      seedMs,
      emailStatusAfter: acs.requests.emailStatus - requests.emailStatus,
      ...(ledgerFloor ? { ledgerFloor } : {}),
    },
  };
}

/** The push run's ledger floor, on an audience seeded as the run's in a database of its own. */
async function measurePushLedgerFloor(plan: FanoutPlan, batchSize: number): Promise<LedgerFloor> {
  const sqlitePath = path.join(plan.sqliteDir, 'ledger-floor.sqlite');
  rmSync(sqlitePath, { force: true });
  const db = createSqliteDatabase(sqlitePath);
  let announcementId: string;
  try {
    await migrateDatabase(db);
    announcementId = await seedFanoutAudience(db, plan.recipients, new Date(), ['push']);
  } finally {
    await db.close();
  }
  try {
    return measureLedgerFloor(sqlitePath, announcementId, batchSize);
  } finally {
    rmSync(sqlitePath, { force: true });
  }
}

/** The worker's settings: the app's own, pointed at the fakes (`ACS_CONNECTION_STRING`, `EXPO_PUSH_URL`, …). */
function workerEnv(plan: FanoutPlan, sqlitePath: string, fakes: FakeProviders): Record<string, string> {
  return {
    APP_ENV: 'test',
    // Every line is still formatted (the app's real cost), then dropped by the worker's sink.
    LOG_LEVEL: 'info',
    SQLITE_PATH: sqlitePath,
    SMS_MONTHLY_CAP_USD: String(FANOUT_SMS_CAP_USD),
    ...fakes.env,
    ...(plan.telemetry ? { APPLICATIONINSIGHTS_CONNECTION_STRING: plan.telemetry.connectionString, NODE_EXTRA_CA_CERTS: plan.telemetry.caCertPath } : {}),
  };
}

function fakeRequests({ expo, acs }: FakeProviders): FanoutPhase['requests'] {
  return {
    push: expo.requests.send,
    pushReceipts: expo.requests.getReceipts,
    sms: acs.requests.sms,
    emailSend: acs.requests.emailSend,
    emailStatus: acs.requests.emailStatus,
    rejectedSignatures: acs.requests.rejectedSignatures,
    repeats: acs.requests.repeats,
  };
}

/**
 * One channel's ACS adapter alone (`AdapterRun`): as many sends as the fan-out's recipients, as
 * many in flight as the fan-out's most, no ledger and no log lines. Its time and CPU per send show
 * what the SDK adapter costs by itself, and whether one core can keep that many requests in flight.
 */
async function measureAdapter(plan: FanoutPlan, channel: AdapterChannel, fakes: FakeProviders): Promise<AdapterPhaseRun> {
  const sqlitePath = path.join(plan.sqliteDir, `adapter-${channel}.sqlite`);
  rmSync(sqlitePath, { force: true });
  fakes.reset();
  fakes.setDelay(plan.providerDelayMs);
  const [loadBefore = 0] = loadavg();
  const cpuBefore = process.cpuUsage();
  let requests: FanoutPhase['requests'] | undefined;
  let inFlight = 0;
  const run = await runWorker(
    plan,
    workerEnv(plan, sqlitePath, fakes),
    (ready) => {
      inFlight = ready.deliveryConcurrency * plan.parallelBatches;
      return { kind: 'adapter', channel, messages: plan.recipients, concurrency: inFlight };
    },
    'adapter-done',
    () => (requests = fakeRequests(fakes)),
  );
  const cpu = process.cpuUsage(cpuBefore);
  if (!requests) throw new Error('unreachable: the requests are read when the run ends');
  const done = run.final;
  const made = channel === 'sms' ? requests.sms : requests.emailSend;
  if (done.results.accepted !== plan.recipients || made !== plan.recipients || requests.emailStatus > 0) {
    throw new Error(`the ${channel} adapter run is not what was measured for: ${JSON.stringify({ results: done.results, requests })}`);
  }
  return {
    channel,
    messages: plan.recipients,
    inFlight,
    result: done,
    requests,
    floorMs: Math.ceil(plan.recipients / inFlight) * plan.providerDelayMs,
    idleBytes: run.idleBytes,
    peakBytes: run.peakBytes,
    fakesCpuMs: (cpu.user + cpu.system) / 1000,
    loadBefore,
  };
}

export function plannedRequests(channels: readonly Channel[], recipients: number): PlannedRequests {
  const push = channels.includes('push') ? Math.ceil(recipients / PUSH_BATCH_LIMIT) : 0;
  const sms = channels.includes('sms') ? recipients : 0;
  const email = channels.includes('email') ? recipients : 0;
  return { push, sms, email, total: push + sms + email };
}

/** The floor of `FanoutFloor`, from the batches the split really made (`batchSize` recipients each, the last one the rest). */
export function fanoutFloor(
  plan: Pick<FanoutPlan, 'providerDelayMs' | 'parallelBatches'>,
  channels: readonly Channel[],
  done: Pick<FanoutDone, 'recipients' | 'batches'>,
  batchSize: number,
  deliveryConcurrency: number,
): FanoutFloor {
  const inFlight = deliveryConcurrency * plan.parallelBatches;
  const total = plannedRequests(channels, done.recipients).total;
  const lastBatch = done.recipients - batchSize * (done.batches - 1);
  const smallest = Math.min(batchSize, lastBatch > 0 ? lastBatch : batchSize);
  const smallestBatchRequests = plannedRequests(channels, smallest).total;
  const roundsPerBatch = Math.ceil(smallestBatchRequests / deliveryConcurrency);
  const batchesPerSlot = Math.ceil(done.batches / plan.parallelBatches);
  const requestBoundMs = (total / inFlight) * plan.providerDelayMs;
  const batchBoundMs = batchesPerSlot * roundsPerBatch * plan.providerDelayMs;
  return {
    inFlight,
    requestBoundMs,
    batchBoundMs,
    smallestBatchRequests,
    roundsPerBatch,
    batchesPerSlot,
    floorMs: Math.max(requestBoundMs, batchBoundMs),
  };
}

interface WorkerRun<T extends FanoutWorkerMessage['kind']> {
  ready: FanoutReady;
  final: Extract<FanoutWorkerMessage, { kind: T }>;
  idleBytes: number;
  peakBytes: number;
  readings: number;
}

/**
 * Forks a worker, waits for `ready`, sends it `message(ready)` while watching its RSS, stops
 * watching at `timed`, calls `onTimed` (the fakes' counts are read there), and returns its final
 * answer of kind `finalKind`.
 */
async function runWorker<T extends 'done' | 'adapter-done'>(
  plan: FanoutPlan,
  env: Record<string, string>,
  message: (ready: FanoutReady) => FanoutBenchMessage,
  finalKind: T,
  onTimed: () => void,
): Promise<WorkerRun<T>> {
  const child = fork(path.join(__dirname, 'fanout-worker.js'), [], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    // The app's own Node flags, as in production; the profile's when asked for.
    execArgv: [...NODE_RUNTIME_FLAGS, ...(plan.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${plan.cpuProfileDir}`] : [])],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8192)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Messages are buffered: two may arrive in one chunk, before the next one is awaited.
  const inbox: FanoutWorkerMessage[] = [];
  let waiter: { resolve(message: FanoutWorkerMessage): void; reject(error: Error): void } | undefined;
  child.on('message', (received: FanoutWorkerMessage) => {
    if (waiter) {
      waiter.resolve(received);
      waiter = undefined;
    } else inbox.push(received);
  });
  child.once('exit', (code) => waiter?.reject(new Error(`the fan-out worker exited with ${String(code)}:\n${stderr}`)));
  const next = (): Promise<FanoutWorkerMessage> => {
    const queued = inbox.shift();
    if (queued) return Promise.resolve(queued);
    if (child.exitCode !== null || child.signalCode !== null) {
      return Promise.reject(new Error(`the fan-out worker exited with ${String(child.exitCode ?? child.signalCode)}:\n${stderr}`));
    }
    return new Promise((resolve, reject) => (waiter = { resolve, reject }));
  };
  const failure = (answer: FanoutWorkerMessage): Error =>
    new Error(`the fan-out worker failed: ${answer.kind === 'failed' ? answer.error : `it said ${answer.kind}`}`);
  try {
    if (child.pid === undefined) throw new Error('the fan-out worker has no process id');
    const rss = rssProbe(child.pid);
    const ready = await next();
    if (ready.kind !== 'ready') throw failure(ready);
    const idleBytes = rss.current();
    const watch = rss.watch(plan.sampleEveryMs);
    const timed = next();
    child.send(message(ready));
    // The worker says `timed` when the measured work ends, then does its after-run check, then answers.
    const end = await timed;
    const { peakBytes, samples } = watch.stop();
    if (end.kind !== 'timed') throw failure(end);
    onTimed();
    const final = await next();
    if (final.kind !== finalKind) throw failure(final);
    return { ready, final: final as Extract<FanoutWorkerMessage, { kind: T }>, idleBytes, peakBytes, readings: samples };
  } finally {
    // The worker exits by itself after its answer; after a failure here it may still wait for its message.
    if (child.exitCode === null && child.signalCode === null) {
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killTimer);
    }
  }
}

function requireComplete(done: FanoutDone, ready: FanoutReady): void {
  if (done.failedBatches > 0) {
    throw new Error(`${done.failedBatches} of ${done.batches} fan-out batches failed (batch size ${ready.batchSize}); first: ${done.firstFailure}`);
  }
}

/** Every recipient taken by each channel's provider, nothing on other channels, the requests planned, no e-mail status request. */
function requireShape(
  phase: (typeof FANOUT_PHASES)[number],
  done: FanoutDone,
  requests: FanoutPhase['requests'],
  planned: PlannedRequests,
): void {
  const problems: string[] = [];
  for (const channel of CHANNELS) {
    const expected = phase.channels.includes(channel) ? { [EXPECTED_RESULT[channel]]: done.recipients } : {};
    if (JSON.stringify(done.tally[channel]) !== JSON.stringify(expected)) {
      problems.push(`${channel}: ${JSON.stringify(done.tally[channel])}, expected ${JSON.stringify(expected)}`);
    }
  }
  if (requests.emailStatus > 0) problems.push(`${requests.emailStatus} e-mail status requests during the run: the send path must not poll`);
  const made = { push: requests.push, sms: requests.sms, email: requests.emailSend };
  for (const kind of ['push', 'sms', 'email'] as const) {
    if (made[kind] !== planned[kind]) problems.push(`${made[kind]} ${kind} requests, planned ${planned[kind]}`);
  }
  if (requests.rejectedSignatures > 0) problems.push(`${requests.rejectedSignatures} refused signatures`);
  if (problems.length > 0) throw new Error(`the ${phase.name} fan-out is not what was measured for:\n  ${problems.join('\n  ')}`);
}

/** Deliveries of `channel` with `result` in the tally. */
export const tallied = (tally: BatchTally, channel: Channel, result: DeliveryResult): number => tally[channel][result] ?? 0;
