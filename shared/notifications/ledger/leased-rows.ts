import type { SqlExecutor, SqlParams } from '../../db/database';
import type { Channel } from '../../ports/delivery';

/**
 * The lease rules every delivery ledger keeps, in one place: the announcements' rows
 * (`NotificationDeliveries`, `delivery-ledger.ts`) and the account notices' (`AccountNoticeDeliveries`,
 * `notice-deliveries.ts`) have the same columns of a leased delivery (their subject's id, `userId`,
 * `channel`, `result`, `attempts`, `providerCode`, `providerMessageId`, `claimedUntil`,
 * `firstSentAt`, `createdAt`, `updatedAt`), so the delivery engine's statements (claims, results,
 * releases, send starts, lease renewals: `delivery-ledger.ts`, `send-repeatability.ts`) run on
 * either, named by this descriptor, and both obey the same rules:
 * - a result is written over `pending` only, so a result is never replaced and a late answer loses;
 *   only a delivery report (or the settle timer) writes over `accepted` (`reported-deliveries.ts`);
 * - a row given back ends its lease now, so the next try claims it at once;
 * - the last try of a message fails the rows still `pending` and under no live lease (`poisoned`),
 *   and a re-drive makes exactly those `pending` again.
 */
export interface LeasedLedger {
  /** The ledger's table. */
  table: 'NotificationDeliveries' | 'AccountNoticeDeliveries';
  /**
   * The column of what a row delivers (beside `userId` and `channel`), also the name of its
   * parameter in the ledger's statements (`@announcementId`, `@noticeId`).
   */
  subject: 'announcementId' | 'noticeId';
  /** The predicate that names one row by its key's parameters (`rowParams`). */
  row: string;
}

export const ANNOUNCEMENT_LEDGER: LeasedLedger = {
  table: 'NotificationDeliveries',
  subject: 'announcementId',
  row: 'announcementId = @announcementId AND userId = @userId AND channel = @channel',
};

/** One row per notice × channel (its primary key); `userId` is the notice's recipient. */
export const NOTICE_LEDGER: LeasedLedger = {
  table: 'AccountNoticeDeliveries',
  subject: 'noticeId',
  row: 'noticeId = @noticeId AND userId = @userId AND channel = @channel',
};

/** Every ledger, the announcements' first (most rows: a delivery report's row is most likely there). */
export const LEASED_LEDGERS: readonly LeasedLedger[] = [ANNOUNCEMENT_LEDGER, NOTICE_LEDGER];

/** What a row delivers, by its ledger's subject column: an announcement, or an account notice. */
export type LedgerSubject = { announcementId: string } | { noticeId: string };

/**
 * One row of either ledger, named as its ledger names it: the subject's column says which ledger
 * (`ledgerOf`), so a notice's id is never carried as an announcement's.
 */
export type LedgerRowKey = LedgerSubject & { userId: string; channel: Channel };

/** The ledger whose rows deliver `subject`. */
export function ledgerOf(subject: LedgerSubject): LeasedLedger {
  return 'noticeId' in subject ? NOTICE_LEDGER : ANNOUNCEMENT_LEDGER;
}

/** The subject alone (`announcementId` or `noticeId`), as log lines name it. */
export function subjectOf(subject: LedgerSubject): LedgerSubject {
  return 'noticeId' in subject ? { noticeId: subject.noticeId } : { announcementId: subject.announcementId };
}

/** The parameters of `ledgerOf(key).row` for `key` (whatever else the object carries is left out). */
export function rowKeyParams(key: LedgerRowKey): SqlParams {
  return { ...subjectOf(key), userId: key.userId, channel: key.channel };
}

/** The parameters of `ledger.row` for the row of `subjectId` × `userId` × `channel`. */
export function rowParams(ledger: LeasedLedger, subjectId: string, userId: string, channel: string): SqlParams {
  return { [ledger.subject]: subjectId, userId, channel };
}

/** A final (or `accepted`) result, its provider's code and the provider's id of the message. */
export interface LeasedOutcome {
  result: string;
  providerCode?: string | undefined;
  providerMessageId?: string | undefined;
}

/** Writes a held row's result and ends its lease; a row no longer `pending` stays as it is. */
export async function finishLeasedRow(db: SqlExecutor, ledger: LeasedLedger, key: SqlParams, outcome: LeasedOutcome, now: string): Promise<void> {
  await db.execute(
    `UPDATE ${ledger.table}
     SET result = @result, providerCode = @providerCode, providerMessageId = COALESCE(@providerMessageId, providerMessageId),
         claimedUntil = NULL, updatedAt = @now
     WHERE ${ledger.row} AND result = 'pending'`,
    {
      ...key,
      result: outcome.result,
      providerCode: outcome.providerCode?.slice(0, 64) ?? null,
      providerMessageId: outcome.providerMessageId?.slice(0, 128) ?? null,
      now,
    },
  );
}

/**
 * Gives a held row back without a result (a transient failure past the retries, a failing
 * invocation): its lease ends now, keeping the provider's code of the failure when there is one.
 */
export async function releaseLeasedRow(db: SqlExecutor, ledger: LeasedLedger, key: SqlParams, now: string, providerCode?: string): Promise<void> {
  await db.execute(
    `UPDATE ${ledger.table} SET claimedUntil = @now, providerCode = COALESCE(@providerCode, providerCode), updatedAt = @now
     WHERE ${ledger.row} AND result = 'pending'`,
    { ...key, now, providerCode: providerCode?.slice(0, 64) ?? null },
  );
}

/**
 * Fails the rows of `where` still `pending` and under no live lease, with `providerCode` (the last
 * try of their message failed). One conditional statement: a claim racing with it either wins (the
 * row is then under its lease and skipped) or finds the row final.
 * @returns how many rows it failed.
 */
export async function failUnheldRows(db: SqlExecutor, ledger: LeasedLedger, where: string, params: SqlParams, providerCode: string, now: string): Promise<number> {
  return db.execute(
    `UPDATE ${ledger.table} SET result = 'failed', providerCode = @failedCode, claimedUntil = NULL, updatedAt = @now
     WHERE ${where} AND result = 'pending' AND (claimedUntil IS NULL OR claimedUntil <= @now)`,
    { ...params, failedCode: providerCode.slice(0, 64), now },
  );
}

/**
 * Makes the rows of `where` that `failUnheldRows` failed with `providerCode` `pending` again, with
 * no lease, for a re-driven message to claim; any other result stays.
 * @returns how many rows it reset.
 */
export async function resetFailedRows(db: SqlExecutor, ledger: LeasedLedger, where: string, params: SqlParams, providerCode: string, now: string): Promise<number> {
  return db.execute(
    `UPDATE ${ledger.table} SET result = 'pending', providerCode = NULL, claimedUntil = NULL, updatedAt = @now
     WHERE ${where} AND result = 'failed' AND providerCode = @failedCode`,
    { ...params, failedCode: providerCode.slice(0, 64), now },
  );
}
