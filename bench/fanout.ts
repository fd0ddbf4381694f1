import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createSqliteDatabase } from '../shared/db/sqlite-database';
import { migrateDatabase } from '../shared/db/migrate';
import type { BatchTally } from '../shared/notifications/delivery-context';
import { PUSH_BATCH_LIMIT } from '../shared/notifications/deliver-push';
import { startFakeProviders } from '../test/helpers/fake-providers/start-fake-providers';
import type { FanoutDone, FanoutReady, FanoutRun, FanoutWorkerMessage } from './fanout-protocol';
import { seedFanoutAudience } from './fanout-seed';
import { rssProbe } from './rss';

/** The SMS spend cap of the run: 10,000 SMS at the default unit price cost $75, which the guard must let through. */
export const FANOUT_SMS_CAP_USD = 1000;

export interface FanoutPlan {
  recipients: number;
  /** The fake providers' answer latency. */
  providerDelayMs: number;
  /** Batch messages handled at once (the host runs several queue messages at once). */
  parallelBatches: number;
  sampleEveryMs: number;
  /** Where the worker's SQLite database goes (scratch space). */
  sqlitePath: string;
}

export interface FanoutMeasurement {
  plan: FanoutPlan;
  deliveryConcurrency: number;
  batchSize: number;
  result: FanoutDone;
  /** Requests the fake providers received. */
  requests: { push: number; pushReceipts: number; sms: number; emailSend: number; emailStatus: number; rejectedSignatures: number };
  /** Messages per push request, smallest and largest. */
  pushBatchSizes: { min: number; max: number };
  /** Provider requests the fan-out should make: one push request per 100 devices, one per SMS and per e-mail. */
  plannedRequests: number;
  /** Worker RSS: after start-up (services built, database open), and the peak during the fan-out. */
  idleBytes: number;
  peakBytes: number;
  readings: number;
  /** CPU time of the bench process (the fake providers) while the worker ran. */
  fakesCpuMs: number;
  /** The 1-minute load average just before the fan-out: the run comes after the auth sections. */
  loadBefore: number;
  seedMs: number;
}

/**
 * The fan-out benchmark (issue 4): `recipients` adults on push, SMS and e-mail, delivered by the
 * app's fan-out code against local fake Expo and ACS servers that answer after
 * `providerDelayMs`. The audience is written straight to a fresh SQLite database; the fan-out runs
 * in a worker process of its own (`fanout-worker.ts`, `runFanoutInProcess`: no queue, no Functions
 * host) whose RSS is watched; the fakes run here, in the bench process, so they use the other core.
 * Fails when a batch failed or a delivery did not succeed: the time of an incomplete fan-out would
 * mislead.
 */
export async function measureFanout(plan: FanoutPlan): Promise<FanoutMeasurement> {
  const seedStarted = performance.now();
  const db = createSqliteDatabase(plan.sqlitePath);
  let announcementId: string;
  try {
    await migrateDatabase(db);
    announcementId = await seedFanoutAudience(db, plan.recipients, new Date());
  } finally {
    await db.close();
  }
  const seedMs = performance.now() - seedStarted;

  // No status polls: ACS answers an accepted e-mail as Succeeded at once, so each e-mail is one request.
  const fakes = await startFakeProviders({ acs: { emailPollsUntilDone: 0 } });
  try {
    fakes.setDelay(plan.providerDelayMs);
    const [loadBefore = 0] = loadavg();
    const cpuBefore = process.cpuUsage();
    const worker = await runWorker(plan, announcementId, {
      APP_ENV: 'test',
      // Every line is still formatted (the app's real cost), then dropped by the worker's sink.
      LOG_LEVEL: 'info',
      SQLITE_PATH: plan.sqlitePath,
      SMS_MONTHLY_CAP_USD: String(FANOUT_SMS_CAP_USD),
      ...fakes.env,
    });
    const cpu = process.cpuUsage(cpuBefore);
    const { expo, acs } = fakes;
    return {
      plan,
      ...worker,
      fakesCpuMs: (cpu.user + cpu.system) / 1000,
      loadBefore,
      requests: {
        push: expo.requests.send,
        pushReceipts: expo.requests.getReceipts,
        sms: acs.requests.sms,
        emailSend: acs.requests.emailSend,
        emailStatus: acs.requests.emailStatus,
        rejectedSignatures: acs.requests.rejectedSignatures,
      },
      pushBatchSizes: { min: Math.min(...expo.batchSizes), max: Math.max(...expo.batchSizes) },
      plannedRequests: Math.ceil(plan.recipients / PUSH_BATCH_LIMIT) + 2 * plan.recipients,
      seedMs,
    };
  } finally {
    await fakes.close();
  }
}

async function runWorker(
  plan: FanoutPlan,
  announcementId: string,
  env: Record<string, string>,
): Promise<Pick<FanoutMeasurement, 'deliveryConcurrency' | 'batchSize' | 'result' | 'idleBytes' | 'peakBytes' | 'readings'>> {
  const child = fork(path.join(__dirname, 'fanout-worker.js'), [], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8192)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = (): Promise<FanoutWorkerMessage> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the fan-out worker exited with ${String(code)}:\n${stderr}`));
      child.once('exit', onExit);
      child.once('message', (message: FanoutWorkerMessage) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  try {
    if (child.pid === undefined) throw new Error('the fan-out worker has no process id');
    const rss = rssProbe(child.pid);
    const ready = await next();
    if (ready.kind !== 'ready') throw new Error(`the fan-out worker did not start: ${ready.kind === 'failed' ? ready.error : ready.kind}`);
    const idleBytes = rss.current();
    const watch = rss.watch(plan.sampleEveryMs);
    const answer = next();
    child.send({ kind: 'run', announcementId, parallelBatches: plan.parallelBatches } satisfies FanoutRun);
    const done = await answer;
    const { peakBytes, samples } = watch.stop();
    if (done.kind !== 'done') throw new Error(`the fan-out failed: ${done.kind === 'failed' ? done.error : done.kind}`);
    requireComplete(done, ready);
    return { deliveryConcurrency: ready.deliveryConcurrency, batchSize: ready.batchSize, result: done, idleBytes, peakBytes, readings: samples };
  } finally {
    // The worker exits by itself after its answer; after a failure here it may still wait for `run`.
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
  const short = (['push', 'sms', 'email'] as const).filter((channel) => successes(done.tally, channel) !== done.recipients);
  if (short.length > 0) throw new Error(`not every recipient got ${short.join(', ')}: ${JSON.stringify(done.tally)}`);
}

const successes = (tally: BatchTally, channel: keyof BatchTally): number => tally[channel].success ?? 0;
