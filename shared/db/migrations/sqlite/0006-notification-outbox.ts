import type { SqlExecutor } from '../../database';

/**
 * The development outbox: where deliveries go when no provider is configured outside production,
 * so a developer can watch a fan-out happen (`SELECT * FROM NotificationOutbox`). It holds the
 * recipient's address or push token and the text, which is why only non-production environments
 * ever write it (the provider factory refuses the outbox in production) and nothing reads it into
 * logs. Rows are disposable.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE NotificationOutbox (
      id TEXT NOT NULL PRIMARY KEY,
      channel TEXT NOT NULL CHECK (channel IN ('push', 'sms', 'email')),
      announcementId TEXT NULL,
      recipient TEXT NOT NULL,
      title TEXT NULL,
      messageText TEXT NOT NULL,
      createdAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_NotificationOutbox_announcementId ON NotificationOutbox (announcementId, channel)');
  await tx.execute('CREATE INDEX IX_NotificationOutbox_createdAt ON NotificationOutbox (createdAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE NotificationOutbox');
}
