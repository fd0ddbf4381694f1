import { createHash } from 'node:crypto';
import type { Dialect, SqlExecutor } from '../../db/database';
import { jsonRowsCte } from '../../db/dialect';
import { inRows, type DeliveryKey } from './delivery-ledger';
import type { DeliveryOutcome, RepeatablePair } from '../../ports/delivery';
import { SHUTDOWN_CODE } from '../providers/provider-http';
import { ANNOUNCEMENT_LEDGER, rowParams, type LeasedLedger } from './leased-rows';

/**
 * ACS's repeatable requests ("Repeatable requests" in the ACS reference, after OASIS Repeatable
 * Requests 1.0) across crashes. Each ledger row's SMS or e-mail carries the same pair on every send
 * of it, before and after a restart: a request id derived from the row, and the first-sent time
 * the ledger recorded durably before the row's first send (`firstSentAt`). ACS answers a repeat it
 * already executed with its first answer and sends nothing. It tracks a request for 5 minutes only
 * and refuses an older first-sent with 412, so a row whose first send is older than that is
 * resent by no one: its outcome is unknown, and it is looked up where the provider can (an
 * e-mail's operation) or left to its delivery report (an SMS).
 */

/** The provider code of a row whose send may or may not have gone out (recorded `accepted`, for its report). */
export const OUTCOME_UNKNOWN = 'outcome_unknown';

/** How long ACS tracks a repeatable request. */
export const PROVIDER_REPEAT_WINDOW_MS = 5 * 60 * 1000;

/**
 * A resend is made only this long after the first send: the rest of the window is kept for the
 * send's own tries (`sendBudgetMs`) and for the difference between our clock and ACS's.
 */
export const RESEND_WITHIN_MS = PROVIDER_REPEAT_WINDOW_MS - 90 * 1000;


/**
 * What a row's send is now:
 * - `first`: never handed to the provider; its first-sent is now;
 * - `resend`: handed over before (a crash, a lost answer) inside the window: send the same pair again;
 * - `expired`: handed over too long ago for ACS to recognise a resend: its outcome is unknown.
 */
export type SendStart = { kind: 'first' | 'resend' | 'expired'; repeatability: RepeatablePair };

/**
 * The request id of a row's sends: a UUID derived from the row, the same on every try and after a
 * restart, and different for each row and channel.
 */
export function repeatabilityRequestId(key: DeliveryKey): string {
  const hex = createHash('sha256').update(`repeatability\n${key.channel}\n${key.announcementId}\n${key.userId}`).digest('hex');
  // RFC 9562 layout: version 8 (custom), variant 10.
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The send of `key` whose first send the ledger recorded at `firstSentAt` (this call's own mark
 * when it is `now`).
 * @param markedNow true when this very mark set `firstSentAt` (a first send).
 */
export function sendStartOf(key: DeliveryKey, firstSentAt: Date, markedNow: boolean, now: Date): SendStart {
  const repeatability = { requestId: repeatabilityRequestId(key), firstSent: firstSentAt };
  if (markedNow) return { kind: 'first', repeatability };
  return { kind: now.getTime() - firstSentAt.getTime() <= RESEND_WITHIN_MS ? 'resend' : 'expired', repeatability };
}

const MARKED_COLUMNS = [
  { name: 'userId', type: { text: 64 } },
  { name: 'channel', type: { text: 16 } },
] as const;

/**
 * Records, in one statement, that the rows of `keys` are about to be handed to the provider: a row
 * without a first send gets `now`, one with a first send keeps it. Only `pending` rows: a row
 * settled meanwhile (a report, another invocation) is not sent.
 * @param ledger the table of the rows (default: the announcements'; `announcementId` is then a notice's id).
 * @returns each still-pending row's first-sent time, by `userId/channel`.
 */
export async function markSendStarts(
  db: SqlExecutor,
  dialect: Dialect,
  announcementId: string,
  keys: readonly Pick<DeliveryKey, 'userId' | 'channel'>[],
  now: string,
  ledger: LeasedLedger = ANNOUNCEMENT_LEDGER,
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const { table, subject } = ledger;
  const set = 'SET firstSentAt = COALESCE(firstSentAt, @now)';
  const where = `WHERE ${subject} = @${subject} AND result = 'pending' AND ${inRows(dialect, ledger)}`;
  const statement: Record<Dialect, string> = {
    sqlite: `UPDATE ${table} ${set} ${where} RETURNING userId, channel, firstSentAt`,
    mssql: `UPDATE ${table} ${set} OUTPUT inserted.userId, inserted.channel, inserted.firstSentAt ${where}`,
  };
  const rows = await db.query<{ userId: string; channel: string; firstSentAt: string }>(
    `${jsonRowsCte(dialect, 'j', '@rows', MARKED_COLUMNS)} ${statement[dialect]}`,
    { [subject]: announcementId, now, rows: JSON.stringify(keys.map((key) => ({ userId: key.userId, channel: key.channel }))) },
  );
  return new Map(rows.map((row) => [`${row.userId}/${row.channel}`, row.firstSentAt]));
}

/**
 * Starts a row's sends over (the provider never took it, so the next send is a first one with a
 * new first-sent time): an e-mail whose operation ACS does not know.
 * @param ledger the table of the row (default: the announcements').
 */
export async function restartSendStart(db: SqlExecutor, key: DeliveryKey, now: string, ledger: LeasedLedger = ANNOUNCEMENT_LEDGER): Promise<void> {
  await db.execute(`UPDATE ${ledger.table} SET firstSentAt = @now WHERE ${ledger.row} AND result = 'pending'`, {
    ...rowParams(ledger, key.announcementId, key.userId, key.channel),
    now,
  });
}

/** The codes of a failed send that got no answer (a timeout, a dropped connection, the shutdown's deadline). */
const UNANSWERED = new Set(['timeout', 'network', 'network_error', SHUTDOWN_CODE]);

/**
 * True when the provider answered the send with a refusal (a status: 429, 5xx, a recipient's
 * error), so it sent nothing and the row's next send is a first one; false when no answer came and
 * the message may have gone out.
 */
export function providerRefused(outcome: Extract<DeliveryOutcome, { result: 'provider_error' }>): boolean {
  return !UNANSWERED.has(outcome.code);
}

/**
 * Forgets a row's first send: the provider refused it, so nothing went out, and a later send must
 * not be taken for a resend (past the window it would be left unsent as `expired`).
 * @param ledger the table of the row (default: the announcements').
 */
export async function clearSendStart(db: SqlExecutor, key: DeliveryKey, ledger: LeasedLedger = ANNOUNCEMENT_LEDGER): Promise<void> {
  await db.execute(
    `UPDATE ${ledger.table} SET firstSentAt = NULL WHERE ${ledger.row} AND result = 'pending'`,
    rowParams(ledger, key.announcementId, key.userId, key.channel),
  );
}
