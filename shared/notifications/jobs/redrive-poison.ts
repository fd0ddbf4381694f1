import { findAnnouncementById } from '../../announcements/announcement-store';
import type { Database } from '../../db/database';
import type { Clock } from '../../ports/clock';
import type { FanoutQueue } from '../../messages/fanout-queue';
import { findNoticeById } from '../../messages/account-notice-store';
import { listNoticeDeliveries, resetPoisonedNoticeDeliveries } from '../ledger/notice-deliveries';
import type { NoticeMessage } from '../../messages/notice-message';
import type { NoticeQueue } from '../../messages/notice-queue';
import { decodePoisonMessage } from './decode-poison-message';
import type { PoisonMessage, PoisonQueue } from './poison-queue';
import { POISONED_PROVIDER_CODE, resetPoisonedDeliveries } from '../ledger/poisoned-deliveries';
import { undeliveredOf } from './undelivered';

/** The ports of a re-drive. */
export interface RedriveDeps {
  database: Database;
  poisonQueue: PoisonQueue;
  /** Where re-driven messages go: the fan-out queue. */
  fanoutQueue: FanoutQueue;
  /** Where re-driven account notices go (the same queue, through the notices' port). */
  noticeQueue: NoticeQueue;
  clock: Clock;
}

export interface RedriveOptions {
  /** List what would be sent; change nothing (every message stays in the poison queue). */
  dryRun: boolean;
  /** Only this announcement's messages; the others (account notices too) stay in the poison queue, unreported. */
  announcementId?: string | undefined;
}

/** Why a message stays in the poison queue: sending it again would only poison it again. */
export type SkipReason = 'invalid_fanout_message' | 'announcement_not_found' | 'announcement_not_published' | 'notice_not_found';

/** One line of the report, per poison message: ids and counts, never contact data or text. */
export interface RedriveEntry {
  messageId: string;
  action: 'redriven' | 'would_redrive' | 'skipped';
  reason?: SkipReason;
  /** When the message reached the poison queue. */
  poisonedAt: string | null;
  announcementId?: string;
  /** An announcement's first message (`split`), one of its batches, or an account notice's message. */
  kind?: 'split' | 'batch' | 'notice';
  /** An account notice's id (`kind: notice`). */
  noticeId?: string;
  afterUserId?: string;
  throughUserId?: string | null;
  recipients?: number;
  notYetDelivered?: number;
  pending?: number;
  poisoned?: number;
  /** Poisoned rows made `pending` again (a real run). */
  reset?: number;
}

export interface RedriveSummary {
  dryRun: boolean;
  /** Messages read (those of other announcements, under `announcementId`, not counted). */
  messages: number;
  /** Messages sent again (or, in a dry run, that would be). */
  redriven: number;
  skipped: number;
  notYetDelivered: number;
  /** Poisoned rows made `pending` again. */
  reset: number;
}

/** Messages taken off the poison queue at once (the storage service's most). */
const RECEIVE_COUNT = 32;
/**
 * How long a message read is hidden while the run goes on: messages left in the queue are made
 * visible again at the end, or by the service after this long if the run dies.
 */
export const REDRIVE_HIDE_SECONDS = 120;

/**
 * Sends the fan-out messages of the poison queue again (`npm run redrive-poison`). For each valid
 * message of a published announcement, in this order: its poisoned ledger rows become `pending`,
 * the message goes back on the fan-out queue, and it is deleted from the poison queue. The ledger
 * then sends exactly the rows not yet delivered: rows delivered, accepted or failed by a provider
 * keep their result. A crash between the steps leaves the message in the poison queue, and a
 * second run does the rest (resetting nothing twice; a duplicate fan-out message sends nothing twice).
 * Messages that cannot succeed (malformed, announcement missing or not published) stay, reported.
 * An account notice's message (`{ notice }`) goes the same way: its poisoned deliveries (the
 * channels still owed when it was given up) become `pending`, and the message is sent again;
 * a notice no longer in the database stays, reported. A dry run reads the same and changes nothing.
 * @param report receives one entry per message, as it is handled.
 */
export async function redrivePoison(
  deps: RedriveDeps,
  options: RedriveOptions,
  report: (entry: RedriveEntry) => void,
): Promise<RedriveSummary> {
  const summary: RedriveSummary = { dryRun: options.dryRun, messages: 0, redriven: 0, skipped: 0, notYetDelivered: 0, reset: 0 };
  // Received and not deleted: made visible again at the end, whatever happens.
  const held = new Map<string, PoisonMessage>();
  const seen = new Set<string>();
  try {
    for (;;) {
      const received = await deps.poisonQueue.receive(RECEIVE_COUNT, REDRIVE_HIDE_SECONDS);
      for (const message of received) held.set(message.messageId, message);
      // A message seen before is back because its hiding ran out: every message has been read once.
      const fresh = received.filter((message) => !seen.has(message.messageId));
      if (fresh.length === 0) break;
      for (const message of fresh) {
        seen.add(message.messageId);
        if (await handleOne(deps, options, message, summary, report)) held.delete(message.messageId);
      }
    }
  } finally {
    for (const message of held.values()) await deps.poisonQueue.release(message).catch(() => undefined);
  }
  return summary;
}

/** @returns true when the message was re-driven and deleted from the poison queue. */
async function handleOne(
  deps: RedriveDeps,
  options: RedriveOptions,
  poison: PoisonMessage,
  summary: RedriveSummary,
  report: (entry: RedriveEntry) => void,
): Promise<boolean> {
  const base = { messageId: poison.messageId, poisonedAt: poison.insertedOn?.toISOString() ?? null };
  const decoded = decodePoisonMessage(poison.text);
  // A message that names no announcement is no one announcement's business.
  if (!decoded.ok && options.announcementId !== undefined) return false;
  if (!decoded.ok) {
    summary.messages += 1;
    summary.skipped += 1;
    report({ ...base, action: 'skipped', reason: decoded.reason });
    return false;
  }
  if (decoded.message.kind === 'notice') {
    // An account notice is no announcement's business either.
    if (options.announcementId !== undefined) return false;
    return handleNotice(deps, options, poison, decoded.message.message, summary, report);
  }
  const { message } = decoded.message;
  if (options.announcementId !== undefined && message.announcementId !== options.announcementId) return false;
  summary.messages += 1;
  const where = {
    ...base,
    announcementId: message.announcementId,
    kind: message.batch ? ('batch' as const) : ('split' as const),
    ...(message.batch ? { afterUserId: message.batch.afterUserId, throughUserId: message.batch.throughUserId ?? null } : {}),
  };
  const announcement = await findAnnouncementById(deps.database, message.announcementId);
  if (!announcement || announcement.status !== 'published') {
    summary.skipped += 1;
    report({ ...where, action: 'skipped', reason: announcement ? 'announcement_not_published' : 'announcement_not_found' });
    return false;
  }
  const { range, ...counts } = await undeliveredOf(deps.database, message, announcement.channels);
  summary.notYetDelivered += counts.notYetDelivered;
  if (options.dryRun) {
    summary.redriven += 1;
    report({ ...where, action: 'would_redrive', ...counts });
    return false;
  }
  // Rows first: a message re-driven before its rows were reset would find them final and send nothing.
  const reset = await resetPoisonedDeliveries(deps.database, range, deps.clock.now().toISOString());
  summary.reset += reset;
  await deps.fanoutQueue.enqueue(message);
  await deps.poisonQueue.delete(poison);
  summary.redriven += 1;
  report({ ...where, action: 'redriven', ...counts, reset });
  return true;
}

/** `handleOne` for an account notice's message. @returns true when it was re-driven and deleted. */
async function handleNotice(
  deps: RedriveDeps,
  options: RedriveOptions,
  poison: PoisonMessage,
  message: NoticeMessage,
  summary: RedriveSummary,
  report: (entry: RedriveEntry) => void,
): Promise<boolean> {
  summary.messages += 1;
  const where = { messageId: poison.messageId, poisonedAt: poison.insertedOn?.toISOString() ?? null, kind: 'notice' as const, noticeId: message.notice.id };
  const notice = await findNoticeById(deps.database, message.notice.id);
  if (!notice) {
    summary.skipped += 1;
    report({ ...where, action: 'skipped', reason: 'notice_not_found' });
    return false;
  }
  // A notice has a row per channel it was tried on: what is not final is what a re-drive sends.
  const rows = await listNoticeDeliveries(deps.database, notice.id);
  const pending = rows.filter((row) => row.result === 'pending').length;
  const poisoned = rows.filter((row) => row.result === 'failed' && row.providerCode === POISONED_PROVIDER_CODE).length;
  const counts = { notYetDelivered: pending + poisoned, pending, poisoned };
  summary.notYetDelivered += counts.notYetDelivered;
  if (options.dryRun) {
    summary.redriven += 1;
    report({ ...where, action: 'would_redrive', ...counts });
    return false;
  }
  // Rows first, as for announcements: a message sent before would find them final.
  const reset = await resetPoisonedNoticeDeliveries(deps.database, notice.id, POISONED_PROVIDER_CODE, deps.clock.now().toISOString());
  summary.reset += reset;
  await deps.noticeQueue.enqueue({ notice: message.notice });
  await deps.poisonQueue.delete(poison);
  summary.redriven += 1;
  report({ ...where, action: 'redriven', ...counts, reset });
  return true;
}
