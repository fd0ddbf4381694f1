import { SIGN_IN_THROTTLE_POLICY } from '../../throttles/sign-in-throttle';
import { errorCodeOf } from '../../background/background-handler';
import { findChildById } from '../../children/child-account-store';
import type { Database } from '../../db/database';
import { errorFields } from '../../logging/logger';
import { findUserById } from '../../users/user-store';
import { isEmailHardBounced, markEmailHardBounce } from '../channels/email-hard-bounces';
import { emailOperationId } from '../ledger/email-operation-id';
import type { FanoutDeps } from '../engine/fanout-deps';
import { FanoutError, ProviderDeliveryError } from '../engine/fanout-error';
import { DELIVERY_LEASE_MS } from '../ledger/lease-heartbeat';
import type { DeliveryOutcome } from '../../ports/delivery';
import { POISONED_PROVIDER_CODE } from '../ledger/poisoned-deliveries';
import { pushTokensOfUser, removeStalePushToken } from '../../users/push-tokens';
import { findNoticeById, markNoticeOwed, type AccountNotice } from '../../messages/account-notice-store';
import {
  claimNoticeDelivery,
  failPendingNoticeDeliveries,
  finishNoticeDelivery,
  releaseNoticeDelivery,
  type NoticeChannel,
  type NoticeDeliveryResult,
} from '../ledger/notice-deliveries';
import type { NoticeMessage } from '../../messages/notice-message';
import { noticeText, type NoticeText } from './notice-text';

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
 * parent by push (every device, one request) and e-mail, each channel claimed in the notice's
 * ledger first, so a redelivered message never sends twice. A safety notice is sent whatever the
 * parent's announcement preferences say; a hard-bounced address is never tried. Nothing is sent
 * when the lock it reports is gone (a new PIN was set) or the child was deleted.
 * Deliveries still owed (a transient provider error, a row held by another invocation) throw
 * `FanoutError`, so the queue redelivers. When the last try fails too, the notice goes back to the
 * outbox (`enqueuedAt` NULL, its owed rows still `pending`) and the message ends without an error:
 * the queue-depth timer's catch-up enqueues it again within minutes, and so on for
 * `NOTICE_GIVE_UP_MS`. A notice older than that, or one that cannot go back (no such notice; the
 * database failing too), is poisoned: its owed rows become `failed` / `poisoned` (an error line)
 * and the message goes to the poison queue, from which `npm run redrive-poison` sends it again.
 * Log lines carry ids, channels and results only: never the name, an address or a token.
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
  const tokens = await pushTokensOfUser(db, parent.id);
  const email = parent.email !== null && !(await isEmailHardBounced(db, parent.email)) ? parent.email : null;
  const outcomes: Partial<Record<NoticeChannel, ChannelOutcome>> = {};
  // Both channels at once: a slow e-mail provider does not hold the push back.
  await Promise.all([
    tokens.length > 0 ? pushNotice(db, deps, notice, tokens, text).then((outcome) => (outcomes.push = outcome)) : undefined,
    email !== null ? emailNotice(db, deps, notice, email, text).then((outcome) => (outcomes.email = outcome)) : undefined,
  ]);
  for (const [channel, result] of Object.entries(outcomes)) {
    if (result === 'owed' || result === 'done') continue;
    deps.telemetry.trackEvent('notification.delivery', { channel, result });
  }
  const owed = Object.entries(outcomes).filter(([, result]) => result === 'owed').map(([channel]) => channel);
  if (owed.length > 0) throw new FanoutError('delivery_incomplete', `The account notice is still owed on ${owed.join(', ')}.`);
  const channels = outcomes as NoticeResult['channels'];
  deps.logger.info({ ...facts, channels }, 'account notice delivered');
  return { noticeId, channels };
}

/** Pushes the notice to every device of the parent in one request; delivered when any device took it. */
async function pushNotice(db: Database, deps: FanoutDeps, notice: AccountNotice, tokens: readonly string[], text: NoticeText): Promise<ChannelOutcome> {
  const key = { noticeId: notice.id, channel: 'push' as const };
  const claimed = await claim(db, deps, key);
  if (claimed !== 'claimed') return claimed;
  const sentAt = deps.clock.now().toISOString();
  let answers: DeliveryOutcome[];
  try {
    answers = await deps.providers.push.send(
      tokens.map((to) => ({ to, title: text.title, body: text.body, data: { notice: notice.kind, childId: notice.subjectUserId } })),
    );
  } catch (error) {
    await releaseNoticeDelivery(db, key, 'exception', deps.clock.now().toISOString());
    throw error;
  }
  for (const [index, outcome] of answers.entries()) {
    const token = tokens[index];
    if (outcome.result === 'stale_token' && token !== undefined && (await removeStalePushToken(db, token, sentAt))) {
      deps.logger.warn({ noticeId: notice.id, recipientUserId: notice.recipientUserId, channel: 'push', providerCode: outcome.code }, 'stale push token removed');
    }
  }
  const took = answers.find((outcome) => outcome.result === 'success' || outcome.result === 'accepted');
  if (took) return finish(db, deps, notice, 'push', { result: 'success', providerMessageId: 'providerMessageId' in took ? took.providerMessageId : undefined });
  const transient = answers.find((outcome) => outcome.result === 'provider_error' && outcome.transient);
  if (transient && transient.result === 'provider_error') return postpone(db, deps, notice, 'push', transient.code);
  const refused = answers.find((outcome) => outcome.result === 'provider_error');
  if (refused && refused.result === 'provider_error') return finish(db, deps, notice, 'push', { result: 'provider_error', providerCode: refused.code });
  return finish(db, deps, notice, 'push', { result: 'stale_token', providerCode: 'DeviceNotRegistered' });
}

/** E-mails the notice, with an operation id derived from the notice, so a resend is the same operation. */
async function emailNotice(db: Database, deps: FanoutDeps, notice: AccountNotice, to: string, text: NoticeText): Promise<ChannelOutcome> {
  const key = { noticeId: notice.id, channel: 'email' as const };
  const operationId = emailOperationId({ announcementId: `notice:${notice.id}`, userId: notice.recipientUserId });
  const claimed = await claim(db, deps, key, operationId);
  if (claimed !== 'claimed') return claimed;
  let outcome: DeliveryOutcome;
  try {
    outcome = await deps.providers.email.send({ to, subject: text.title, text: text.body, operationId }, { tries: 0 });
  } catch (error) {
    await releaseNoticeDelivery(db, key, 'exception', deps.clock.now().toISOString());
    throw error;
  }
  switch (outcome.result) {
    case 'accepted':
    case 'success':
      return finish(db, deps, notice, 'email', { result: outcome.result, providerMessageId: outcome.providerMessageId ?? operationId });
    case 'hard_bounce':
      await markEmailHardBounce(db, to, outcome.code, deps.clock.now().toISOString());
      return finish(db, deps, notice, 'email', { result: 'hard_bounce', providerCode: outcome.code });
    case 'provider_error':
      if (outcome.transient) return postpone(db, deps, notice, 'email', outcome.code);
      return finish(db, deps, notice, 'email', { result: 'provider_error', providerCode: outcome.code });
    case 'stale_token':
      return finish(db, deps, notice, 'email', { result: 'provider_error', providerCode: outcome.code });
  }
}

/** Claims the channel's row: `claimed` to send, `done` when an earlier try finished it, `owed` when another holds it. */
async function claim(
  db: Database,
  deps: FanoutDeps,
  key: { noticeId: string; channel: NoticeChannel },
  plannedMessageId?: string,
): Promise<'claimed' | 'done' | 'owed'> {
  if (deps.shutdown.stopping.aborted) return 'owed';
  const now = deps.clock.now();
  const claimed = await claimNoticeDelivery(db, key, now.toISOString(), new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString(), plannedMessageId);
  return claimed === 'busy' ? 'owed' : claimed;
}

async function finish(
  db: Database,
  deps: FanoutDeps,
  notice: AccountNotice,
  channel: NoticeChannel,
  outcome: { result: NoticeDeliveryResult; providerCode?: string | undefined; providerMessageId?: string | undefined },
): Promise<NoticeDeliveryResult> {
  await finishNoticeDelivery(db, { noticeId: notice.id, channel }, outcome, deps.clock.now().toISOString());
  const fields = {
    noticeId: notice.id,
    kind: notice.kind,
    recipientUserId: notice.recipientUserId,
    channel,
    result: outcome.result,
    ...(outcome.providerCode ? { providerCode: outcome.providerCode } : {}),
  };
  if (outcome.result === 'provider_error') {
    const error = new ProviderDeliveryError(channel, outcome.providerCode ?? 'unknown');
    deps.logger.error({ ...fields, errorCode: 'provider_error', ...errorFields(error) }, 'account notice delivery');
  } else if (outcome.result === 'success' || outcome.result === 'accepted') {
    deps.logger.info(fields, 'account notice delivery');
  } else {
    deps.logger.warn(fields, 'account notice delivery');
  }
  return outcome.result;
}

async function postpone(db: Database, deps: FanoutDeps, notice: AccountNotice, channel: NoticeChannel, providerCode: string): Promise<'owed'> {
  await releaseNoticeDelivery(db, { noticeId: notice.id, channel }, providerCode, deps.clock.now().toISOString());
  deps.logger.warn({ noticeId: notice.id, recipientUserId: notice.recipientUserId, channel, providerCode }, 'account notice delivery failed; the message will be retried');
  return 'owed';
}
