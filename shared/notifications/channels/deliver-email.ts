import type { DeliveryContext } from '../engine/delivery-context';
import type { DeliveryKey } from '../ledger/delivery-ledger';
import { reportOutcomeUnknown, reportRetry, type DeliveryFacts } from '../engine/delivery-report';
import { markEmailHardBounce } from './email-hard-bounces';
import { OPERATION_NOT_FOUND } from '../providers/acs-email-operation';
import { REPEATABILITY_EXPIRED, type DeliveryOutcome, type EmailMessage } from '../../ports/delivery';
import type { Recipient } from '../engine/recipients';
import { repeatabilityRequestId, restartSendStart, type SendStart } from '../ledger/send-repeatability';

/**
 * One recipient's e-mail, its ledger row held by the caller: send (the provider retries transient
 * failures with the same repeatable request, the row's own, also after a restart) and record
 * `accepted` at once; the delivery report settles it later. A hard bounce marks the address so it
 * is never tried again. A row first sent too long ago for ACS to recognise a resend is not sent
 * blindly: its operation (whose id the row chose) says what became of it.
 */
export async function deliverEmail(ctx: DeliveryContext, recipient: Pick<Recipient, 'userId' | 'email'>): Promise<void> {
  const email = recipient.email;
  if (email === null) return;
  // Stopping: nothing new is sent; the batch gives the row back (it is still held).
  if (ctx.stopping) return;
  const key = ctx.key(recipient.userId, 'email');
  const facts = ctx.facts(recipient.userId, 'email');
  const start = await ctx.startSend(key);
  if (!start) {
    ctx.settledElsewhere(key);
    return;
  }
  const { title, body } = ctx.announcement;
  const announcementId = ctx.announcementId;
  const message: OperationEmail = { to: email, subject: title, text: body, ...(announcementId === undefined ? {} : { announcementId }), operationId: ctx.emailOperationId(key) };
  if (start.kind === 'expired') {
    await outcomeUnknown(ctx, key, facts, message);
    return;
  }
  if (ctx.stopping) {
    await ctx.forgetStart(key, start);
    return;
  }
  await send(ctx, key, facts, message, start);
}

/** An e-mail under the operation id its row chose. */
type OperationEmail = EmailMessage & { operationId: string };

async function send(ctx: DeliveryContext, key: DeliveryKey, facts: DeliveryFacts, message: OperationEmail, start: SendStart): Promise<void> {
  const observer = { tries: 0, onRetry: (code: string, failedTries: number) => reportRetry(ctx.deps, facts, code, failedTries) };
  const outcome = await ctx.deps.providers.email.send({ ...message, repeatability: start.repeatability }, observer);
  if (outcome.result === 'provider_error' && outcome.code === REPEATABILITY_EXPIRED) {
    await outcomeUnknown(ctx, key, facts, message);
    return;
  }
  const tries = Math.max(1, observer.tries);
  if (outcome.result === 'hard_bounce') await record(ctx, key, facts, message.to, outcome, tries);
  else ctx.recordSendAnswerSoon(key, outcome, facts, tries);
}

async function record(ctx: DeliveryContext, key: DeliveryKey, facts: DeliveryFacts, email: string, outcome: DeliveryOutcome, tries: number): Promise<void> {
  if (outcome.result === 'hard_bounce') {
    await markEmailHardBounce(ctx.db, email, outcome.code, ctx.now().toISOString());
    await ctx.finish(key, { result: 'hard_bounce', providerCode: outcome.code }, facts, tries);
    return;
  }
  await ctx.recordSendAnswer(key, outcome, facts, tries);
}

/**
 * The row's e-mail went to ACS too long ago for a resend to be recognised (a crash between the
 * send and its record, and a restart more than minutes later): its operation says what became of
 * it. Running or ended: recorded as such, nothing sent. Not found: ACS never took it, so it is sent
 * now as a first send. The question failing: the row stays owed, asked again on redelivery.
 */
async function outcomeUnknown(ctx: DeliveryContext, key: DeliveryKey, facts: DeliveryFacts, message: OperationEmail): Promise<void> {
  const lookup = ctx.deps.providers.email.operationOutcome;
  // A provider without operations (the development outbox) cannot say; it sends again.
  const state = lookup ? await lookup(message.operationId) : { state: 'unknown' as const, code: OPERATION_NOT_FOUND };
  switch (state.state) {
    case 'running':
      reportOutcomeUnknown(ctx.deps, facts, 'operation_read');
      await ctx.finish(key, { result: 'accepted', providerMessageId: message.operationId }, facts, 0);
      return;
    case 'ended':
      reportOutcomeUnknown(ctx.deps, facts, 'operation_read');
      await record(ctx, key, facts, message.to, state.outcome, 0);
      return;
    case 'unknown': {
      if (state.code !== OPERATION_NOT_FOUND) {
        await ctx.postpone(key, state.code, facts, 0);
        return;
      }
      reportOutcomeUnknown(ctx.deps, facts, 'sent_again');
      const now = ctx.now();
      await restartSendStart(ctx.db, key, now.toISOString(), ctx.ledger);
      await send(ctx, key, facts, message, { kind: 'first', repeatability: { requestId: repeatabilityRequestId(key), firstSent: now } });
    }
  }
}
