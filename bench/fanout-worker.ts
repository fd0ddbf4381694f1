import type { DestinationStream } from 'pino';
import { buildAppServices } from '../shared/composition-root';
import { createLogger } from '../shared/logging/logger';
import { buildFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/notifications/fanout-services';
import { runFanoutInProcess } from '../shared/notifications/run-fanout';
import { HEAP_SAMPLE_MS, type FanoutRun, type FanoutWorkerMessage } from './fanout-protocol';

/**
 * The fan-out benchmark's worker process (`fork`ed by `fanout.ts`; settings in its environment):
 * the app's composition root and fan-out ports, the real provider adapters pointed at the fake
 * providers, and `runFanoutInProcess` (the queue's work without a queue). A process of its own so
 * that its memory can be read alone and it does not share an event loop with the fake providers.
 */

/** Counts log lines and drops them: the run writes tens of thousands, and reading them is not the work measured. */
function countingSink(): DestinationStream & { lines: number; warnOrError: number } {
  return {
    lines: 0,
    warnOrError: 0,
    write(line: string) {
      this.lines += 1;
      if (line.includes('"level":"warn"') || line.includes('"level":"error"')) this.warnOrError += 1;
    },
  };
}

function send(message: FanoutWorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('the fan-out worker runs as a forked child of the bench');
  const sink = countingSink();
  const services = buildAppServices(process.env, { logDestination: sink });
  const logger = createLogger({ service: FANOUT_SERVICE_NAME, level: services.config.logLevel, destination: sink });
  const deps = buildFanoutDeps(services, { logger });
  await services.database.get();
  const run = await new Promise<FanoutRun>((resolve) => {
    process.once('message', (message: FanoutRun) => resolve(message));
    void send({ kind: 'ready', deliveryConcurrency: deps.concurrency, batchSize: deps.batchSize });
  });
  let peakHeapUsedBytes = process.memoryUsage().heapUsed;
  const heapTimer = setInterval(() => (peakHeapUsedBytes = Math.max(peakHeapUsedBytes, process.memoryUsage().heapUsed)), HEAP_SAMPLE_MS);
  try {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const result = await runFanoutInProcess(run.announcementId, deps, { parallelBatches: run.parallelBatches });
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - started;
    clearInterval(heapTimer);
    const [firstFailure] = result.failedBatches;
    await send({
      kind: 'done',
      recipients: result.recipients,
      batches: result.batches,
      tally: result.tally,
      failedBatches: result.failedBatches.length,
      ...(firstFailure ? { firstFailure: String(firstFailure.error) } : {}),
      wallMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakHeapUsedBytes,
      logLines: sink.lines,
      warnOrErrorLines: sink.warnOrError,
    });
  } finally {
    clearInterval(heapTimer);
    await services.database.close();
  }
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
