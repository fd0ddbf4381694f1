import { DatabaseSync } from 'node:sqlite';
import { performance } from 'node:perf_hooks';
import { PUSH_BATCH_LIMIT } from '../shared/notifications/channels/deliver-push';

/**
 * The ledger floor of a push fan-out: the per-recipient row writes crash safety
 * requires, with nothing else. On a database seeded like the run's (same engine, `node:sqlite`, same
 * pragmas as the app's connection), bare prepared statements, one row a statement run:
 * - each batch's claim: one transaction inserting its recipients' ledger rows (`pending`, leased);
 * - each push request's answer (100 devices): one transaction inserting its tickets and writing
 *   its recipients' results;
 * so as many transactions as the app's (one claim a batch, one a request) and the same rows. Timed
 * one after another on one connection: the app spreads them over its batches, but SQLite takes one
 * writer at a time anyway.
 */
export interface LedgerFloor {
  ms: number;
  transactions: number;
  /** Row writes: claims, results and tickets. */
  rowWrites: number;
}

/**
 * Times the ledger writes of a push fan-out of `announcementId` to every user with a push token in
 * the database at `sqlitePath`, in batches of `batchSize` (the split's) and requests of 100.
 */
export function measureLedgerFloor(sqlitePath: string, announcementId: string, batchSize: number): LedgerFloor {
  const db = new DatabaseSync(sqlitePath);
  try {
    // As the app's connection (`sqlite-database.ts`).
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    const devices = db.prepare('SELECT userId, token FROM PushTokens ORDER BY userId').all() as { userId: string; token: string }[];
    const claim = db.prepare(
      `INSERT INTO NotificationDeliveries (announcementId, userId, channel, result, attempts, providerCode, providerMessageId, claimedUntil, createdAt, updatedAt)
       VALUES (?, ?, 'push', 'pending', 1, NULL, NULL, ?, ?, ?)`,
    );
    const ticket = db.prepare('INSERT INTO PushTickets (ticketId, token, userId, announcementId, sentAt) VALUES (?, ?, ?, ?, ?)');
    const result = db.prepare(
      `UPDATE NotificationDeliveries SET result = 'success', providerCode = NULL, providerMessageId = ?, claimedUntil = NULL, updatedAt = ?
       WHERE announcementId = ? AND userId = ? AND channel = 'push' AND result = 'pending'`,
    );
    let transactions = 0;
    let rowWrites = 0;
    const inTransaction = (work: () => void): void => {
      db.exec('BEGIN IMMEDIATE');
      work();
      db.exec('COMMIT');
      transactions += 1;
    };
    const started = performance.now();
    for (let start = 0; start < devices.length; start += batchSize) {
      const batch = devices.slice(start, start + batchSize);
      const now = new Date().toISOString();
      const leaseUntil = new Date(Date.now() + 60_000).toISOString();
      inTransaction(() => {
        for (const { userId } of batch) claim.run(announcementId, userId, leaseUntil, now, now);
      });
      rowWrites += batch.length;
      for (let first = 0; first < batch.length; first += PUSH_BATCH_LIMIT) {
        const request = batch.slice(first, first + PUSH_BATCH_LIMIT);
        const at = new Date().toISOString();
        inTransaction(() => {
          for (const [index, { userId, token }] of request.entries()) {
            const ticketId = `ledger-floor-${start + first + index}`;
            ticket.run(ticketId, token, userId, announcementId, at);
            result.run(ticketId, at, announcementId, userId);
          }
        });
        rowWrites += request.length * 2;
      }
    }
    return { ms: performance.now() - started, transactions, rowWrites };
  } finally {
    db.close();
  }
}
