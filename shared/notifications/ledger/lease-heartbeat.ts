import type { Database } from '../../db/database';
import type { Clock } from '../../ports/clock';
import { renewDeliveryLeases, type DeliveryKey } from './delivery-ledger';
import type { LeasedLedger } from './leased-rows';

/**
 * How long a claimed ledger row stays reserved for the invocation sending it, and how often that
 * invocation renews it. The lease is never longer than the queue message's own invisibility (10
 * minutes on the Functions host and the local host alike), and a crashed batch does not wait for
 * that: once the lease of rows nobody renewed is over, the recovery timer re-drives them
 * (`../fanout/redrive-stalled-batches.ts`, every 30 seconds), so families of a crashed batch wait one
 * lease and at most 30 seconds more, inside ACS's 5-minute repeatability window.
 */
export const DELIVERY_LEASE_MS = 60_000;
export const LEASE_RENEWAL_MS = 20_000;

/** The rows an invocation holds, and the lease it last set on them. */
export interface HeldLeases {
  announcementId: string;
  /** Keys still held (claimed, not finished or released). */
  keys(): readonly DeliveryKey[];
  heldUntil: string;
  /** The table of the rows (default: the announcements'). */
  ledger?: LeasedLedger;
}

export interface LeaseHeartbeat {
  /** Stops renewing (the batch is done, or failing and releasing its rows). */
  stop(): Promise<void>;
}

/**
 * Renews `held`'s leases every `LEASE_RENEWAL_MS` until stopped. A renewal that fails is retried at
 * the next beat; the rows are safe until their lease ends either way.
 * @param onError told of a failed renewal (a log line), never thrown.
 */
export function startLeaseHeartbeat(
  db: Database,
  clock: Clock,
  held: HeldLeases,
  onError: (error: unknown) => void,
  everyMs = LEASE_RENEWAL_MS,
): LeaseHeartbeat {
  let running: Promise<void> = Promise.resolve();
  const beat = (): void => {
    running = running.then(async () => {
      const keys = held.keys();
      if (keys.length === 0) return;
      const now = clock.now();
      const leaseUntil = new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString();
      try {
        await renewDeliveryLeases(db, db.dialect, held.announcementId, keys, held.heldUntil, leaseUntil, now.toISOString(), held.ledger);
        held.heldUntil = leaseUntil;
      } catch (error) {
        onError(error);
      }
    });
  };
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
