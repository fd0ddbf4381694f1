import type { BatchTally } from '../../shared/notifications/engine/delivery-context';
import type { FanoutDeps } from '../../shared/notifications/engine/fanout-deps';
import { inMemoryFanoutQueue } from '../../shared/messages/fanout-queue';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import { handleFanoutMessage } from '../../shared/notifications/jobs/handle-fanout-message';

export interface InProcessFanout {
  recipients: number;
  batches: number;
  /** Results summed over the batches. */
  tally: BatchTally;
  /** Batch messages that threw (after their retries inside the invocation), with their errors. */
  failedBatches: { message: FanoutMessage; error: unknown }[];
}

/**
 * Runs a whole fan-out in this process, without a storage queue: the first message, then every
 * batch message it produced, `parallelBatches` at a time (as the host runs several messages at
 * once). For the benchmark and tests; the queue function does the same one message at a time.
 */
export async function runFanoutInProcess(
  announcementId: string,
  deps: Omit<FanoutDeps, 'queue'>,
  options: { parallelBatches?: number } = {},
): Promise<InProcessFanout> {
  const queue = inMemoryFanoutQueue();
  const run = { ...deps, queue };
  const split = await handleFanoutMessage({ announcementId }, run);
  if (split.kind !== 'split') throw new Error('the first message of a fan-out splits it');
  const tally: BatchTally = { push: {}, sms: {}, email: {} };
  const failedBatches: InProcessFanout['failedBatches'] = [];
  const pending = [...queue.messages];
  const worker = async (): Promise<void> => {
    for (let message = pending.shift(); message; message = pending.shift()) {
      try {
        const result = await handleFanoutMessage(message, run);
        if (result.kind === 'batch') addTally(tally, result.tally);
      } catch (error) {
        failedBatches.push({ message, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallelBatches ?? 4) }, worker));
  return { recipients: split.recipients, batches: split.batches, tally, failedBatches };
}

function addTally(total: BatchTally, batch: BatchTally): void {
  for (const channel of ['push', 'sms', 'email'] as const) {
    for (const [result, count] of Object.entries(batch[channel])) {
      const key = result as keyof BatchTally['push'];
      total[channel][key] = (total[channel][key] ?? 0) + (count ?? 0);
    }
  }
}
