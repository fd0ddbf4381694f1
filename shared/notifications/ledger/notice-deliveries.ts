import type { SqlExecutor } from '../../db/database';
import { failUnheldRows, NOTICE_LEDGER, resetFailedRows } from './leased-rows';

/**
 * The ledger of account notices' deliveries (`AccountNoticeDeliveries`, migrations 0013, 0019 and 0022),
 * one row per notice × channel, for the notice's recipient (`userId`). Its rows are claimed, sent,
 * written and given back by the delivery engine's own statements (`delivery-ledger.ts`,
 * `send-repeatability.ts`, named by `NOTICE_LEDGER`), as an announcement's are; what is the
 * notices' own is below: the last try's and a re-drive's rows of one notice, and reading them. Ids only.
 */

export const NOTICE_CHANNELS = ['push', 'email'] as const;
export type NoticeChannel = (typeof NOTICE_CHANNELS)[number];

/**
 * Results of a notice's delivery on one channel: `accepted` until the e-mail's report (or the
 * settle timer) settles it as `delivered`, `hard_bounce`, `failed` or `success`; `failed` also when
 * given up on (poisoned).
 */
export type NoticeDeliveryResult = 'success' | 'accepted' | 'delivered' | 'provider_error' | 'hard_bounce' | 'stale_token' | 'failed';

export interface NoticeDeliveryRow {
  noticeId: string;
  userId: string;
  channel: NoticeChannel;
  result: NoticeDeliveryResult | 'pending';
  attempts: number;
  providerCode: string | null;
  providerMessageId: string | null;
  claimedUntil: string | null;
  /** When its e-mail was first handed to the provider (ACS's repeatable request's first-sent). */
  firstSentAt: string | null;
}

/**
 * Marks the notice's deliveries still `pending` and not under another invocation's live lease as
 * `failed` with `providerCode` (the message's last try failed: it goes to the poison queue).
 * @returns how many rows it marked.
 */
export async function failPendingNoticeDeliveries(db: SqlExecutor, noticeId: string, providerCode: string, now: string): Promise<number> {
  return failUnheldRows(db, NOTICE_LEDGER, 'noticeId = @noticeId', { noticeId }, providerCode, now);
}

/**
 * Makes the notice's deliveries failed by poisoning (`failed` / `providerCode`) `pending` again,
 * with no lease, for a re-driven message to claim and send. Any other result stays.
 * @returns how many rows were reset.
 */
export async function resetPoisonedNoticeDeliveries(db: SqlExecutor, noticeId: string, providerCode: string, now: string): Promise<number> {
  return resetFailedRows(db, NOTICE_LEDGER, 'noticeId = @noticeId', { noticeId }, providerCode, now);
}

/** The notice's delivery rows, by channel. */
export async function listNoticeDeliveries(db: SqlExecutor, noticeId: string): Promise<NoticeDeliveryRow[]> {
  const rows = await db.query<NoticeDeliveryRow>(
    `SELECT noticeId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, firstSentAt
     FROM AccountNoticeDeliveries WHERE noticeId = @noticeId ORDER BY channel`,
    { noticeId },
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts), claimedUntil: toIso(row.claimedUntil), firstSentAt: toIso(row.firstSentAt) }));
}

/** Both adapters return ISO strings; re-serialised into `toISOString`'s exact form. */
function toIso(value: string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
