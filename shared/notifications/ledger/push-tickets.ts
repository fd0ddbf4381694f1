import type { Database, Dialect, SqlExecutor } from '../../db/database';
import { jsonRowsSource, limitClause } from '../../db/dialect';
import { MAX_TICKET_ID_LENGTH } from '../providers/expo-push-provider';

/**
 * Expo push tickets whose receipts are still to be read. A ticket only says Expo took the message;
 * its receipt, ready some minutes later, may say the device is no longer registered. The token is
 * kept with the ticket so that the receipt can remove it; rows go once their receipt was read.
 */
export interface PushTicket {
  ticketId: string;
  token: string;
  userId: string;
  announcementId: string;
  sentAt: string;
}

const TICKET_COLUMNS = [
  { name: 'ticketId', type: { text: MAX_TICKET_ID_LENGTH } },
  { name: 'token', type: { text: 256 } },
  { name: 'userId', type: { text: 64 } },
  { name: 'announcementId', type: { text: 64 } },
  { name: 'sentAt', type: { text: 64 } },
] as const;

/**
 * Records the tickets of one push request in one statement (in the caller's transaction, with the
 * request's ledger results); a ticket seen twice is kept once. The table's key leads with `sentAt`
 * (migration 0021): a request's tickets share it, so they are appended however random Expo's ids.
 */
export async function recordPushTickets(tx: SqlExecutor, dialect: Dialect, tickets: readonly PushTicket[]): Promise<void> {
  const unique = new Map<string, PushTicket>();
  for (const ticket of tickets) if (!unique.has(ticket.ticketId)) unique.set(ticket.ticketId, ticket);
  if (unique.size === 0) return;
  const source = jsonRowsSource(dialect, '@tickets', TICKET_COLUMNS);
  // No lock needed between the check and the insert: a ticket id comes from one Expo answer to one
  // request, which one invocation records; the check only skips tickets an earlier attempt recorded.
  await tx.execute(
    `INSERT INTO PushTickets (ticketId, token, userId, announcementId, sentAt)
     SELECT j.ticketId, j.token, j.userId, j.announcementId, j.sentAt FROM ${source} AS j
     WHERE NOT EXISTS (SELECT 1 FROM PushTickets p WHERE p.sentAt = j.sentAt AND p.ticketId = j.ticketId)`,
    { tickets: JSON.stringify([...unique.values()]) },
  );
}

/** Up to `limit` tickets sent at or before `sentBefore`, oldest first. */
export async function ticketsSentBefore(db: Database, sentBefore: string, limit: number): Promise<PushTicket[]> {
  return db.query<PushTicket>(
    `SELECT ticketId, token, userId, announcementId, sentAt FROM PushTickets
     WHERE sentAt <= @sentBefore ORDER BY sentAt, ticketId ${limitClause(db.dialect, '@limit')}`,
    { sentBefore, limit },
  );
}

/** Deletes a ticket whose receipt was read, by the table's key (as `ticketsSentBefore` returned it). */
export async function deletePushTicket(db: SqlExecutor, ticket: Pick<PushTicket, 'sentAt' | 'ticketId'>): Promise<void> {
  await db.execute('DELETE FROM PushTickets WHERE sentAt = @sentAt AND ticketId = @ticketId', { sentAt: ticket.sentAt, ticketId: ticket.ticketId });
}
