import type { SqlExecutor } from '../../database';

/**
 * `PushTickets` keyed by (`sentAt`, `ticketId`) instead of `ticketId` alone. Expo's ticket ids are
 * random UUIDs, so the key they led sent every ticket of a push fan-out to a page of its own (100,000
 * tickets written in requests of 100: 1.55 s against 0.31 s in send order, on this engine); led by
 * the time its request was sent, a fan-out's tickets are appended. The receipt check reads the
 * oldest tickets first and deletes each one it has read by the same key, so the key serves both,
 * and the old `sentAt` index, its prefix now, goes. Nothing references the table: it is rebuilt, its
 * rows kept.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await rebuild(tx, 'PRIMARY KEY (sentAt, ticketId)', `INSERT INTO PushTickets_rebuilt (${COLUMNS}) SELECT ${COLUMNS} FROM PushTickets`);
}

export async function down(tx: SqlExecutor): Promise<void> {
  // One row per ticket id again: the first sent of any that repeat it.
  await rebuild(
    tx,
    'PRIMARY KEY (ticketId)',
    `INSERT INTO PushTickets_rebuilt (${COLUMNS}) SELECT ${COLUMNS} FROM PushTickets p
     WHERE NOT EXISTS (SELECT 1 FROM PushTickets q WHERE q.ticketId = p.ticketId AND (q.sentAt < p.sentAt OR (q.sentAt = p.sentAt AND q.rowid < p.rowid)))`,
  );
  await tx.execute('CREATE INDEX IX_PushTickets_sentAt ON PushTickets (sentAt)');
}

const COLUMNS = 'ticketId, token, userId, announcementId, sentAt';

/** Recreates the table, as 0005 made it but for its key, its rows copied by `copy`, in the migration's transaction. */
async function rebuild(tx: SqlExecutor, key: string, copy: string): Promise<void> {
  await tx.execute(`
    CREATE TABLE PushTickets_rebuilt (
      ticketId TEXT NOT NULL,
      token TEXT NOT NULL,
      userId TEXT NOT NULL REFERENCES Users (id),
      announcementId TEXT NOT NULL REFERENCES Announcements (id),
      sentAt TEXT NOT NULL,
      ${key}
    ) STRICT`);
  await tx.execute(copy);
  await tx.execute('DROP TABLE PushTickets');
  await tx.execute('ALTER TABLE PushTickets_rebuilt RENAME TO PushTickets');
}
