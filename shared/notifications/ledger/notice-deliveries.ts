import type { SqlExecutor } from '../../db/database';
import { UniqueViolationError } from '../../db/database-errors';
import { failUnheldRows, finishLeasedRow, NOTICE_LEDGER, releaseLeasedRow, resetFailedRows } from './leased-rows';

/**
 * The ledger of account notices' deliveries (migration `0013-account-notices`:
 * `AccountNoticeDeliveries`), one row per notice × channel, under the same lease rules as the
 * announcements' ledger (`delivery-ledger.ts`): claimed before sending, a final result never
 * replaced, a `pending` row whose lease ran out claimed again: a claimed row's rules are
 * `leased-rows.ts`'s, the announcements' ledger's too. Ids only.
 */

export const NOTICE_CHANNELS = ['push', 'email'] as const;
export type NoticeChannel = (typeof NOTICE_CHANNELS)[number];

/** Final results of a notice's delivery on one channel (`failed`: given up on, e.g. poisoned). */
export type NoticeDeliveryResult = 'success' | 'accepted' | 'provider_error' | 'hard_bounce' | 'stale_token' | 'failed';

export interface NoticeDeliveryRow {
  noticeId: string;
  channel: NoticeChannel;
  result: NoticeDeliveryResult | 'pending';
  attempts: number;
  providerCode: string | null;
  providerMessageId: string | null;
  claimedUntil: string | null;
}

export type NoticeClaim = 'claimed' | 'done' | 'busy';

/**
 * Claims the notice's delivery on `channel` for sending until `leaseUntil`: a row not there yet
 * is inserted as `pending` under the lease (two claims racing: the primary key lets one in); a
 * `pending` row whose lease ran out is claimed again (`attempts` counts the claims).
 * @param plannedMessageId the provider id the send will use (an e-mail's operation id), kept with the row.
 * @returns `claimed`: send it; `done`: it has a result; `busy`: another invocation holds it.
 */
export async function claimNoticeDelivery(
  db: SqlExecutor,
  key: { noticeId: string; channel: NoticeChannel },
  now: string,
  leaseUntil: string,
  plannedMessageId: string | null = null,
): Promise<NoticeClaim> {
  const reclaimed = await db.execute(
    `UPDATE AccountNoticeDeliveries SET attempts = attempts + 1, claimedUntil = @leaseUntil, updatedAt = @now
     WHERE noticeId = @noticeId AND channel = @channel AND result = 'pending' AND (claimedUntil IS NULL OR claimedUntil <= @now)`,
    { ...key, now, leaseUntil },
  );
  if (reclaimed === 1) return 'claimed';
  try {
    await db.execute(
      `INSERT INTO AccountNoticeDeliveries (noticeId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt)
       VALUES (@noticeId, @channel, 'pending', 1, NULL, @plannedMessageId, @leaseUntil, @now, @now)`,
      { ...key, plannedMessageId, now, leaseUntil },
    );
    return 'claimed';
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
  const [row] = await db.query<{ result: string }>(
    'SELECT result FROM AccountNoticeDeliveries WHERE noticeId = @noticeId AND channel = @channel',
    key,
  );
  return row?.result === 'pending' ? 'busy' : 'done';
}

/** Writes a claimed delivery's final result (only over `pending`: a result is never replaced). */
export async function finishNoticeDelivery(
  db: SqlExecutor,
  key: { noticeId: string; channel: NoticeChannel },
  outcome: { result: NoticeDeliveryResult; providerCode?: string | undefined; providerMessageId?: string | undefined },
  now: string,
): Promise<void> {
  await finishLeasedRow(db, NOTICE_LEDGER, { ...key }, outcome, now);
}

/** Gives a claimed delivery back after a transient failure: the message's next try claims it at once. */
export async function releaseNoticeDelivery(
  db: SqlExecutor,
  key: { noticeId: string; channel: NoticeChannel },
  providerCode: string,
  now: string,
): Promise<void> {
  await releaseLeasedRow(db, NOTICE_LEDGER, { ...key }, now, providerCode);
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
    `SELECT noticeId, channel, result, attempts, providerCode, providerMessageId, claimedUntil
     FROM AccountNoticeDeliveries WHERE noticeId = @noticeId ORDER BY channel`,
    { noticeId },
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts), claimedUntil: row.claimedUntil === null ? null : toIso(row.claimedUntil) }));
}

/** Both adapters return ISO strings; re-serialised into `toISOString`'s exact form. */
function toIso(value: string): string {
  return new Date(value).toISOString();
}
