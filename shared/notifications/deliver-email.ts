import type { DeliveryContext } from './delivery-context';
import { reportRetry } from './delivery-report';
import { markEmailHardBounce } from './email-hard-bounces';
import { emailOperationId } from './email-operation-id';
import type { Recipient } from './recipients';

/**
 * One recipient's e-mail, its ledger row held by the caller: send (the provider retries transient
 * failures with the same repeatable request) and record `accepted` at once; the delivery report
 * settles it later. A hard bounce marks the address so it is never tried again.
 */
export async function deliverEmail(ctx: DeliveryContext, recipient: Recipient): Promise<void> {
  const email = recipient.email;
  if (email === null) return;
  // Stopping: nothing new is sent; the batch gives the row back (it is still held).
  if (ctx.stopping) return;
  const key = ctx.key(recipient.userId, 'email');
  const facts = { announcementId: ctx.announcement.id, recipientUserId: recipient.userId, channel: 'email' as const };
  const { title, body } = ctx.announcement;
  const message = { to: email, subject: title, text: body, announcementId: ctx.announcement.id, operationId: emailOperationId(key) };
  const observer = { tries: 0, onRetry: (code: string, failedTries: number) => reportRetry(ctx.deps, facts, code, failedTries) };
  const outcome = await ctx.deps.providers.email.send(message, observer);
  const tries = Math.max(1, observer.tries);
  switch (outcome.result) {
    case 'accepted':
    case 'success':
      await ctx.finish(key, { result: outcome.result, providerMessageId: outcome.providerMessageId }, facts, tries);
      return;
    case 'hard_bounce':
      await markEmailHardBounce(ctx.db, email, outcome.code, ctx.now().toISOString());
      await ctx.finish(key, { result: 'hard_bounce', providerCode: outcome.code }, facts, tries);
      return;
    case 'provider_error':
      if (outcome.transient) {
        await ctx.postpone(key, outcome.code, facts, tries);
        return;
      }
      await ctx.finish(key, { result: 'provider_error', providerCode: outcome.code }, facts, tries);
      return;
    case 'stale_token':
      // Not an e-mail answer: an adapter bug, recorded as a provider error.
      await ctx.finish(key, { result: 'provider_error', providerCode: outcome.code }, facts, tries);
  }
}
