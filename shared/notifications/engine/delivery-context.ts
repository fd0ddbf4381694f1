import type { ConcurrencyLimit } from '../../concurrency/concurrency-limit';
import type { Database, SqlExecutor } from '../../db/database';
import { claimDeliveries, finishDeliveries, releaseDelivery, type DeliveryKey, type DeliveryResult, type FinishedDelivery } from '../ledger/delivery-ledger';
import { reportAttempt, type AttemptResult, type DeliveryFacts } from './delivery-report';
import { announcementSubject, type DeliverySubject } from './delivery-subject';
import { emailOperationId } from '../ledger/email-operation-id';
import type { FanoutDeps } from './fanout-deps';
import { DELIVERY_LEASE_MS, type HeldLeases } from '../ledger/lease-heartbeat';
import type { Channel, DeliveryOutcome } from '../../ports/delivery';
import { SHUTDOWN_CODE } from '../providers/provider-http';
import { clearSendStart, providerRefused, type SendStart } from '../ledger/send-repeatability';
import { SendStarts } from '../ledger/send-starts';
import type { LeasedLedger } from '../ledger/leased-rows';

/** The text a context delivers (an announcement's, or an account notice's) and its subject's id; never logged. */
export interface AnnouncementContent {
  id: string;
  title: string;
  body: string;
}

/**
 * Outcome counts of one batch, per channel and result ('pending' = still owed after this invocation;
 * 'busy' = held by another invocation; 'outcome_unknown' = recorded `accepted` without knowing
 * whether the provider sent it, also counted under `accepted`).
 */
export type BatchTally = Record<Channel, Partial<Record<DeliveryResult | 'pending' | 'busy' | 'outcome_unknown', number>>>;

/**
 * Send results written together (group commit): at most this many rows, or whatever arrived within
 * `GROUP_COMMIT_MS`, in one transaction. One commit per row cost more than the sends themselves
 * (bench/results.md); the price is that a crash loses at most these few milliseconds of results,
 * whose rows stay `pending` and are sent again by the redelivered message.
 */
export const GROUP_COMMIT_ROWS = 32;
export const GROUP_COMMIT_MS = 10;

type ProviderResult = { result: AttemptResult; providerCode?: string | undefined; providerMessageId?: string | undefined };
/** A result written without a provider call. */
type DecidedResult = { result: 'opted_out'; providerCode: string } | { result: 'budget_exceeded' };

/**
 * The delivery engine, for an announcement's batch and an account notice alike (its subject names
 * the ledger: the same statements run on either table).
 * The one writer of a batch's ledger results: every channel's final (or `accepted`) results go
 * through `finish` / `record` (group commit) or `finishAtOnce` (one provider request's answers
 * that must be durable before the next send), all in `finishDeliveries` statements.
 *
 * What one batch invocation shares while it delivers: the database, the limiter of provider
 * requests, the tally, the ledger rows it has claimed but not finished, which it gives back if
 * the invocation fails halfway, so the redelivered message can claim them at once, and the send
 * results not yet written (`flush` writes them).
 */
export class DeliveryContext {
  readonly tally: BatchTally = { push: {}, sms: {}, email: {} };
  /**
   * Rows found marked first-sent with no answer recorded (their holder died between the mark and
   * the answer) and sent again inside ACS's window, under their first request (ACS sends each once).
   */
  readonly resumedSends: Record<'sms' | 'email', number> = { sms: 0, email: 0 };
  private readonly open = new Map<string, DeliveryKey>();
  private leaseUntil = '';
  private unwritten: { key: DeliveryKey; outcome: ProviderResult | DecidedResult }[] = [];
  private writing: Promise<void> = Promise.resolve();
  private writeError: unknown;
  private timer: NodeJS.Timeout | undefined;
  private sendStarts: SendStarts | undefined;
  /** Answers recorded soon (`recordSendAnswerSoon`), not yet waited for. */
  private answers: Promise<void>[] = [];
  /** The table of the rows this context claims and writes. */
  readonly ledger: LeasedLedger;

  constructor(
    readonly deps: FanoutDeps,
    readonly db: Database,
    readonly limit: ConcurrencyLimit,
    readonly announcement: AnnouncementContent,
    readonly subject: DeliverySubject = announcementSubject(announcement.id),
  ) {
    this.ledger = subject.ledger;
  }

  /** The announcement delivered, if the subject is one (push tickets and e-mails name it). */
  get announcementId(): string | undefined {
    return 'announcementId' in this.subject.facts ? this.subject.facts.announcementId : undefined;
  }

  /** The facts of one row's log lines: the subject's id, the recipient, the channel. */
  facts(userId: string, channel: Channel): DeliveryFacts {
    return { ...this.subject.facts, recipientUserId: userId, channel };
  }

  /** The operation id of a row's e-mail, written with its claim and sent on every try. */
  emailOperationId(key: DeliveryKey): string {
    return emailOperationId({ announcementId: this.subject.operationIdSpace + key.announcementId, userId: key.userId });
  }

  now(): Date {
    return this.deps.clock.now();
  }

  /** True once the instance is shutting down: nothing new is sent, what is owed goes back. */
  get stopping(): boolean {
    return this.deps.shutdown.stopping.aborted;
  }

  key(userId: string, channel: Channel): DeliveryKey {
    return { announcementId: this.announcement.id, userId, channel };
  }

  /**
   * Claims the ledger rows of `keys` in one transaction; rows already final or held elsewhere are
   * counted and left out.
   * @returns the keys this invocation now holds, to send.
   */
  async claimAll(keys: readonly DeliveryKey[]): Promise<DeliveryKey[]> {
    const now = this.now();
    // An e-mail's operation id is written with the claim, so its delivery report finds the row even
    // when it overtakes the send's answer.
    const planned = keys.map((key) => (key.channel === 'email' ? { ...key, plannedMessageId: this.emailOperationId(key) } : key));
    this.leaseUntil = new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString();
    const claims = await claimDeliveries(this.db, planned, now.toISOString(), this.leaseUntil, this.ledger);
    const held: DeliveryKey[] = [];
    keys.forEach((key, index) => {
      const claim = claims[index];
      if (claim === 'claimed') {
        this.open.set(idOf(key), key);
        held.push(key);
      } else if (claim === 'busy') {
        this.count(key.channel, 'busy');
      }
    });
    this.sendStarts = new SendStarts(this.db, this.deps.clock, this.announcement.id, this.ledger);
    return held;
  }

  /**
   * Right before an SMS's or e-mail's provider call: records its first send (durably, together with
   * the other sends starting at that moment) and says whether the call is a first send, a resend of
   * the same repeatable request, or too late to resend (`send-repeatability.ts`).
   * @returns undefined when the row was settled meanwhile: nothing to send.
   */
  async startSend(key: DeliveryKey): Promise<SendStart | undefined> {
    const start = await this.starts().start(key);
    this.countResumed(key, start);
    return start;
  }

  /**
   * `startSend` of sends already gathered by their caller (the SMS checked in one turn), in one
   * statement now: each key's start, in order.
   */
  async startSends(keys: DeliveryKey[]): Promise<(SendStart | undefined)[]> {
    const starts = await this.starts().startAll(keys);
    keys.forEach((key, index) => this.countResumed(key, starts[index]));
    return starts;
  }

  private starts(): SendStarts {
    this.sendStarts ??= new SendStarts(this.db, this.deps.clock, this.announcement.id, this.ledger);
    return this.sendStarts;
  }

  private countResumed(key: DeliveryKey, start: SendStart | undefined): void {
    if (start?.kind === 'resend' && key.channel !== 'push') this.resumedSends[key.channel] += 1;
  }

  /**
   * The provider call `startSend` prepared is not made (the instance began stopping: checked in the
   * same turn as the call would be made, so no call has started): a first send is forgotten, so
   * the row, provably never sent, goes as a first send whenever it is sent, even past ACS's window,
   * rather than being written off as an unknown outcome. The row stays held; the batch gives it back.
   */
  async forgetStart(key: DeliveryKey, start: SendStart): Promise<void> {
    if (start.kind === 'first') await (this.sendStarts as SendStarts).notSent(key);
  }

  /**
   * A provider answered: the ledger row gets the result (final, or `accepted` until the provider's
   * report), the tally counts it, and the attempt is logged (with its `notification.delivery`
   * event unless `event: false`).
   */
  async finish(key: DeliveryKey, outcome: ProviderResult, facts: DeliveryFacts, tries: number, options: { event?: boolean } = {}): Promise<void> {
    this.record(key, outcome);
    reportAttempt(this.deps, facts, { result: outcome.result, tries, ...(outcome.providerCode ? { providerCode: outcome.providerCode } : {}) }, options);
  }

  /**
   * The row's final result, decided without a provider call (an SMS opted out or over the spend
   * cap): written with the next group commit and counted; the caller reports it. Nothing was sent,
   * so a crash that loses the write only makes the redelivered message decide it again.
   */
  record(key: DeliveryKey, outcome: ProviderResult | DecidedResult): void {
    this.unwritten.push({ key, outcome });
    if (this.unwritten.length >= GROUP_COMMIT_ROWS) this.writeUnwritten();
    else this.timer ??= setTimeout(() => this.writeUnwritten(), GROUP_COMMIT_MS);
    this.settled(key, outcome.result);
  }

  /**
   * Writes the answers of one provider request at once, first in line, in one transaction with
   * `alongside` (a push request's tickets): Expo takes no idempotency key, so the rows it settled
   * are final before anything else is sent for them. The caller counts and reports them (`settled`).
   */
  async finishAtOnce(channel: Channel, finished: readonly FinishedDelivery[], alongside?: (tx: SqlExecutor) => Promise<void>): Promise<void> {
    const now = this.now().toISOString();
    // First in line: on SQLite's one connection it would otherwise wait behind the batch's queued
    // SMS and e-mail writes, and a crash meanwhile would push these users again.
    await this.db.transaction(
      async (tx) => {
        await alongside?.(tx);
        await finishDeliveries(tx, this.db.dialect, this.announcement.id, channel, finished, now, this.ledger);
      },
      { first: true },
    );
  }

  /**
   * Records an SMS's or e-mail's answer from the provider: taken (`accepted`, `success`) is
   * finished; a transient error is postponed for the redelivered message, and a refusal that came
   * with an answer (nothing went out) forgets the row's first send, so the next send is a first
   * one; anything else is a provider error (an answer the channel does not have is an adapter bug,
   * recorded as one). Hard bounces are the e-mail's to handle before this.
   */
  async recordSendAnswer(key: DeliveryKey, outcome: DeliveryOutcome, facts: DeliveryFacts, tries: number): Promise<void> {
    switch (outcome.result) {
      case 'accepted':
      case 'success':
        await this.finish(key, { result: outcome.result, providerMessageId: outcome.providerMessageId }, facts, tries);
        return;
      case 'provider_error':
        if (outcome.transient) {
          if (providerRefused(outcome)) await clearSendStart(this.db, key, this.ledger);
          await this.postpone(key, outcome.code, facts, tries);
          return;
        }
        await this.finish(key, { result: 'provider_error', providerCode: outcome.code }, facts, tries);
        return;
      default:
        await this.finish(key, { result: 'provider_error', providerCode: outcome.code }, facts, tries);
    }
  }

  /**
   * `recordSendAnswer`, two turns of the event loop later: once the requests that the answers read
   * in this poll of the sockets let start are on their way. The answers of a poll are read first and
   * their next sends start together (one send-start group), so a result's bookkeeping (its ledger
   * row, tally and log lines) done at once sat between every answer of the poll and every request it
   * let start; done after them, it delays no request. `flush` waits for it and throws its failure.
   */
  recordSendAnswerSoon(key: DeliveryKey, outcome: DeliveryOutcome, facts: DeliveryFacts, tries: number): void {
    this.answers.push(afterTwoTurns().then(() => this.recordSendAnswer(key, outcome, facts, tries)));
  }

  /**
   * Writes every send result still unwritten and waits for the writes.
   * @throws the first write's failure (or a deferred answer's): the batch fails, and its rows stay
   *   `pending` for the redelivery.
   */
  async flush(): Promise<void> {
    while (this.answers.length > 0) {
      for (const settled of await Promise.allSettled(this.answers.splice(0))) {
        if (settled.status === 'rejected') this.writeError ??= settled.reason;
      }
    }
    this.writeUnwritten();
    await this.writing;
    if (this.writeError !== undefined) throw this.writeError;
  }

  private writeUnwritten(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.unwritten;
    if (rows.length === 0) return;
    this.unwritten = [];
    // One statement per channel, not per row: on SQL Server each statement is a round trip.
    const byChannel = new Map<Channel, FinishedDelivery[]>();
    for (const { key, outcome } of rows) {
      const finished = byChannel.get(key.channel) ?? [];
      finished.push({ userId: key.userId, ...outcome });
      byChannel.set(key.channel, finished);
    }
    this.writing = this.writing.then(() =>
      this.db
        .transaction(async (tx) => {
          const now = this.now().toISOString();
          for (const [channel, finished] of byChannel) await finishDeliveries(tx, this.db.dialect, this.announcement.id, channel, finished, now, this.ledger);
        })
        .catch((error: unknown) => {
          this.writeError ??= error;
        }),
    );
  }

  /**
   * A provider failed transiently past the retries: the row goes back to be owed (for the
   * redelivered message) and the attempt is logged (error line, exception) as a transient provider error.
   */
  async postpone(key: DeliveryKey, providerCode: string, facts: DeliveryFacts, tries: number): Promise<void> {
    await this.release(key, providerCode);
    // Cut short by the shutdown, not failed: the batch's one interruption line says so.
    if (providerCode === SHUTDOWN_CODE) return;
    // No `notification.delivery` event: the row is still owed, and the event counts final results only.
    reportAttempt(this.deps, facts, { result: 'provider_error', providerCode, tries, transient: true }, { event: false });
  }

  /** The row is no longer this invocation's to send: a report or another invocation settled it meanwhile. */
  settledElsewhere(key: DeliveryKey): void {
    this.open.delete(idOf(key));
  }

  /** The row got its final result (already written by the caller). */
  settled(key: DeliveryKey, result: DeliveryResult): void {
    this.open.delete(idOf(key));
    this.count(key.channel, result);
  }

  /** The row stays owed: give it back now for the redelivered message. */
  async release(key: DeliveryKey, providerCode?: string): Promise<void> {
    await releaseDelivery(this.db, key, this.now().toISOString(), providerCode, this.ledger);
    this.open.delete(idOf(key));
    this.count(key.channel, 'pending');
  }

  /**
   * Gives back every row still claimed (the invocation is failing or the instance stopping): in one
   * transaction, as a shutdown releases a whole batch against its deadline; row by row, best effort,
   * when that fails.
   */
  async releaseAll(): Promise<void> {
    const keys = [...this.open.values()];
    if (keys.length === 0) return;
    const now = this.now().toISOString();
    try {
      await this.db.transaction(async (tx) => {
        for (const key of keys) await releaseDelivery(tx, key, now, undefined, this.ledger);
      });
    } catch {
      for (const key of keys) await this.release(key).catch(() => undefined);
      return;
    }
    for (const key of keys) {
      this.open.delete(idOf(key));
      this.count(key.channel, 'pending');
    }
  }

  /** The rows this invocation holds and their lease, for the lease heartbeat (`lease-heartbeat.ts`). */
  heldLeases(): HeldLeases {
    return { announcementId: this.announcement.id, keys: () => [...this.open.values()], heldUntil: this.leaseUntil, ledger: this.ledger };
  }

  /** True when something is still owed: the message must be delivered again. */
  get incomplete(): boolean {
    return Object.values(this.tally).some((counts) => (counts.pending ?? 0) + (counts.busy ?? 0) > 0);
  }

  /** True when this invocation gave rows back (rows held elsewhere not counted). */
  get owed(): boolean {
    return Object.values(this.tally).some((counts) => (counts.pending ?? 0) > 0);
  }

  /** Counts a row recorded `accepted` whose send may or may not have gone out. */
  countOutcomeUnknown(channel: Channel): void {
    this.count(channel, 'outcome_unknown');
  }

  private count(channel: Channel, result: DeliveryResult | 'pending' | 'busy' | 'outcome_unknown'): void {
    const counts = this.tally[channel];
    counts[result] = (counts[result] ?? 0) + 1;
  }
}

function idOf(key: DeliveryKey): string {
  return `${key.userId}/${key.channel}`;
}

/** Resolves in the check phase of the event loop's next turn: after the next poll of the sockets and its continuations. */
function afterTwoTurns(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
