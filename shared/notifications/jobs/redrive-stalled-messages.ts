import { errorCodeOf } from '../../background/background-handler';
import type { NoticeQueue } from '../../messages/notice-queue';
import { decodeNotificationMessage } from '../../messages/notification-message';
import type { FanoutDeps } from '../engine/fanout-deps';
import { leasedMessageOf, MESSAGE_START_GRACE_MS, messageLogFields } from '../engine/message-leasing';
import { overdueMessages } from '../ledger/message-leases';

/** Overdue messages re-driven per run: far more than a dead host held; the rest wait for the next run. */
export const OVERDUE_MESSAGES_PER_RUN = 500;

export interface MessageRedriveResult {
  /** Messages enqueued again, by what became of them: their holder died (`running`), or nobody took them (`queued`). */
  running: number;
  queued: number;
}

export type MessageRedriveDeps = Pick<FanoutDeps, 'database' | 'queue' | 'clock' | 'logger' | 'telemetry'> & { noticeQueue: NoticeQueue };

/**
 * Recovery of the fan-out queue's messages from the database (the `fanout-recovery-timer`, every 30
 * seconds): the Functions host keeps a message it took invisible for 10 minutes, so the split of a
 * host that died, a batch it took and died before its claim committed, and an account notice all
 * waited that long; each message's row (`ledger/message-leases.ts`) says it is owed. A row whose
 * holder's lease ran out, and a row queued past its start grace while no message is being taken,
 * are enqueued again (through the recording queues, which queue the row again for the copy), a
 * batch as `redriven`. Copies are harmless: a copy finds the lease held, or the ledgers say what
 * was sent. What the delivery ledger already covers (a batch's claimed rows) is re-driven by
 * `redrive-stalled-batches.ts` as well; whichever copy claims the rows first sends them.
 */
export async function redriveStalledMessages(deps: MessageRedriveDeps): Promise<MessageRedriveResult> {
  const db = await deps.database.get();
  const now = deps.clock.now();
  const takenSince = new Date(now.getTime() - MESSAGE_START_GRACE_MS).toISOString();
  const overdue = await overdueMessages(db, now.toISOString(), takenSince, OVERDUE_MESSAGES_PER_RUN);
  const result: MessageRedriveResult = { running: 0, queued: 0 };
  for (const row of overdue) {
    const decoded = decodeNotificationMessage(parse(row.messageText));
    if (!decoded) {
      deps.logger.error({ errorCode: 'invalid_fanout_message' }, 'overdue fan-out message unreadable; left for an operator');
      continue;
    }
    const message = leasedMessageOf(decoded);
    try {
      if (decoded.kind === 'notice') await deps.noticeQueue.enqueue(decoded.message);
      else await deps.queue.enqueue(decoded.message.batch ? { ...decoded.message, redriven: true } : decoded.message);
    } catch (error) {
      // The queue is down: this and the remaining rows stay overdue for the next run.
      deps.logger.warn({ ...messageLogFields(message), errorCode: errorCodeOf(error) }, 'stalled fan-out message not re-driven');
      break;
    }
    result[row.state] += 1;
    const stalledFor = Math.max(0, Math.round((now.getTime() - Date.parse(row.leaseUntil)) / 1000));
    deps.logger.warn(
      { ...messageLogFields(message), leaseState: row.state, overdueSeconds: stalledFor, errorCode: 'message_stalled' },
      'stalled fan-out message re-driven',
    );
    deps.telemetry.trackEvent('notification.redrive_message', { kind: message.kind, state: row.state });
  }
  return result;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
