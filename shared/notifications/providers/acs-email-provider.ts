import { randomUUID } from 'node:crypto';
import type { AcsAccess } from '../../config';
import { acsFailure, type AcsPipelineSettings } from './acs-pipeline';
import { createAcsSendPipeline } from './acs-send-pipeline';
import type { DeliveryOutcome, EmailProvider } from '../../ports/delivery';
import { ACS_EMAIL_API_VERSION, errorCodeOf, failedOperation, jsonObjectOf, readEmailOperation } from './acs-email-operation';
import { SHUTDOWN_CODE } from './provider-http';

/**
 * E-mail through Azure Communication Services: the e-mail API's send (`POST /emails:send`, the API
 * version `@azure/communication-email` speaks) through the SDK's own pipeline pieces
 * (`acs-send-pipeline.ts`: its authentication policy, retries and per-try policy, as the status
 * read's, without the policies a send does not need).
 * The send ends when ACS has accepted the message (202, a long-running operation): its final
 * result arrives later as a delivery report (or, failing that, from the settle timer's one status
 * request, `operationOutcome`), so no concurrency slot waits for the operation. Not the SDK's
 * `EmailClient.beginSend`: it builds a long-running-operation poller and starts a status request
 * for every message, work a send that never waits for the operation threw away (a third of an
 * e-mail's CPU in the fan-out, bench/results.md).
 *
 * - The operation id is ours (`operationId`, chosen from the ledger row before the send), so the
 *   report finds its row even when it overtakes the send's answer.
 * - `Repeatability-Request-Id` / `Repeatability-First-Sent` (ACS's documented repeatable requests
 *   for the e-mail send API): the ledger row's pair (`EmailMessage.repeatability`), else one made
 *   for this send, set once on the request that every retry resends, so a retry, or a resend after
 *   a restart, of a request ACS already took returns its first answer instead of sending again. A
 *   412 (a first send older than ACS tracks) → `repeatability_expired`.
 *
 * Mapping: 202 → `accepted` (`providerMessageId` = the operation id), and so is 409 for the id this
 * row chose (ACS has that operation already: an earlier send whose answer was lost); an operation already
 * `Failed` in that answer with `EmailDroppedAllRecipientsSuppressed` → `hard_bounce` (ACS drops
 * mail to addresses on its suppression list), with another code → permanent `provider_error`; a
 * refused request → `acsFailure` (400, also an unusable address, is permanent and not taken for a
 * bounce: it cannot be told apart from a fault of our own request). Error messages are never read.
 */

export interface AcsEmailProviderOptions extends AcsPipelineSettings {
  access: AcsAccess;
  /** A sender address of a verified domain, `config.notifications.acsEmailSender`. */
  senderAddress: string;
}

/** Creates the ACS e-mail adapter; the SDK's pipeline is loaded with the first message. */
export function createAcsEmailProvider(options: AcsEmailProviderOptions): EmailProvider {
  const pipeline = createAcsSendPipeline(options);

  return {
    async send(message, observer) {
      const operationId = message.operationId ?? randomUUID();
      const answer = await pipeline.post(
        `/emails:send?api-version=${ACS_EMAIL_API_VERSION}`,
        {
          body: JSON.stringify({
            senderAddress: options.senderAddress,
            recipients: { to: [{ address: message.to }] },
            content: { subject: message.subject, plainText: message.text },
            // No tracking pixels or rewritten links in mail to children and their parents.
            userEngagementTrackingDisabled: true,
          }),
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            'operation-id': operationId,
            // The row's own pair when it has one; otherwise one for this send, kept by its retries.
            'repeatability-request-id': message.repeatability?.requestId ?? randomUUID(),
            'repeatability-first-sent': (message.repeatability?.firstSent ?? new Date()).toUTCString(),
          },
        },
        observer,
      );
      // No answer (cut off at the deadline, say): ACS may hold the operation; a resend under the row's operation id finds it (409).
      if (!answer.ok) return answer.outcome;
      const { status, body } = answer;
      if (status === 202) return acceptedOutcome(body, operationId);
      // ACS already holds an operation under the id this row chose: an earlier send of this very
      // message (its answer lost, or still in progress). Sending again would not help; it is accepted.
      if (status === 409 && message.operationId) return { result: 'accepted', providerMessageId: message.operationId };
      if (status >= 200 && status < 300) return { result: 'provider_error', code: 'bad_response', transient: false };
      return acsFailure({ statusCode: status, code: errorCodeOf(body) });
    },
    operationOutcome: async (operationId) =>
      // Asked again on the settle timer's next run.
      options.shutdown?.stopping.aborted ? { state: 'unknown', code: SHUTDOWN_CODE } : readEmailOperation(options, operationId),
  };
}

/** The outcome of ACS's 202: accepted, unless the operation already failed. */
function acceptedOutcome(body: string | undefined, plannedId: string | undefined): DeliveryOutcome {
  const operation = jsonObjectOf(body);
  const operationId = (typeof operation?.id === 'string' && operation.id) || plannedId;
  if (!operationId) return { result: 'provider_error', code: 'bad_response', transient: false };
  if (operation?.status === 'Failed') return failedOperation((operation.error as { code?: unknown } | undefined)?.code);
  return { result: 'accepted', providerMessageId: operationId };
}
