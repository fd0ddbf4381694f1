import { SIGN_IN_THROTTLE_POLICY } from '../../throttles/sign-in-throttle';
import { errorCodeOf } from '../../background/background-handler';
import { findChildById } from '../../children/child-account-store';
import { ConcurrencyLimit } from '../../concurrency/concurrency-limit';
import { errorFields } from '../../logging/logger';
import { findUserById } from '../../users/user-store';
import { deliverEmail } from '../channels/deliver-email';
import { deliverPush } from '../channels/deliver-push';
import { isEmailHardBounced } from '../channels/email-hard-bounces';
import { deliverClaimed } from '../engine/deliver-claimed';
import { DeliveryContext, type BatchTally } from '../engine/delivery-context';
import type { DeliverySubject } from '../engine/delivery-subject';
import type { FanoutDeps } from '../engine/fanout-deps';
import { FanoutError } from '../engine/fanout-error';
import { NOTICE_LEDGER } from '../ledger/leased-rows';
import { POISONED_PROVIDER_CODE } from '../ledger/poisoned-deliveries';
import { pushTokensOfUser } from '../../users/push-tokens';
import { findNoticeById, markNoticeOwed, type AccountNotice } from '../../messages/account-notice-store';
import { failPendingNoticeDeliveries, type NoticeChannel, type NoticeDeliveryResult } from '../ledger/notice-deliveries';
import type { NoticeMessage } from '../../messages/notice-message';
import { noticeText } from './notice-text';

/**
 * What became of a notice on each channel it could use; `skipped` names why nothing was sent;
 * `owedAgain`: the message's last try left deliveries owed, and the notice went back to the outbox
 * (nothing in `channels`: the ledger has each channel's state).
 */
export interface NoticeResult {
  noticeId: string;
  channels: Partial<Record<NoticeChannel, NoticeDeliveryResult | 'done'>>;
  skipped?: 'subject_gone' | 'no_longer_locked' | 'recipient_inactive';
  owedAgain?: true;
}

/**
 * How long after it was recorded a notice is still tried. A message's tries span about a minute
 * (5, 10 s apart): a safety notice outlives an outage of its providers by going back to the
 * outbox at each last try, until it is this old; then its owed deliveries are given up.
 */
export const NOTICE_GIVE_UP_MS = 24 * 60 * 60 * 1000;

/** A channel's delivery: a final result, `done` (an earlier try finished it) or still owed. */
type ChannelOutcome = NoticeDeliveryResult | 'done' | 'owed';

/**
 * Handles an account notice's message of the `notification-fanout` queue: reads the notice, the
 * child and the parent, composes the text (the child's name and what to do) and delivers it to the
 * parent by push (every device) and e-mail through the delivery engine, as an announcement's batch
 * is delivered: each channel's row of the notice's ledger claimed first, so a redelivered message
 * never sends twice, the e-mail under its row's repeatable request and first-sent mark, every result
 * written by the engine's one writer. A safety notice is sent whatever the
 * parent's announcement preferences say; a hard-bounced address is never tried. Nothing is sent
 * when the lock it reports is gone (a new PIN was set) or the child was deleted.
 * Deliveries still owed (a transient provider error, a row held by another invocation) throw
 * `FanoutError`, so the queue redelivers. When the last try fails too, the notice goes back to the
 * outbox (`enqueuedAt` NULL, its owed rows still `pending`) and the message ends without an error:
 * the queue-depth timer's catch-up enqueues it again within minutes, and so on for
 * `NOTICE_GIVE_UP_MS`. A notice older than that, or one that cannot go back (no such notice; the
 * database failing too), is poisoned: its owed rows become `failed` / `poisoned` (an error line)
 * and the message goes to the poison queue, from which `npm run redrive-poison` sends it again.
 * Log lines carry ids, channels and results only: never the name, an address or a token (each
 * channel's `delivery attempt` line names the notice by `noticeId`).
 */
export async function handleNoticeMessage(message: NoticeMessage, deps: FanoutDeps, attempt: { lastAttempt: boolean }): Promise<NoticeResult> {
  const { id } = message.notice;
  try {
    return await deliverNotice(id, deps);
  } catch (error) {
    if (!attempt.lastAttempt) throw error;
    let owedAgain: NoticeResult | undefined;
    try {
      owedAgain = await afterLastTry(id, deps, error);
    } catch (lastError) {
      // The database failing too: the message is poisoned with its rows still `pending`, which a
      // re-drive counts and sends as well.
      deps.logger.warn({ noticeId: id, errorCode: errorCodeOf(lastError) }, 'account notice poisoned: it could be neither put back nor marked');
    }
    if (owedAgain) return owedAgain;
    throw error;
  }
}

/**
 * The last try of a notice's message failed: a notice younger than `NOTICE_GIVE_UP_MS` goes back
 * to the outbox; an older one (or an unknown id) has its owed deliveries failed as poisoned.
 * @returns the result to end the message with, or undefined to let it go to the poison queue.
 */
async function afterLastTry(id: string, deps: FanoutDeps, failure: unknown): Promise<NoticeResult | undefined> {
  const failureCode = errorCodeOf(failure);
  const db = await deps.database.get();
  const notice = await findNoticeById(db, id);
  const now = deps.clock.now();
  const ageMs = notice ? now.getTime() - Date.parse(notice.createdAt) : Infinity;
  if (notice && ageMs < NOTICE_GIVE_UP_MS && (await markNoticeOwed(db, id)) === 1) {
    deps.logger.warn(
      { noticeId: id, kind: notice.kind, errorCode: failureCode, ageMinutes: Math.floor(ageMs / 60_000) },
      'account notice still owed after its last try: the catch-up enqueues it again',
    );
    return { noticeId: id, channels: {}, owedAgain: true };
  }
  const failed = await failPendingNoticeDeliveries(db, id, POISONED_PROVIDER_CODE, now.toISOString());
  deps.logger.error(
    {
      noticeId: id,
      deliveriesFailed: failed,
      errorCode: 'notice_poisoned',
      failureCode,
      ...(notice ? { ageMinutes: Math.floor(ageMs / 60_000) } : {}),
      ...errorFields(failure),
    },
    'account notice poisoned',
  );
  return undefined;
}

async function deliverNotice(noticeId: string, deps: FanoutDeps): Promise<NoticeResult> {
  const db = await deps.database.get();
  const notice = await findNoticeById(db, noticeId);
  if (!notice) throw new FanoutError('notice_not_found', 'No account notice has the message\'s id.');
  const facts = { noticeId, kind: notice.kind, recipientUserId: notice.recipientUserId };
  const [child, parent] = await Promise.all([findChildById(db, notice.subjectUserId), findUserById(db, notice.recipientUserId)]);
  const skipped: NoticeResult['skipped'] =
    !child || child.deletedAt !== null
      ? 'subject_gone'
      : child.lockedAt === null || new Date(child.lockedAt).toISOString() !== notice.eventAt
        ? 'no_longer_locked'
        : !parent || parent.status === 'disabled'
          ? 'recipient_inactive'
          : undefined;
  if (skipped || !child || !parent) {
    deps.logger.info({ ...facts, reason: skipped }, 'account notice not sent');
    return { noticeId, channels: {}, ...(skipped ? { skipped } : {}) };
  }
  const text = noticeText({
    kind: notice.kind,
    childName: child.username,
    secretKind: child.secretKind,
    failures: SIGN_IN_THROTTLE_POLICY.lockAfterFailures,
  });
  const recipient = {
    userId: parent.id,
    pushTokens: await pushTokensOfUser(db, parent.id),
    // A hard-bounced address is never tried.
    email: parent.email !== null && !(await isEmailHardBounced(db, parent.email)) ? parent.email : null,
  };
  const channels = noticeChannelsOf(recipient);
  // A stopping instance starts nothing: the message goes back at once, for another instance.
  if (channels.length > 0 && deps.shutdown.stopping.aborted) throw new FanoutError('delivery_incomplete', 'The instance is shutting down; the account notice is still owed.');
  const ctx = new DeliveryContext(deps, db, new ConcurrencyLimit(deps.concurrency), { id: notice.id, ...text }, noticeSubject(notice));
  const planned = channels.map((channel) => ctx.key(parent.id, channel));
  // Both channels at once: a slow e-mail provider does not hold the push back. Tracked: the
  // shutdown waits for the rows to be given back before the database closes.
  await deps.shutdown.track(() =>
    deliverClaimed(
      ctx,
      planned,
      (held) => held.map((key) => (key.channel === 'push' ? deliverPush(ctx, [recipient]) : ctx.limit.run(() => deliverEmail(ctx, recipient)))),
      (error) => deps.logger.warn({ noticeId, errorCode: 'lease_renewal_failed', ...errorFields(error) }, 'delivery leases not renewed'),
    ),
  );
  if (ctx.resumedSends.email > 0) {
    deps.logger.warn({ noticeId, channel: 'email', resumedSends: ctx.resumedSends.email }, 'account notice resent an interrupted send under its first request');
  }
  const outcomes = Object.fromEntries(channels.map((channel) => [channel, outcomeOf(ctx.tally[channel])]));
  const owed = channels.filter((channel) => outcomes[channel] === 'owed');
  if (owed.length > 0) throw new FanoutError('delivery_incomplete', `The account notice is still owed on ${owed.join(', ')}.`);
  const delivered = outcomes as NoticeResult['channels'];
  deps.logger.info({ ...facts, channels: delivered }, 'account notice delivered');
  return { noticeId, channels: delivered };
}

/** The channels a notice can reach its recipient on: every device by push, an address by e-mail. */
function noticeChannelsOf(recipient: { pushTokens: readonly string[]; email: string | null }): NoticeChannel[] {
  return [...(recipient.pushTokens.length > 0 ? (['push'] as const) : []), ...(recipient.email !== null ? (['email'] as const) : [])];
}

/**
 * The engine's subject of a notice: its rows are the notices' ledger's, its lines name it by
 * `noticeId`, its push carries what the app opens (the notice's kind and the child), and its
 * e-mails' operation ids are derived from `notice:<id>`, as they always were.
 */
function noticeSubject(notice: AccountNotice): DeliverySubject {
  return {
    ledger: NOTICE_LEDGER,
    facts: { noticeId: notice.id },
    pushData: { notice: notice.kind, childId: notice.subjectUserId },
    operationIdSpace: 'notice:',
  };
}

/** One channel's row after the engine ran: owed (given back, or held elsewhere), its result, or `done` before. */
function outcomeOf(counts: BatchTally[NoticeChannel]): ChannelOutcome {
  if ((counts.pending ?? 0) + (counts.busy ?? 0) > 0) return 'owed';
  const result = Object.keys(counts).find((name) => name !== 'outcome_unknown');
  // Nothing counted: the claim found the row final (an earlier try delivered it).
  return result === undefined ? 'done' : (result as NoticeDeliveryResult);
}
