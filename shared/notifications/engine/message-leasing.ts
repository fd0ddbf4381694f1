import type { Database } from '../../db/database';
import { errorFields, type Logger } from '../../logging/logger';
import type { FanoutMessage } from '../../messages/fanout-message';
import type { FanoutQueue } from '../../messages/fanout-queue';
import { NOTICE_MESSAGE_KIND, type NoticeMessage } from '../../messages/notice-message';
import type { NotificationMessage } from '../../messages/notification-message';
import type { NoticeQueue } from '../../messages/notice-queue';
import type { Clock } from '../../ports/clock';
import { DELIVERY_LEASE_MS, LEASE_RENEWAL_MS } from '../ledger/lease-heartbeat';
import { claimMessageLease, finishMessageLease, recordQueuedMessage, releaseMessageLease, renewMessageLease } from '../ledger/message-leases';

/**
 * Every message of the fan-out queue under a lease of the database's (`ledger/message-leases.ts`):
 * recorded at the enqueue, held while handled, so the recovery timer re-drives what a dead host
 * held (`jobs/redrive-stalled-messages.ts`) instead of waiting for the host's 10-minute queue lease.
 */

/**
 * How long an enqueued message may wait to be taken before it counts as lost (with its host), when
 * no other message is being taken either: the lease's length, as for a holder that died.
 */
export const MESSAGE_START_GRACE_MS = DELIVERY_LEASE_MS;

/** What a message is about: its key (one row for all its copies), its text as re-driven, its ids for the log. */
export interface LeasedMessage {
  messageKey: string;
  messageText: string;
  kind: 'split' | 'batch' | 'notice';
  announcementId?: string;
  noticeId?: string;
}

/** The lease of a decoded message of the queue (`decodeNotificationMessage`). */
export function leasedMessageOf(decoded: NotificationMessage): LeasedMessage {
  return decoded.kind === NOTICE_MESSAGE_KIND ? noticeLease(decoded.message) : fanoutLease(decoded.message);
}

function noticeLease(message: NoticeMessage): LeasedMessage {
  const { id } = message.notice;
  return { messageKey: `notice/${id}`, messageText: JSON.stringify(message), kind: 'notice', noticeId: id };
}

function fanoutLease(message: FanoutMessage): LeasedMessage {
  const { announcementId, batch } = message;
  if (!batch) return { messageKey: `split/${announcementId}`, messageText: JSON.stringify({ announcementId }), kind: 'split', announcementId };
  // `redriven` is left out: a re-driven copy is the same work.
  return {
    messageKey: `batch/${announcementId}/${batch.afterUserId}/${batch.throughUserId ?? `+${batch.size}`}`,
    messageText: JSON.stringify({ announcementId, batch }),
    kind: 'batch',
    announcementId,
  };
}

/** A message's ids for a log line: its kind and the announcement or notice (no key: it holds user ids). */
export function messageLogFields(message: LeasedMessage): Record<string, string> {
  return {
    messageKind: message.kind,
    ...(message.announcementId ? { announcementId: message.announcementId } : {}),
    ...(message.noticeId ? { noticeId: message.noticeId } : {}),
  };
}

interface RecordingDeps {
  database: { get(): Promise<Database> };
  clock: Clock;
}

async function record(deps: RecordingDeps, message: LeasedMessage): Promise<void> {
  const now = deps.clock.now();
  await recordQueuedMessage(await deps.database.get(), message, now.toISOString(), new Date(now.getTime() + MESSAGE_START_GRACE_MS).toISOString());
}

/**
 * The fan-out queue with every message recorded before it is sent: should the send fail after the
 * record, the recovery timer sends it once its start grace is over (a copy too many is harmless:
 * the ledgers never send twice).
 */
export function recordingFanoutQueue(queue: FanoutQueue, deps: RecordingDeps): FanoutQueue {
  return {
    async enqueue(message) {
      await record(deps, fanoutLease(message));
      await queue.enqueue(message);
    },
  };
}

/** The notice queue with every message recorded before it is sent (as `recordingFanoutQueue`). */
export function recordingNoticeQueue(queue: NoticeQueue, deps: RecordingDeps): NoticeQueue {
  return {
    async enqueue(message) {
      await record(deps, noticeLease(message));
      await queue.enqueue(message);
    },
  };
}

/** A message's lease held by the invocation handling it. */
export interface HeldMessage {
  /** The work is done, or given up to the poison queue: the row goes. */
  finish(): Promise<void>;
  /** The try failed and the queue will retry: the row is queued again. */
  release(): Promise<void>;
}

/**
 * Takes the message's lease as the invocation's first write and renews it every
 * `LEASE_RENEWAL_MS` until finished or released (a renewal that fails is logged and tried again).
 * @returns undefined when another live invocation holds it: that one does the work.
 */
export async function holdMessageLease(
  deps: RecordingDeps & { logger: Logger },
  message: LeasedMessage,
  everyMs = LEASE_RENEWAL_MS,
): Promise<HeldMessage | undefined> {
  const db = await deps.database.get();
  const leaseFrom = (from: Date) => new Date(from.getTime() + DELIVERY_LEASE_MS).toISOString();
  const claimedAt = deps.clock.now();
  let heldUntil = leaseFrom(claimedAt);
  if (!(await claimMessageLease(db, message, claimedAt.toISOString(), heldUntil))) return undefined;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      const next = leaseFrom(deps.clock.now());
      try {
        if (await renewMessageLease(db, message.messageKey, heldUntil, next)) heldUntil = next;
      } catch (error) {
        deps.logger.warn({ messageKind: message.kind, errorCode: 'lease_renewal_failed', ...errorFields(error) }, 'message lease not renewed');
      }
    });
  }, everyMs);
  timer.unref();
  const stop = async (): Promise<void> => {
    clearInterval(timer);
    await renewing;
  };
  return {
    async finish() {
      await stop();
      await finishMessageLease(db, message.messageKey, heldUntil);
    },
    async release() {
      await stop();
      const now = deps.clock.now();
      await releaseMessageLease(db, message.messageKey, heldUntil, new Date(now.getTime() + MESSAGE_START_GRACE_MS).toISOString(), now.toISOString());
    },
  };
}
