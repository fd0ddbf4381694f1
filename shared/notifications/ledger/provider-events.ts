import type { Database, SqlExecutor } from '../../db/database';
import { UniqueViolationError } from '../../db/database-errors';

/** Provider event ids are kept well past Event Grid's retry window of 24 hours. */
export const PROVIDER_EVENTS_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Records that a provider's event (an Event Grid delivery report, an inbound SMS) is being applied,
 * in the transaction that applies it: false when its id was applied before. Event Grid delivers at
 * least once, so the id's primary key, not a read before the write, is what makes a redelivery a no-op
 * under concurrent deliveries.
 */
export async function recordProviderEvent(
  tx: SqlExecutor,
  event: { id: string; type: string },
  receivedAt: string,
): Promise<boolean> {
  try {
    await tx.execute('INSERT INTO ProviderEvents (eventId, eventType, receivedAt) VALUES (@eventId, @eventType, @receivedAt)', {
      eventId: event.id,
      eventType: event.type.slice(0, 128),
      receivedAt,
    });
    return true;
  } catch (error) {
    if (error instanceof UniqueViolationError) return false;
    throw error;
  }
}

/** Forgets the ids of events received longer than `PROVIDER_EVENTS_KEPT_MS` before `now`; how many went. */
export async function forgetProviderEvents(db: Database, now: Date): Promise<number> {
  return db.execute('DELETE FROM ProviderEvents WHERE receivedAt < @before', {
    before: new Date(now.getTime() - PROVIDER_EVENTS_KEPT_MS).toISOString(),
  });
}
