import { randomUUID } from 'node:crypto';
import type { EmailClient, EmailSendResult } from '@azure/communication-email';
import type { FullOperationResponse } from '@azure/core-client';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import type { AcsAccess } from '../../config';
import { acsClientArguments, acsClientOptions, acsFailure, observeTries, sendAbortSignal, type AcsPipelineSettings } from './acs-pipeline';
import type { DeliveryOutcome, EmailProvider } from '../../ports/delivery';
import { failedOperation, readEmailOperation } from './acs-email-operation';
import { SHUTDOWN_CODE, shutdownOutcome } from './provider-http';

/**
 * E-mail through Azure Communication Services with its official SDK (`@azure/communication-email`).
 * The send ends when ACS has accepted the message (202, a long-running operation): its final
 * result arrives later as a delivery report (or, failing that, from the settle timer's one status
 * request, `operationOutcome`), so no concurrency slot waits for the operation.
 *
 * - The operation id is ours (`operationId`, chosen from the ledger row before the send), so the
 *   report finds its row even when it overtakes the send's answer.
 * - `Repeatability-Request-Id` / `Repeatability-First-Sent` (ACS's documented repeatable requests
 *   for the e-mail send API; the JavaScript SDK does not add them itself): the ledger row's pair
 *   (`EmailMessage.repeatability`), else one made for this send, so a retry, or a resend after a
 *   restart, of a request ACS already took returns its first answer instead of sending again. A
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

/** Creates the ACS e-mail adapter; the SDK is loaded with the first message. */
export function createAcsEmailProvider(options: AcsEmailProviderOptions): EmailProvider {
  let client: EmailClient | undefined;
  const emailClient = (): EmailClient => {
    if (!client) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const sdk = require('@azure/communication-email') as typeof import('@azure/communication-email');
      const args = acsClientArguments(options.access, options);
      const clientOptions = acsClientOptions(options, [repeatableSendPolicy]);
      client = args.length === 1 ? new sdk.EmailClient(args[0], clientOptions) : new sdk.EmailClient(args[0], args[1], clientOptions);
    }
    return client;
  };

  return {
    async send(message, observer) {
      if (options.shutdown?.stopping.aborted) return shutdownOutcome();
      // `beginSend` polls the operation once right after the 202; that answer is not needed (the
      // report brings the result), so the poll is cancelled as soon as the 202 is in hand.
      const acceptedNow = new AbortController();
      let sendAnswer: FullOperationResponse | undefined;
      try {
        await observeTries(observer, () =>
          emailClient().beginSend(
            {
              senderAddress: options.senderAddress,
              recipients: { to: [{ address: message.to }] },
              content: { subject: message.subject, plainText: message.text },
              // No tracking pixels or rewritten links in mail to children and their parents.
              disableUserEngagementTracking: true,
            },
            {
              ...(message.operationId ? { operationId: message.operationId } : {}),
              // The row's own pair when it has one; otherwise `repeatableSendPolicy` makes one for this send.
              ...(message.repeatability
                ? {
                    requestOptions: {
                      customHeaders: {
                        'Repeatability-Request-Id': message.repeatability.requestId,
                        'Repeatability-First-Sent': message.repeatability.firstSent.toUTCString(),
                      },
                    },
                  }
                : {}),
              abortSignal: sendAbortSignal(options, acceptedNow.signal),
              onResponse: (response) => {
                if (sendAnswer !== undefined || response.request.method !== 'POST') return;
                sendAnswer = response;
                if (response.status === 202) acceptedNow.abort();
              },
            },
          ),
        );
      } catch (error) {
        if (sendAnswer?.status !== 202) {
          // ACS already holds an operation under the id this row chose: an earlier send of this very
          // message (its answer lost, or still in progress). Sending again would not help; it is accepted.
          if (message.operationId && (error as { statusCode?: unknown } | null)?.statusCode === 409) {
            return { result: 'accepted', providerMessageId: message.operationId };
          }
          // Cut off at the deadline: ACS may hold the operation; a resend under the row's operation id finds it (409).
          if (options.shutdown?.deadline.aborted) return shutdownOutcome();
          return acsFailure(error);
        }
      }
      if (sendAnswer?.status !== 202) return { result: 'provider_error', code: 'bad_response', transient: false };
      return acceptedOutcome(sendAnswer, message.operationId);
    },
    operationOutcome: async (operationId) =>
      // Asked again on the settle timer's next run.
      options.shutdown?.stopping.aborted ? { state: 'unknown', code: SHUTDOWN_CODE } : readEmailOperation(options, operationId),
  };
}

/** The outcome of ACS's 202: accepted, unless the operation already failed. */
function acceptedOutcome(answer: FullOperationResponse, plannedId: string | undefined): DeliveryOutcome {
  const operation = answer.parsedBody as Partial<EmailSendResult> | undefined;
  const operationId = (typeof operation?.id === 'string' && operation.id) || plannedId;
  if (!operationId) return { result: 'provider_error', code: 'bad_response', transient: false };
  if (operation?.status === 'Failed') return failedOperation(operation.error?.code);
  return { result: 'accepted', providerMessageId: operationId };
}

/**
 * ACS's repeatable requests for the e-mail send: both headers set once per send, before the SDK's
 * retry policy, so every retry of that request carries the same pair.
 */
const repeatableSendPolicy: PipelinePolicy = {
  name: 'acsRepeatableEmailSend',
  sendRequest(request, next) {
    if (request.method === 'POST' && !request.headers.has('repeatability-request-id')) {
      request.headers.set('Repeatability-Request-Id', randomUUID());
      request.headers.set('Repeatability-First-Sent', new Date().toUTCString());
    }
    return next(request);
  },
};
