import type { Database, SqlExecutor } from '../../db/database';
import { limitClause } from '../../db/dialect';
import type { Channel } from '../../ports/delivery';
import { LEASED_LEDGERS, ledgerOf, rowKeyParams, subjectOf, type LeasedLedger, type LedgerRowKey } from './leased-rows';

/**
 * What settles a row left `accepted` (an SMS or e-mail the provider took, its report still to
 * come), on every ledger alike: the announcements' and the account notices'. A provider's delivery
 * report names the row by its SMS tag (an announcement's) or by the provider's id of the message,
 * which the row holds (an e-mail's operation id is chosen and written with the claim, in the
 * ledger of its subject); the settle timer reads each ledger's old `accepted` rows.
 */

/** The results a delivery report or the settle timer may write over `accepted` (or a still `pending` row). */
export type ReportedResult = 'delivered' | 'failed' | 'hard_bounce' | 'success';

/** How a delivery report names its row: its key (an SMS's tag) or the provider's id of the message (SMS and e-mail: push has no reports). */
export type ReportedDelivery = { row: LedgerRowKey } | { channel: Exclude<Channel, 'push'>; providerMessageId: string };

/** A reported outcome: its result, the provider's code, and the provider's id of the message when the report names one. */
export interface ReportedOutcome {
  result: ReportedResult;
  providerCode?: string | undefined;
  providerMessageId?: string | undefined;
}

/**
 * Writes a provider's report over a row still `accepted` (or `pending`, when the report overtook
 * the send's answer), in whichever ledger holds it. A row with another result keeps it: a
 * duplicate or late report changes nothing twice.
 * @returns the key of the row changed, or undefined when no row took the report.
 */
export async function settleReportedDelivery(db: SqlExecutor, target: ReportedDelivery, outcome: ReportedOutcome, now: string): Promise<LedgerRowKey | undefined> {
  const key = 'row' in target ? target.row : await rowOfMessage(db, target.channel, target.providerMessageId);
  if (!key) return undefined;
  const ledger = ledgerOf(key);
  const changed = await db.execute(
    `UPDATE ${ledger.table}
     SET result = @result, providerCode = @providerCode, providerMessageId = COALESCE(providerMessageId, @providerMessageId),
         claimedUntil = NULL, updatedAt = @now
     WHERE ${ledger.row} AND result IN ('accepted', 'pending')`,
    {
      ...rowKeyParams(key),
      result: outcome.result,
      providerCode: outcome.providerCode?.slice(0, 64) ?? null,
      providerMessageId: outcome.providerMessageId?.slice(0, 128) ?? null,
      now,
    },
  );
  return changed === 1 ? { ...subjectOf(key), userId: key.userId, channel: key.channel } : undefined;
}

/**
 * The row, in any ledger, still waiting for the report of the provider's message `providerMessageId`
 * on `channel`. Ids are unique across ledgers (an e-mail's operation id is derived from its
 * subject, a notice's from `notice:<id>`; an SMS's is the provider's own).
 */
async function rowOfMessage(db: SqlExecutor, channel: Exclude<Channel, 'push'>, providerMessageId: string): Promise<LedgerRowKey | undefined> {
  for (const ledger of LEASED_LEDGERS) {
    const [row] = await db.query<LedgerRowKey & { result: string }>(
      // `channel <> 'push'`: the index of provider ids leaves push rows out (push has no reports).
      `SELECT ${ledger.subject}, userId, channel, result FROM ${ledger.table}
       WHERE channel = @channel AND channel <> 'push' AND providerMessageId = @providerMessageId`,
      { channel, providerMessageId: providerMessageId.slice(0, 128) },
    );
    if (row) return row.result === 'accepted' || row.result === 'pending' ? row : undefined;
  }
  return undefined;
}

/** An `accepted` row waiting for its report. */
export type AcceptedDelivery = LedgerRowKey & {
  providerMessageId: string | null;
  /** `outcome_unknown`: a send that may not have gone out (`deliver-sms.ts`). */
  providerCode: string | null;
  updatedAt: string;
};

/** `accepted` rows of `ledger` and `channel` last changed at or before `before`, oldest first (the settle timer). */
export async function acceptedBefore(
  db: Pick<Database, 'query' | 'dialect'>,
  ledger: LeasedLedger,
  channel: Channel,
  before: string,
  limit: number,
): Promise<AcceptedDelivery[]> {
  return db.query<AcceptedDelivery>(
    `SELECT ${ledger.subject}, userId, channel, providerMessageId, providerCode, updatedAt FROM ${ledger.table}
     WHERE result = 'accepted' AND channel = @channel AND updatedAt <= @before
     ORDER BY updatedAt, ${ledger.subject}, userId ${limitClause(db.dialect, '@limit')}`,
    { channel, before, limit },
  );
}
