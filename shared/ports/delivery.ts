/**
 * The ports of the three delivery channels. Adapters speak each provider's real HTTP API (Expo
 * push, Azure Communication Services SMS and e-mail); the outbox adapter records deliveries in the
 * database for development. Addresses, tokens and texts pass through here and nowhere else: they
 * are never logged, audited or sent as telemetry.
 */

export const CHANNELS = ['push', 'sms', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The outcome of one delivery attempt to one recipient on one channel (`notification.delivery` result). */
export type DeliveryOutcome =
  /** Final: the provider took it and reports nothing more (push tickets, the outbox, a settled e-mail operation). */
  | { result: 'success'; providerMessageId?: string }
  /** The provider took it and will send a delivery report (ACS SMS and e-mail), which names `providerMessageId`. */
  | { result: 'accepted'; providerMessageId?: string }
  /**
   * `code`: the provider's error code or HTTP status (`http_503`), a short label safe to log.
   * `transient`: trying again later may succeed (429, 5xx, network); otherwise it never will.
   * `retryAfterMs`: the provider's `Retry-After`, when it sent one.
   */
  | { result: 'provider_error'; code: string; transient: boolean; retryAfterMs?: number }
  /** The address is dead (e-mail hard bounce): it is marked and never tried again. */
  | { result: 'hard_bounce'; code: string }
  /** The device is no longer registered (Expo `DeviceNotRegistered`): the token is removed. */
  | { result: 'stale_token'; code: string };

/**
 * The `provider_error` code of a resend the provider no longer recognises as one (ACS: 412 to a
 * first-sent time older than it tracks): whether the first send went out is unknown, so the caller
 * looks the outcome up instead of sending again.
 */
export const REPEATABILITY_EXPIRED = 'repeatability_expired';

export interface PushMessage {
  /** An Expo push token, `ExponentPushToken[...]`. */
  to: string;
  title: string;
  body: string;
  /**
   * What the app opens on a tap: the announcement, or for an account notice its kind and the child
   * it is about (`notices/`). Ids only.
   */
  data: { announcementId: string } | { notice: string; childId: string };
}

export interface PushProvider {
  /** Sends at most 100 messages (Expo's batch limit); one outcome per message, in order. */
  send(messages: readonly PushMessage[]): Promise<DeliveryOutcome[]>;
  /**
   * Reads the receipts of earlier successful sends (their `providerMessageId`s, Expo ticket ids):
   * a receipt's outcome per id, `stale_token` when the device turned out to be unregistered. Ids
   * whose receipt is not ready yet are absent; when the whole request fails every id maps to that
   * `provider_error`. Absent on providers without receipts (the outbox).
   */
  checkReceipts?(ticketIds: readonly string[]): Promise<Map<string, DeliveryOutcome>>;
}

/**
 * Told about each try of one message's send (the provider SDK retries inside its pipeline): the
 * delivery lines carry `tries`, and each retry gets its warn line.
 */
export interface SendObserver {
  /** Tries made so far; the adapter counts up. */
  tries: number;
  /** A try failed with `code` and another follows (after `failedTries` tries). */
  onRetry?(code: string, failedTries: number): void;
}

/**
 * ACS's repeatable-request pair of one message (`Repeatability-Request-Id`,
 * `Repeatability-First-Sent`): the same on every send of it, before and after a restart, so ACS
 * answers a repeat it already executed without sending again (`send-repeatability.ts`).
 */
export interface RepeatablePair {
  requestId: string;
  firstSent: Date;
}

export interface SmsMessage {
  /** E.164 phone number. */
  to: string;
  text: string;
  /** Echoed by the provider's delivery report: names the ledger row (`smsReportTag`). No personal data. */
  tag?: string;
  /** Which announcement this is, for the development outbox's record and log line; providers ignore it. */
  announcementId?: string;
  /** Absent: the adapter makes a pair of its own for this send (its retries reuse it). */
  repeatability?: RepeatablePair;
}

export interface SmsProvider {
  send(message: SmsMessage, observer?: SendObserver): Promise<DeliveryOutcome>;
}

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  /** The provider operation id to use (a UUID chosen from the ledger row), so the report finds its row. */
  operationId?: string;
  /** Which announcement this is, for the development outbox's record and log line; providers ignore it. */
  announcementId?: string;
  /** Absent: the adapter makes a pair of its own for this send (its retries reuse it). */
  repeatability?: RepeatablePair;
}

export interface EmailProvider {
  send(message: EmailMessage, observer?: SendObserver): Promise<DeliveryOutcome>;
  /**
   * Asks once for the end state of an accepted message's operation (the settle timer, when no
   * report came). Absent on providers without operations (the outbox).
   */
  operationOutcome?(operationId: string): Promise<EmailOperationState>;
}

/**
 * What the provider knows of an e-mail operation: `ended` with its outcome (`success`,
 * `hard_bounce`, or a permanent `provider_error` with the operation's error code), still
 * `running`, or `unknown`: the question itself failed (a refused or unanswered request, an
 * operation the provider no longer knows), which says nothing about the message.
 */
export type EmailOperationState = { state: 'ended'; outcome: DeliveryOutcome } | { state: 'running' } | { state: 'unknown'; code: string };

export interface DeliveryProviders {
  push: PushProvider;
  sms: SmsProvider;
  email: EmailProvider;
}
