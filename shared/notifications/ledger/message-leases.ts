import type { Database, Dialect, SqlExecutor } from '../../db/database';
import { limitClause } from '../../db/dialect';

/**
 * The fan-out queue's messages as the database knows them (migration `0018-fanout-message-leases`),
 * so that work a dead host held is found from the database rather than when the Functions host's
 * 10-minute queue lease ends. The delivery ledger's row leases only cover a batch once its claim
 * committed; a split, a batch before its claim and an account notice leave nothing there. So:
 * - the enqueue writes the message's row `queued`, due to be taken by `leaseUntil` (the start grace);
 * - the function handling it first takes the row `running` under a lease it renews, and deletes it
 *   once the work is done (or the message goes to the poison queue); a failed try gives it back
 *   `queued`, for the queue's own retry;
 * - a row past its `leaseUntil` is overdue: `running`, its holder died; `queued`, its message was
 *   taken by a host that died before its first statement (or the enqueue after the row failed).
 * One row per message key (what the message is about), so copies of a message share it.
 */

export type MessageLeaseState = 'queued' | 'running';

/** A row past its lease or start grace. */
export interface OverdueMessage {
  messageKey: string;
  messageText: string;
  state: MessageLeaseState;
  leaseUntil: string;
}

const KEY = 'messageKey = @messageKey';
/** Not under a live holder's lease: a queued row (however due), or a running one whose lease ran out. */
const FREE = "(state = 'queued' OR leaseUntil <= @now)";

function insertIfAbsent(dialect: Dialect, state: MessageLeaseState, attempts: 0 | 1): string {
  // SQL Server: the key range is locked, so two enqueues of one key wait for each other instead of
  // failing on the primary key; SQLite serializes its writers.
  const hint = dialect === 'mssql' ? ' WITH (UPDLOCK, HOLDLOCK)' : '';
  return `INSERT INTO FanoutMessageLeases (messageKey, messageText, state, leaseUntil, attempts, createdAt, updatedAt)
     SELECT @messageKey, @messageText, '${state}', @leaseUntil, ${attempts}, @now, @now
     WHERE NOT EXISTS (SELECT 1 FROM FanoutMessageLeases${hint} WHERE ${KEY})`;
}

/**
 * Records that `messageText` is being enqueued under `messageKey`: `queued`, to be taken by
 * `dueBy`. A row under a live holder's lease is left to it (that holder does the same work); any
 * other row is queued again with the new text.
 */
export async function recordQueuedMessage(
  db: Pick<Database, 'execute' | 'dialect'>,
  message: { messageKey: string; messageText: string },
  now: string,
  dueBy: string,
): Promise<void> {
  const params = { messageKey: message.messageKey, messageText: message.messageText, now, leaseUntil: dueBy };
  const requeued = await db.execute(
    `UPDATE FanoutMessageLeases SET messageText = @messageText, state = 'queued', leaseUntil = @leaseUntil, updatedAt = @now
     WHERE ${KEY} AND ${FREE}`,
    params,
  );
  if (requeued === 0) await db.execute(insertIfAbsent(db.dialect, 'queued', 0), params);
}

/**
 * Takes the message's row for the invocation handling it, until `leaseUntil`: a queued row, an
 * expired one, or none yet (a message enqueued without a row: inserted `running`).
 * @returns false when another invocation holds it under a live lease.
 */
export async function claimMessageLease(
  db: Pick<Database, 'execute' | 'dialect'>,
  message: { messageKey: string; messageText: string },
  now: string,
  leaseUntil: string,
): Promise<boolean> {
  const taken = await db.execute(
    `UPDATE FanoutMessageLeases SET state = 'running', leaseUntil = @leaseUntil, attempts = attempts + 1, updatedAt = @now
     WHERE ${KEY} AND ${FREE}`,
    { messageKey: message.messageKey, now, leaseUntil },
  );
  if (taken === 1) return true;
  const params = { messageKey: message.messageKey, messageText: message.messageText, now, leaseUntil };
  return (await db.execute(insertIfAbsent(db.dialect, 'running', 1), params)) === 1;
}

/**
 * Extends the lease this invocation holds (set to `heldUntil`); `updatedAt` stays the claim's, so
 * it keeps saying when the row was last taken. @returns false when the row is no longer this holder's.
 */
export async function renewMessageLease(db: SqlExecutor, messageKey: string, heldUntil: string, leaseUntil: string): Promise<boolean> {
  const renewed = await db.execute(
    `UPDATE FanoutMessageLeases SET leaseUntil = @leaseUntil WHERE ${KEY} AND state = 'running' AND leaseUntil = @heldUntil`,
    { messageKey, heldUntil, leaseUntil },
  );
  return renewed === 1;
}

/** The message's work is done (or given up to the poison queue): its row goes, if still this holder's. */
export async function finishMessageLease(db: SqlExecutor, messageKey: string, heldUntil: string): Promise<void> {
  await db.execute(`DELETE FROM FanoutMessageLeases WHERE ${KEY} AND state = 'running' AND leaseUntil = @heldUntil`, { messageKey, heldUntil });
}

/** A failed try: the row is queued again, due by `dueBy`, for the queue's retry of the message. */
export async function releaseMessageLease(db: SqlExecutor, messageKey: string, heldUntil: string, dueBy: string, now: string): Promise<void> {
  await db.execute(
    `UPDATE FanoutMessageLeases SET state = 'queued', leaseUntil = @dueBy, updatedAt = @now
     WHERE ${KEY} AND state = 'running' AND leaseUntil = @heldUntil`,
    { messageKey, heldUntil, dueBy, now },
  );
}

/**
 * The overdue rows at `now`, oldest first, at most `limit`: every `running` row whose lease ran out,
 * and the `queued` rows past their start grace while no message was taken since `takenSince` (a
 * queue busy with a backlog takes messages all the time, and its queued rows are only waiting).
 */
export async function overdueMessages(
  db: Pick<Database, 'query' | 'dialect'>,
  now: string,
  takenSince: string,
  limit: number,
): Promise<OverdueMessage[]> {
  return db.query<OverdueMessage>(
    `SELECT messageKey, messageText, state, leaseUntil FROM FanoutMessageLeases
     WHERE leaseUntil <= @now
       AND (state = 'running' OR NOT EXISTS (SELECT 1 FROM FanoutMessageLeases t WHERE t.state = 'running' AND t.updatedAt > @takenSince))
     ORDER BY leaseUntil, messageKey ${limitClause(db.dialect, '@limit')}`,
    { now, takenSince, limit },
  );
}

/** Every row (tests, operators' checks). */
export async function messageLeases(db: SqlExecutor): Promise<(OverdueMessage & { attempts: number })[]> {
  const rows = await db.query<OverdueMessage & { attempts: number }>(
    'SELECT messageKey, messageText, state, leaseUntil, attempts FROM FanoutMessageLeases ORDER BY messageKey',
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts), leaseUntil: new Date(row.leaseUntil).toISOString() }));
}
