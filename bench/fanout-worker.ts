import { randomUUID } from 'node:crypto';
import type { DestinationStream } from 'pino';
import { buildAppServices } from '../shared/composition-root';
import { createLogger } from '../shared/logging/logger';
import { buildFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/composition/fanout-services';
import { runFanoutInProcess } from '../test/helpers/run-fanout';
import { timeSqliteStatements } from './sqlite-timing';
import { HEAP_SAMPLE_MS, type AdapterRun, type FanoutBenchMessage, type FanoutRun, type FanoutWorkerMessage } from './fanout-protocol';

/**
 * The fan-out benchmark's worker process (`fork`ed by `fanout.ts`; settings in its environment):
 * the app's composition root and fan-out ports, the real provider adapters pointed at the fake
 * providers, and `runFanoutInProcess` (the queue's work without a queue). A process of its own so
 * that its memory can be read alone and it does not share an event loop with the fake providers.
 */

/**
 * Counts log lines and drops them: the run writes tens of thousands, and reading them is not the
 * work measured. Notes the facade's `telemetry ready` line (a configured backend has loaded).
 */
function countingSink(): DestinationStream & { lines: number; warnOrError: number; telemetryReady: boolean } {
  return {
    lines: 0,
    warnOrError: 0,
    telemetryReady: false,
    write(line: string) {
      this.lines += 1;
      if (line.includes('"level":"warn"') || line.includes('"level":"error"')) this.warnOrError += 1;
      if (line.includes('"message":"telemetry ready"')) this.telemetryReady = true;
    },
  };
}

/** The longest the worker waits for a configured telemetry backend to load (seconds on a loaded machine). */
const TELEMETRY_READY_TIMEOUT_MS = 60_000;

/**
 * With a telemetry backend configured, waits until its worker thread has loaded the SDK: an instance
 * that fans out has long been ready, so the SDK's load (over a second of CPU) is not the fan-out's.
 */
async function telemetryReady(sink: ReturnType<typeof countingSink>): Promise<void> {
  const started = performance.now();
  while (!sink.telemetryReady) {
    if (performance.now() - started > TELEMETRY_READY_TIMEOUT_MS) throw new Error(`the telemetry backend was not ready within ${TELEMETRY_READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function send(message: FanoutWorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
}

type Deps = ReturnType<typeof buildFanoutDeps>;

/** Installed before the app's services: every statement the worker runs is timed. */
const sqliteTime = timeSqliteStatements();

/** The highest V8 heap use, read every `HEAP_SAMPLE_MS` until `stop()`. */
function watchHeap(): { stop(): number } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), HEAP_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed);
    },
  };
}

/**
 * Wall and CPU time (user + system, and system alone) of `work`, and its event-loop utilization:
 * the share of the time the loop was running code rather than waiting for I/O. Busy near 100%
 * with CPU below it: the loop was blocked without computing (synchronous SQLite file I/O, or the
 * core taken by another process).
 */
async function timed<T>(
  work: () => Promise<T>,
): Promise<{ value: T; wallMs: number; cpuMs: number; cpuSystemMs: number; eventLoopUtilization: number }> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const eluBefore = performance.eventLoopUtilization();
  const value = await work();
  const cpu = process.cpuUsage(cpuBefore);
  const elu = performance.eventLoopUtilization(eluBefore);
  return {
    value,
    wallMs: performance.now() - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
    cpuSystemMs: cpu.system / 1000,
    eventLoopUtilization: elu.utilization,
  };
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('the fan-out worker runs as a forked child of the bench');
  const sink = countingSink();
  const services = buildAppServices(process.env, { logDestination: sink });
  const logger = createLogger({ service: FANOUT_SERVICE_NAME, level: services.config.logLevel, destination: sink });
  const deps = buildFanoutDeps(services, { logger });
  await services.database.get();
  if (services.config.appInsightsConnectionString) await telemetryReady(sink);
  const message = await new Promise<FanoutBenchMessage>((resolve) => {
    process.once('message', (received: FanoutBenchMessage) => resolve(received));
    void send({ kind: 'ready', deliveryConcurrency: deps.concurrency, batchSize: deps.batchSize });
  });
  try {
    if (message.kind === 'adapter') await runAdapter(deps, message);
    else await runFanout(deps, message, sink);
  } finally {
    await services.database.close();
  }
}

async function runFanout(deps: Deps, run: FanoutRun, sink: ReturnType<typeof countingSink>): Promise<void> {
  const heap = watchHeap();
  sqliteTime.reset();
  const { value: result, wallMs, cpuMs, cpuSystemMs, eventLoopUtilization } = await timed(() => runFanoutInProcess(run.announcementId, deps, { parallelBatches: run.parallelBatches }));
  const peakHeapUsedBytes = heap.stop();
  // More than the table shows: the notes look up particular statements (`appSideCosts`).
  const sqlite = sqliteTime.read(12);
  await send({ kind: 'timed' });
  const emailOperationCheck = run.checkEmailOperation ? await checkOneEmailOperation(deps, run.announcementId) : undefined;
  const [firstFailure] = result.failedBatches;
  await send({
    kind: 'done',
    recipients: result.recipients,
    batches: result.batches,
    tally: result.tally,
    failedBatches: result.failedBatches.length,
    ...(firstFailure ? { firstFailure: String(firstFailure.error) } : {}),
    wallMs,
    cpuMs,
    cpuSystemMs,
    eventLoopUtilization,
    sqlite,
    peakHeapUsedBytes,
    logLines: sink.lines,
    warnOrErrorLines: sink.warnOrError,
    ...(emailOperationCheck === undefined ? {} : { emailOperationCheck }),
  });
}

/**
 * One channel's adapter alone, as the fan-out composes it: `messages` sends of the announcement's
 * text to fictitious addresses, `concurrency` at a time, with no ledger, spend guard or log line
 * around them. Its CPU per send is the adapter's share (SDK pipeline, signing, HTTP) of a fan-out
 * delivery's CPU.
 */
async function runAdapter(deps: Deps, run: AdapterRun): Promise<void> {
  const results: Record<string, number> = {};
  const text = 'Bench announcement\nThe fan-out benchmark sends this text on every channel.';
  let next = 0;
  const sendOne = async (index: number): Promise<void> => {
    const number = String(index).padStart(7, '0');
    const observer = { tries: 0 };
    const email = { to: `bench-${number}@example.test`, subject: 'Bench announcement', text, operationId: randomUUID() };
    const outcome =
      run.channel === 'sms'
        ? await deps.providers.sms.send({ to: `+1555${number}`, text, tag: `bench/${number}` }, observer)
        : await deps.providers.email.send(email, observer);
    results[outcome.result] = (results[outcome.result] ?? 0) + 1;
  };
  const heap = watchHeap();
  // `concurrency` senders, each taking the next message when its last one is answered.
  const sender = async (): Promise<void> => {
    for (let index = next++; index < run.messages; index = next++) await sendOne(index);
  };
  const { wallMs, cpuMs, cpuSystemMs, eventLoopUtilization } = await timed(() => Promise.all(Array.from({ length: run.concurrency }, sender)));
  const peakHeapUsedBytes = heap.stop();
  await send({ kind: 'timed' });
  await send({ kind: 'adapter-done', results, wallMs, cpuMs, cpuSystemMs, eventLoopUtilization, peakHeapUsedBytes });
}

/**
 * After the timed run: one status request for one accepted e-mail's operation, through the adapter's
 * `operationOutcome` (what the settle timer calls hours later). The fake answers `running` while the
 * operation has polls left: proof that the zero polls of the run are the send path's doing.
 */
async function checkOneEmailOperation(deps: Deps, announcementId: string): Promise<string> {
  const db = await deps.database.get();
  const [row] = await db.query<{ providerMessageId: string | null }>(
    "SELECT providerMessageId FROM NotificationDeliveries WHERE announcementId = @announcementId AND channel = 'email' AND result = 'accepted' ORDER BY userId LIMIT 1",
    { announcementId },
  );
  const read = deps.providers.email.operationOutcome?.bind(deps.providers.email);
  if (!row?.providerMessageId || !read) return 'no accepted e-mail operation to check';
  const answer = await read(row.providerMessageId);
  return answer.state === 'ended' ? answer.outcome.result : answer.state === 'unknown' ? `unknown (${answer.code})` : answer.state;
}

// Exits once the answer is sent: keep-alive sockets to the fakes would otherwise hold the process open.
main().then(
  () => process.exit(0),
  async (error: unknown) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    await send({ kind: 'failed', error: text }).catch(() => process.stderr.write(`${text}\n`));
    process.exit(1);
  },
);
