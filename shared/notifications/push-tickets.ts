import type { Database, SqlExecutor } from '../db/database';
import { UniqueViolationError } from '../db/database-errors';
import { limitClause } from '../db/dialect';

/**
 * Expo push tickets whose receipts are still to be read. A ticket only says Expo took the message;
 * its receipt, ready some minutes later, may say the device is no longer registered. The token is
 * kept with the ticket so that the receipt can remove it; rows go once their receipt was read.
 */
/** The longest ticket id kept (the `PushTickets.ticketId` column; Expo's ids are UUIDs). */
export const MAX_TICKET_ID_LENGTH = 128;

export interface PushTicket {
  ticketId: string;
  token: string;
  userId: string;
  announcementId: string;
  sentAt: string;
}

/** Records tickets of one push request (in the caller's transaction); a ticket seen twice is kept once. */
export async function recordPushTickets(tx: SqlExecutor, tickets: readonly PushTicket[]): Promise<void> {
  for (const ticket of tickets) {
    try {
      await tx.execute(
        `INSERT INTO PushTickets (ticketId, token, userId, announcementId, sentAt)
         VALUES (@ticketId, @token, @userId, @announcementId, @sentAt)`,
        { ...ticket },
      );
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
    }
  }
}

/** Up to `limit` tickets sent at or before `sentBefore`, oldest first. */
export async function ticketsSentBefore(db: Database, sentBefore: string, limit: number): Promise<PushTicket[]> {
  return db.query<PushTicket>(
    `SELECT ticketId, token, userId, announcementId, sentAt FROM PushTickets
     WHERE sentAt <= @sentBefore ORDER BY sentAt, ticketId ${limitClause(db.dialect, '@limit')}`,
    { sentBefore, limit },
  );
}

export async function deletePushTicket(db: SqlExecutor, ticketId: string): Promise<void> {
  await db.execute('DELETE FROM PushTickets WHERE ticketId = @ticketId', { ticketId });
}
