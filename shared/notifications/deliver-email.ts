import type { DeliveryContext } from './delivery-context';
import { reportRetry } from './delivery-report';
import { markEmailHardBounce } from './email-hard-bounces';
import type { Recipient } from './recipients';
import { sendWithRetries } from './retry-transient';

/**
 * One recipient's e-mail, its ledger row held by the caller: send with retries; a hard bounce
 * marks the address so it is never tried again.
 */
export async function deliverEmail(ctx: DeliveryContext, recipient: Recipient): Promise<void> {
  const email = recipient.email;
  if (email === null) return;
  const key = ctx.key(recipient.userId, 'email');
  const facts = { announcementId: ctx.announcement.id, recipientUserId: recipient.userId, channel: 'email' as const };
  const { title, body } = ctx.announcement;
  const message = { to: email, subject: title, text: body, announcementId: ctx.announcement.id };
  const { outcome, tries } = await sendWithRetries(() => ctx.deps.providers.email.send(message), {
    policy: ctx.deps.retry,
    sleep: ctx.deps.sleep,
    onRetry: (failed, failedTries, delayMs) => reportRetry(ctx.deps, facts, failed, failedTries, delayMs),
  });
  const now = ctx.now().toISOString();
  switch (outcome.result) {
    case 'success':
      await ctx.finish(key, { result: 'success', providerMessageId: outcome.providerMessageId }, facts, tries);
      return;
    case 'hard_bounce':
      await markEmailHardBounce(ctx.db, email, outcome.code, now);
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
