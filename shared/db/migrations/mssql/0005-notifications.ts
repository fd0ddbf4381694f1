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
 * Text keys are nvarchar like the parameters the driver sends, so lookups seek without conversion.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.PushTokens (
      token nvarchar(256) COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT PK_PushTokens PRIMARY KEY,
      userId nvarchar(64) NOT NULL CONSTRAINT FK_PushTokens_user REFERENCES dbo.Users (id),
      createdAt datetime2(3) NOT NULL,
      updatedAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE INDEX IX_PushTokens_userId_updatedAt ON dbo.PushTokens (userId, updatedAt)');
  await tx.execute(`
    CREATE TABLE dbo.NotificationPreferences (
      userId nvarchar(64) NOT NULL CONSTRAINT PK_NotificationPreferences PRIMARY KEY
        CONSTRAINT FK_NotificationPreferences_user REFERENCES dbo.Users (id),
      push bit NOT NULL,
      sms bit NOT NULL,
      email bit NOT NULL,
      updatedAt datetime2(3) NOT NULL
    )`);
  await tx.execute(`
    CREATE TABLE dbo.SmsOptOuts (
      phone nvarchar(32) NOT NULL CONSTRAINT PK_SmsOptOuts PRIMARY KEY,
      optedOutAt datetime2(3) NOT NULL
    )`);
  await tx.execute(`
    CREATE TABLE dbo.EmailHardBounces (
      email nvarchar(320) NOT NULL CONSTRAINT PK_EmailHardBounces PRIMARY KEY,
      providerCode nvarchar(64) NOT NULL,
      bouncedAt datetime2(3) NOT NULL
    )`);
  await tx.execute(`
    CREATE TABLE dbo.NotificationDeliveries (
      announcementId nvarchar(64) NOT NULL CONSTRAINT FK_NotificationDeliveries_announcement REFERENCES dbo.Announcements (id),
      userId nvarchar(64) NOT NULL CONSTRAINT FK_NotificationDeliveries_user REFERENCES dbo.Users (id),
      channel nvarchar(8) NOT NULL CONSTRAINT CK_NotificationDeliveries_channel CHECK (channel IN (N'push', N'sms', N'email')),
      result nvarchar(32) NOT NULL CONSTRAINT CK_NotificationDeliveries_result
        CHECK (result IN (N'pending', N'success', N'provider_error', N'hard_bounce', N'stale_token', N'opted_out', N'budget_exceeded')),
      attempts int NOT NULL CONSTRAINT CK_NotificationDeliveries_attempts CHECK (attempts >= 1),
      providerCode nvarchar(64) NULL,
      providerMessageId nvarchar(128) NULL,
      claimedUntil datetime2(3) NULL,
      createdAt datetime2(3) NOT NULL,
      updatedAt datetime2(3) NOT NULL,
      CONSTRAINT PK_NotificationDeliveries PRIMARY KEY (announcementId, userId, channel)
    )`);
  await tx.execute(
    'CREATE INDEX IX_NotificationDeliveries_announcementId_result ON dbo.NotificationDeliveries (announcementId, result)',
  );
  await tx.execute(`
    CREATE TABLE dbo.SmsMonthlySpend (
      month nvarchar(7) NOT NULL CONSTRAINT PK_SmsMonthlySpend PRIMARY KEY,
      spentMicroUsd bigint NOT NULL CONSTRAINT CK_SmsMonthlySpend_spent CHECK (spentMicroUsd >= 0),
      messages int NOT NULL CONSTRAINT CK_SmsMonthlySpend_messages CHECK (messages >= 0),
      warnedAt datetime2(3) NULL,
      capReachedAt datetime2(3) NULL,
      updatedAt datetime2(3) NOT NULL
    )`);
  await tx.execute(`
    CREATE TABLE dbo.PushTickets (
      ticketId nvarchar(128) NOT NULL CONSTRAINT PK_PushTickets PRIMARY KEY,
      token nvarchar(256) COLLATE Latin1_General_100_BIN2 NOT NULL,
      userId nvarchar(64) NOT NULL CONSTRAINT FK_PushTickets_user REFERENCES dbo.Users (id),
      announcementId nvarchar(64) NOT NULL CONSTRAINT FK_PushTickets_announcement REFERENCES dbo.Announcements (id),
      sentAt datetime2(3) NOT NULL
    )`);
  await tx.execute('CREATE INDEX IX_PushTickets_sentAt ON dbo.PushTickets (sentAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.PushTickets');
  await tx.execute('DROP TABLE dbo.SmsMonthlySpend');
  await tx.execute('DROP TABLE dbo.NotificationDeliveries');
  await tx.execute('DROP TABLE dbo.EmailHardBounces');
  await tx.execute('DROP TABLE dbo.SmsOptOuts');
  await tx.execute('DROP TABLE dbo.NotificationPreferences');
  await tx.execute('DROP TABLE dbo.PushTokens');
}
