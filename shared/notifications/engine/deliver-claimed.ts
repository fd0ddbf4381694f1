import type { DeliveryKey } from '../ledger/delivery-ledger';
import { startLeaseHeartbeat, type LeaseHeartbeat } from '../ledger/lease-heartbeat';
import type { DeliveryContext } from './delivery-context';

/**
 * One invocation's deliveries, whatever their subject (an announcement's batch, an account notice):
 * claims the rows of `planned` in one transaction, renews their leases while the sends run (leases
 * are short, so a crashed holder's rows come free within a minute; a long invocation keeps its
 * own), writes every result, and gives back what it still holds when a send or a write failed or
 * the instance is stopping, so the redelivered message claims those rows at once.
 * @param send starts the channels' sends of the rows this invocation now holds.
 * @param onLeaseError told of a failed lease renewal (a log line), never thrown.
 * @throws the first failure of a send or of the results' writes, once the rows are given back.
 */
export async function deliverClaimed(
  ctx: DeliveryContext,
  planned: readonly DeliveryKey[],
  send: (held: DeliveryKey[]) => Promise<void>[],
  onLeaseError: (error: unknown) => void,
): Promise<void> {
  let heartbeat: LeaseHeartbeat | undefined;
  try {
    const held = await ctx.claimAll(planned);
    heartbeat = startLeaseHeartbeat(ctx.db, ctx.deps.clock, ctx.heldLeases(), onLeaseError);
    const failure = (await Promise.allSettled(send(held))).find((settled) => settled.status === 'rejected');
    await ctx.flush();
    if (failure) throw failure.reason;
    // Rows skipped because the instance is stopping are still held: give them back now.
    if (ctx.stopping) await ctx.releaseAll();
  } catch (error) {
    await ctx.flush().catch(() => undefined);
    await ctx.releaseAll();
    throw error;
  } finally {
    // Stopped last: a renewal racing a release cannot take the row back, it only renews rows still
    // under the lease this invocation set, and a released row's lease has ended.
    await heartbeat?.stop();
  }
}
