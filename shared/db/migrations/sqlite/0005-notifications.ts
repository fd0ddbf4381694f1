import type { SqlExecutor } from '../../database';

/**
 * Notification settings and the fan-out's bookkeeping (contract section 10). Addresses, phone
 * numbers and push tokens are personal data: they live here and in Users only, never in a log.
 * - PushTokens: one row per device; a token belongs to one user (re-registering moves it).
 * - NotificationPreferences: a user's channel choices; no row means the defaults (all on).
 * - SmsOptOuts: numbers the SMS provider reported as opted out (a STOP reply), keyed by the number
 *   because the opt-out belongs to the phone, not to the account that happens to list it.
 * - EmailHardBounces: addresses that hard-bounced; never sent to again.
 * - NotificationDeliveries: the delivery ledger, one row per announcement × user × channel, so a
 *   redelivered queue message never sends twice. `claimedUntil` is the lease of the invocation
 *   sending a pending row.
 * - SmsMonthlySpend: the SMS spend guard's counter per UTC month, in millionths of a dollar.
 * - PushTickets: Expo tickets whose receipts are still to be read (a receipt may report the device
 *   unregistered only later); deleted once read.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE PushTokens (
      token TEXT NOT NULL PRIMARY KEY,
      userId TEXT NOT NULL REFERENCES Users (id),
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_PushTokens_userId_updatedAt ON PushTokens (userId, updatedAt)');
  await tx.execute(`
    CREATE TABLE NotificationPreferences (
      userId TEXT NOT NULL PRIMARY KEY REFERENCES Users (id),
      push INTEGER NOT NULL CHECK (push IN (0, 1)),
      sms INTEGER NOT NULL CHECK (sms IN (0, 1)),
      email INTEGER NOT NULL CHECK (email IN (0, 1)),
      updatedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute(`
    CREATE TABLE SmsOptOuts (
      phone TEXT NOT NULL PRIMARY KEY,
      optedOutAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute(`
    CREATE TABLE EmailHardBounces (
      email TEXT NOT NULL PRIMARY KEY,
      providerCode TEXT NOT NULL,
      bouncedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute(`
    CREATE TABLE NotificationDeliveries (
      announcementId TEXT NOT NULL REFERENCES Announcements (id),
      userId TEXT NOT NULL REFERENCES Users (id),
      channel TEXT NOT NULL CHECK (channel IN ('push', 'sms', 'email')),
      result TEXT NOT NULL CHECK (result IN ('pending', 'success', 'provider_error', 'hard_bounce', 'stale_token', 'opted_out', 'budget_exceeded')),
      attempts INTEGER NOT NULL CHECK (attempts >= 1),
      providerCode TEXT NULL,
      providerMessageId TEXT NULL,
      claimedUntil TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      PRIMARY KEY (announcementId, userId, channel)
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_NotificationDeliveries_announcementId_result ON NotificationDeliveries (announcementId, result)');
  await tx.execute(`
    CREATE TABLE SmsMonthlySpend (
      month TEXT NOT NULL PRIMARY KEY,
      spentMicroUsd INTEGER NOT NULL CHECK (spentMicroUsd >= 0),
      messages INTEGER NOT NULL CHECK (messages >= 0),
      warnedAt TEXT NULL,
      capReachedAt TEXT NULL,
      updatedAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute(`
    CREATE TABLE PushTickets (
      ticketId TEXT NOT NULL PRIMARY KEY,
      token TEXT NOT NULL,
      userId TEXT NOT NULL REFERENCES Users (id),
      announcementId TEXT NOT NULL REFERENCES Announcements (id),
      sentAt TEXT NOT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_PushTickets_sentAt ON PushTickets (sentAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE PushTickets');
  await tx.execute('DROP TABLE SmsMonthlySpend');
  await tx.execute('DROP TABLE NotificationDeliveries');
  await tx.execute('DROP TABLE EmailHardBounces');
  await tx.execute('DROP TABLE SmsOptOuts');
  await tx.execute('DROP TABLE NotificationPreferences');
  await tx.execute('DROP TABLE PushTokens');
}
