import type { Database, Dialect, SqlExecutor } from '../../db/database';
import { jsonRowsCte } from '../../db/dialect';
import type { Channel } from '../../ports/delivery';
import { ANNOUNCEMENT_LEDGER, finishLeasedRow, releaseLeasedRow, rowParams, type LeasedLedger } from './leased-rows';

/**
 * The delivery ledger (contract section 10): one row per announcement × user × channel, unique, so
 * a queue message delivered twice never sends twice. A sender claims the row before sending:
 * - the first claim inserts it as `pending` with a lease (`claimedUntil`);
 * - a row with a final result is never sent again;
 * - a `pending` row whose lease ran out (a crash, or a failed attempt that released it) is claimed
 *   again, and `attempts` counts the claims;
 * - a `pending` row under someone else's live lease is left to them (`busy`).
 * The rules a row keeps once claimed are every ledger's (`leased-rows.ts`); the batched claim, result,
 * renewal and release statements below take the ledger they run on (default: this one), so the account
 * notices' (`AccountNoticeDeliveries`, `NOTICE_LEDGER`) are claimed and written by the very same ones.
 * What stays possible is the at-least-once gap every queue has: a crash after the provider accepted
 * a message but before its row was finished. SMS and e-mail close it with ACS's repeatable requests
 * (`send-repeatability.ts`: the row's own request id and recorded first-sent time, so the resend is
 * one ACS answers without sending); a push whose request was unanswered at the crash is sent again
 * (Expo takes no key).
 */

/**
 * The `notification.delivery` results (contract section 8, and the results the providers' delivery reports settle):
 * - `accepted`: SMS or e-mail handed to the provider; its delivery report is still to come. Not
 *   final: the report (or, without one, the settle timer) replaces it.
 * - `delivered` / `failed`: what the provider's delivery report (or e-mail operation) said.
 * - `success`: push accepted by Expo; or an SMS or e-mail the provider accepted but never reported on.
 * - `provider_error`: refused at the send; `hard_bounce`, `stale_token`, `opted_out`, `budget_exceeded`.
 */
export const DELIVERY_RESULTS = [
  'accepted',
  'success',
  'delivered',
  'failed',
  'provider_error',
  'hard_bounce',
  'stale_token',
  'opted_out',
  'budget_exceeded',
] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

export interface DeliveryKey {
  /**
   * The id of what the row delivers, in its ledger's subject column (`LeasedLedger.subject`): the
   * announcement's (`NotificationDeliveries`), or the account notice's (`AccountNoticeDeliveries`).
   */
  announcementId: string;
  userId: string;
  channel: Channel;
}

export type Claim = 'claimed' | 'done' | 'busy';

export interface DeliveryRow extends DeliveryKey {
  result: DeliveryResult | 'pending';
  attempts: number;
  providerCode: string | null;
  providerMessageId: string | null;
  claimedUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Claims the row of `key` for sending until `leaseUntil` (`claimDeliveries` for one key).
 * @param plannedMessageId the provider id the send will use when the sender chooses it (an e-mail's
 *   operation id): written with the row, so a delivery report that overtakes the send's answer
 *   still finds its row.
 * @returns `claimed`: send it; `done`: it has a result, skip it; `busy`: another invocation holds it.
 */
export async function claimDelivery(db: Database, key: DeliveryKey, now: string, leaseUntil: string, plannedMessageId?: string): Promise<Claim> {
  const [claim] = await claimDeliveries(db, [plannedMessageId === undefined ? key : { ...key, plannedMessageId }], now, leaseUntil);
  return claim as Claim;
}

/** The JSON fields `claimDeliveries` reads: a row's user, channel and the provider id planned for it. */
const CLAIMED_COLUMNS = [
  { name: 'userId', type: { text: 64 } },
  { name: 'channel', type: { text: 16 } },
  { name: 'plannedMessageId', type: { text: 128 } },
] as const;

/**
 * The condition "the row is one of the JSON rows `j`" (same user and channel, of the ledger's
 * subject), spelled so that each engine finds the rows by primary key, whatever the subject's size.
 * SQL Server plans the EXISTS as a seek per row of `j`. SQLite evaluated it per ledger row, walking
 * every pending row of the announcement in each statement (its index on announcementId and result
 * looked cheaper): there the rows' rowids are looked up from `j` first, in that order (CROSS JOIN).
 */
export function inRows(dialect: Dialect, ledger: LeasedLedger = ANNOUNCEMENT_LEDGER): string {
  const { table, subject } = ledger;
  return dialect === 'sqlite'
    ? `rowid IN (SELECT d.rowid FROM j CROSS JOIN ${table} AS d WHERE d.${subject} = @${subject} AND d.userId = j.userId AND d.channel = j.channel)`
    : `EXISTS (SELECT 1 FROM j WHERE j.userId = ${table}.userId AND j.channel = ${table}.channel)`;
}

/**
 * The claim's two writes, per dialect: each returns the keys it changed (SQLite `RETURNING`, SQL
 * Server `OUTPUT`), so the caller knows exactly which rows it holds, even if another invocation
 * set the same lease time in the same millisecond.
 */
function claimStatements(dialect: Dialect, ledger: LeasedLedger): { reclaim: string; insert: string } {
  const { table, subject } = ledger;
  const rows = jsonRowsCte(dialect, 'j', '@rows', CLAIMED_COLUMNS);
  // A pending row whose lease ran out (a crash, or a release) is claimed again, and `attempts` counts it.
  const reclaimWhere = `WHERE ${subject} = @${subject} AND result = 'pending' AND (claimedUntil IS NULL OR claimedUntil <= @now) AND ${inRows(dialect, ledger)}`;
  const insertColumns = `(${subject}, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt)`;
  const insertValues = `SELECT @${subject}, j.userId, j.channel, 'pending', 1, NULL, j.plannedMessageId, @leaseUntil, @now, @now FROM j`;
  const absent = (hint: string) =>
    `WHERE NOT EXISTS (SELECT 1 FROM ${table} d${hint} WHERE d.${subject} = @${subject} AND d.userId = j.userId AND d.channel = j.channel)`;
  const set = 'SET attempts = attempts + 1, claimedUntil = @leaseUntil, updatedAt = @now';
  switch (dialect) {
    case 'sqlite':
      // BEGIN IMMEDIATE already serializes writers: no other claim runs between the check and the insert.
      return {
        reclaim: `${rows} UPDATE ${table} ${set} ${reclaimWhere} RETURNING userId, channel`,
        insert: `${rows} INSERT INTO ${table} ${insertColumns} ${insertValues} ${absent('')} RETURNING userId, channel`,
      };
    case 'mssql':
      // Under snapshot isolation two claims could both see the row absent; UPDLOCK with HOLDLOCK locks
      // the key range, so the second waits and then sees the first's row (busy) instead of failing
      // on the primary key.
      return {
        reclaim: `${rows} UPDATE ${table} ${set} OUTPUT inserted.userId, inserted.channel ${reclaimWhere}`,
        insert: `${rows} INSERT INTO ${table} ${insertColumns} OUTPUT inserted.userId, inserted.channel ${insertValues} ${absent(' WITH (UPDLOCK, HOLDLOCK)')}`,
      };
  }
}

/**
 * Claims the rows of `keys` (one announcement's, or one notice's in `ledger`) for sending until `leaseUntil`, in one transaction
 * of two or three statements whatever their number (a batch's 500 rows once took 500 round trips):
 * - a row not there yet is inserted as `pending` under the lease (with its planned provider id);
 * - a `pending` row whose lease ran out is claimed again, and `attempts` counts the claims;
 * - a row with a final result is `done`; a `pending` row under another invocation's live lease is `busy`.
 * @param ledger the table of the rows (default: the announcements').
 * @returns the claim of each key, in order.
 */
export async function claimDeliveries(
  db: Database,
  keys: readonly (DeliveryKey & { plannedMessageId?: string })[],
  now: string,
  leaseUntil: string,
  ledger: LeasedLedger = ANNOUNCEMENT_LEDGER,
): Promise<Claim[]> {
  const first = keys[0];
  if (!first) return [];
  const { announcementId } = first;
  if (keys.some((key) => key.announcementId !== announcementId)) throw new Error('claimDeliveries takes the rows of one announcement');
  const idOf = (row: { userId: string; channel: string }) => `${row.userId}/${row.channel}`;
  // Each row once: a key given twice would be inserted twice and fail on the primary key.
  const unique = new Map(keys.map((key) => [idOf(key), { userId: key.userId, channel: key.channel, plannedMessageId: key.plannedMessageId ?? null }]));
  const rows = JSON.stringify([...unique.values()]);
  const params = { [ledger.subject]: announcementId, now, leaseUntil, rows };
  const statements = claimStatements(db.dialect, ledger);
  return db.transaction(async (tx) => {
    const held = new Set<string>();
    for (const row of await tx.query<{ userId: string; channel: string }>(statements.reclaim, params)) held.add(idOf(row));
    for (const row of await tx.query<{ userId: string; channel: string }>(statements.insert, params)) held.add(idOf(row));
    const others = new Map<string, string>();
    if (held.size < unique.size) {
      const found = await tx.query<{ userId: string; channel: string; result: string }>(
        `${jsonRowsCte(db.dialect, 'j', '@rows', CLAIMED_COLUMNS)}
         SELECT d.userId, d.channel, d.result FROM j CROSS JOIN ${ledger.table} AS d
         WHERE d.${ledger.subject} = @${ledger.subject} AND d.userId = j.userId AND d.channel = j.channel`,
        { [ledger.subject]: announcementId, rows },
      );
      for (const row of found) others.set(idOf(row), row.result);
    }
    return keys.map((key): Claim => {
      // Claimed once: a key given again is held by its first copy.
      if (held.delete(idOf(key))) return 'claimed';
      const result = others.get(idOf(key));
      // A row neither held nor found cannot be skipped as done: it stays owed to a later attempt.
      return result === undefined || result === 'pending' ? 'busy' : 'done';
    });
  });
}

/**
 * Records the result of a claimed row (and ends its lease). Only a `pending` row changes: a
 * delivery report that overtook the send's own answer has already written the later truth.
 */
export async function finishDelivery(
  db: SqlExecutor,
  key: DeliveryKey,
  outcome: { result: DeliveryResult; providerCode?: string | undefined; providerMessageId?: string | undefined },
  now: string,
): Promise<void> {
  await finishLeasedRow(db, ANNOUNCEMENT_LEDGER, { ...key }, outcome, now);
}

/** One row's final result for `finishDeliveries`. */
export interface FinishedDelivery {
  userId: string;
  result: DeliveryResult;
  providerCode?: string | undefined;
  providerMessageId?: string | undefined;
}

/** The JSON fields `finishDeliveries` reads, with the ledger columns' lengths. */
const FINISHED_COLUMNS = [
  { name: 'userId', type: { text: 64 } },
  { name: 'result', type: { text: 32 } },
  { name: 'providerCode', type: { text: 64 } },
  { name: 'providerMessageId', type: { text: 128 } },
] as const;

/**
 * Records the results of many claimed rows of one announcement and channel in one statement (as
 * `finishDelivery` does for one): how a push request's answer is written the moment it arrives,
 * so a crash after it can never send those messages again. Only `pending` rows change.
 * @param dialect the engine of `db` (a transaction's executor does not carry it).
 * @param ledger the table of the rows (default: the announcements'; `announcementId` is then a notice's id).
 * @returns how many rows changed.
 */
export async function finishDeliveries(
  db: SqlExecutor,
  dialect: Dialect,
  announcementId: string,
  channel: Channel,
  rows: readonly FinishedDelivery[],
  now: string,
  ledger: LeasedLedger = ANNOUNCEMENT_LEDGER,
): Promise<number> {
  if (rows.length === 0) return 0;
  // A join, not a subquery per column: each row of the update finds its result once.
  const set = `SET result = j.result, providerCode = j.providerCode,
         providerMessageId = COALESCE(j.providerMessageId, d.providerMessageId), claimedUntil = NULL, updatedAt = @now`;
  const which = (result: string) => `d.${ledger.subject} = @${ledger.subject} AND d.channel = @channel AND ${result} = 'pending'`;
  const update: Record<Dialect, string> = {
    // `+d.result`: without statistics SQLite may otherwise walk the subject's pending rows by
    // (subject, result) and scan the JSON rows for each, where each JSON row is one key look-up.
    sqlite: `UPDATE ${ledger.table} AS d ${set} FROM j WHERE j.userId = d.userId AND ${which('+d.result')}`,
    mssql: `UPDATE d ${set} FROM ${ledger.table} AS d JOIN j ON j.userId = d.userId WHERE ${which('d.result')}`,
  };
  return db.execute(
    `${jsonRowsCte(dialect, 'j', '@rows', FINISHED_COLUMNS)} ${update[dialect]}`,
    {
      [ledger.subject]: announcementId,
      channel,
      now,
      rows: JSON.stringify(
        rows.map((row) => ({
          userId: row.userId,
          result: row.result,
          providerCode: row.providerCode?.slice(0, 64) ?? null,
          providerMessageId: row.providerMessageId?.slice(0, 128) ?? null,
        })),
      ),
    },
  );
}

const LEASED_COLUMNS = [{ name: 'userId', type: { text: 64 } }] as const;

/**
 * Extends the lease of rows this invocation still holds (those still `pending` under the lease it
 * set, `heldUntil`) to `leaseUntil`, in one statement: a batch that runs longer than one lease keeps
 * its rows, while a crashed one's rows come free one lease after its last renewal.
 * @param ledger the table of the rows (default: the announcements').
 * @returns how many rows were renewed.
 */
export async function renewDeliveryLeases(
  db: SqlExecutor,
  dialect: Dialect,
  announcementId: string,
  keys: readonly Pick<DeliveryKey, 'userId' | 'channel'>[],
  heldUntil: string,
  leaseUntil: string,
  now: string,
  ledger: LeasedLedger = ANNOUNCEMENT_LEDGER,
): Promise<number> {
  if (keys.length === 0) return 0;
  // By user only: a row of the user still `pending` under exactly the lease this invocation set is
  // one it holds (a released row's lease ended, a finished row is no longer pending).
  const users = [...new Set(keys.map((key) => key.userId))].map((userId) => ({ userId }));
  return db.execute(
    `${jsonRowsCte(dialect, 'j', '@keys', LEASED_COLUMNS)}
     UPDATE ${ledger.table} SET claimedUntil = @leaseUntil, updatedAt = @now
     WHERE ${ledger.subject} = @${ledger.subject} AND result = 'pending' AND claimedUntil = @heldUntil
       AND userId IN (SELECT j.userId FROM j)`,
    { [ledger.subject]: announcementId, heldUntil, leaseUntil, now, keys: JSON.stringify(users) },
  );
}

/**
 * Gives a claimed row back without a final result (a transient failure that outlived the retries,
 * or an invocation that failed): the lease ends now, so the redelivered message claims it at once.
 * @param ledger the table of the row (default: the announcements').
 */
export async function releaseDelivery(
  db: SqlExecutor,
  key: DeliveryKey,
  now: string,
  providerCode?: string,
  ledger: LeasedLedger = ANNOUNCEMENT_LEDGER,
): Promise<void> {
  await releaseLeasedRow(db, ledger, rowParams(ledger, key.announcementId, key.userId, key.channel), now, providerCode);
}

/** Every ledger row of an announcement (tests, operators' checks). */
export async function deliveriesOf(db: SqlExecutor, announcementId: string): Promise<DeliveryRow[]> {
  const rows = await db.query<DeliveryRow>(
    `SELECT announcementId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt
     FROM NotificationDeliveries WHERE announcementId = @announcementId ORDER BY userId, channel`,
    { announcementId },
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}
