import type { Database, SqlExecutor } from '../../db/database';
import type { DatabaseProvider } from '../../db/lazy-database';
import { DependencyUnavailableError } from '../../errors/dependency-unavailable';
import type { Logger } from '../../logging/logger';
import type { Clock } from '../../ports/clock';
import type { Random } from '../../ports/random';
import type { Channel, DeliveryOutcome, DeliveryProviders } from '../../ports/delivery';

/**
 * The development providers of all three channels: each delivery becomes a `NotificationOutbox`
 * row (recipient, title, text: what a developer needs to see the flow work) and an info line
 * `outbox delivery` with the channel and the announcement id only. The table holds addresses,
 * so the outbox is for development and tests only; `createDeliveryProviders` never builds it in
 * production. Every delivery succeeds, with the row id as `providerMessageId`.
 */

export interface OutboxProviderOptions {
  database: Pick<DatabaseProvider, 'get'>;
  logger: Logger;
  clock: Clock;
  random: Random;
}

/** One recorded delivery, as a developer reads it back. */
export interface OutboxDelivery {
  id: string;
  channel: Channel;
  announcementId: string | null;
  recipient: string;
  title: string | null;
  messageText: string;
  createdAt: string;
}

interface OutboxRow {
  channel: Channel;
  announcementId: string | undefined;
  recipient: string;
  title: string | null;
  messageText: string;
}

const INSERT_SQL = `
  INSERT INTO NotificationOutbox (id, channel, announcementId, recipient, title, messageText, createdAt)
  VALUES (@id, @channel, @announcementId, @recipient, @title, @messageText, @createdAt)`;

/** Creates the outbox providers of the three channels. */
export function createOutboxProviders(options: OutboxProviderOptions): DeliveryProviders {
  const record = async (rows: readonly OutboxRow[]): Promise<DeliveryOutcome[]> => {
    let db: Database;
    try {
      db = await options.database.get();
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      return rows.map(() => ({ result: 'provider_error', code: 'database_unavailable', transient: true }));
    }
    const createdAt = options.clock.now().toISOString();
    const ids = rows.map(() => options.random.uuid());
    await db.transaction(async (tx) => {
      for (const [index, row] of rows.entries()) {
        await tx.execute(INSERT_SQL, {
          id: ids[index] ?? null,
          channel: row.channel,
          announcementId: row.announcementId ?? null,
          recipient: row.recipient,
          title: row.title,
          messageText: row.messageText,
          createdAt,
        });
      }
    });
    for (const row of rows) {
      options.logger.info({ channel: row.channel, announcementId: row.announcementId ?? null }, 'outbox delivery');
    }
    return ids.map((id) => ({ result: 'success', providerMessageId: id }));
  };

  return {
    push: {
      async send(messages) {
        if (messages.length === 0) return [];
        return record(
          messages.map((message) => ({
            channel: 'push',
            announcementId: 'announcementId' in message.data ? message.data.announcementId : undefined,
            recipient: message.to,
            title: message.title,
            messageText: message.body,
          })),
        );
      },
    },
    // SMS and e-mail are `accepted`, as ACS answers: a delivery report posted to the local host
    // (docs/notifications.md, "Seeing a fan-out locally") then settles them like in production.
    sms: {
      async send(message) {
        const [outcome] = await record([
          { channel: 'sms', announcementId: message.announcementId, recipient: message.to, title: null, messageText: message.text },
        ]);
        return outcome?.result === 'success' ? { result: 'accepted', providerMessageId: outcome.providerMessageId } : (outcome as DeliveryOutcome);
      },
    },
    email: {
      async send(message) {
        const [outcome] = await record([
          {
            channel: 'email',
            announcementId: message.announcementId,
            recipient: message.to,
            title: message.subject,
            messageText: message.text,
          },
        ]);
        return outcome?.result === 'success'
          ? { result: 'accepted', providerMessageId: message.operationId ?? outcome.providerMessageId }
          : (outcome as DeliveryOutcome);
      },
    },
  };
}

/**
 * The outbox's rows, oldest first (development tools and tests).
 * @param filter only the rows of one announcement and/or channel.
 */
export async function listOutboxDeliveries(
  db: SqlExecutor,
  filter: { announcementId?: string; channel?: Channel } = {},
): Promise<OutboxDelivery[]> {
  return db.query<OutboxDelivery>(
    `SELECT id, channel, announcementId, recipient, title, messageText, createdAt
     FROM NotificationOutbox
     WHERE (@announcementId IS NULL OR announcementId = @announcementId)
       AND (@channel IS NULL OR channel = @channel)
     ORDER BY createdAt, id`,
    { announcementId: filter.announcementId ?? null, channel: filter.channel ?? null },
  );
}
