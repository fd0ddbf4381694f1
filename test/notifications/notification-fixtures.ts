import { randomUUID } from 'node:crypto';
import type { ChildUsername } from '../../shared/children/child-username';
import type { Announcement, AnnouncementChannel } from '../../shared/announcements/announcement';
import { insertAnnouncement } from '../../shared/announcements/announcement-store';
import { insertChildAccount } from '../../shared/children/child-account-store';
import type { Database } from '../../shared/db/database';
import { migrateDatabase } from '../../shared/db/migrate';
import { createSqliteDatabase } from '../../shared/db/sqlite-database';
import type {
  DeliveryOutcome,
  DeliveryProviders,
  EmailMessage,
  PushMessage,
  SendObserver,
  SmsMessage,
} from '../../shared/ports/delivery';
import type { Section, User } from '../../shared/users/user';
import { insertUser } from '../../shared/users/user-store';
import { adultUser, childUser } from '../contract/store-fixtures';

/**
 * Fixtures of the notification tests: a migrated in-memory SQLite database, users and published
 * announcements inserted directly, and in-memory delivery providers whose answers are scripted per
 * address (the end-to-end tests use the fake provider servers instead).
 */

export const T0 = '2031-05-10T08:00:00.000Z';

/** A fresh, migrated in-memory database. */
export async function migratedMemoryDatabase(): Promise<Database> {
  const db = createSqliteDatabase(':memory:');
  await migrateDatabase(db);
  return db;
}

let sequence = 0;

/** A user id that sorts after the ones made before it (recipients are paged in id order). */
export function orderedUserId(): string {
  sequence += 1;
  return `00000000-0000-4000-8000-${sequence.toString(16).padStart(12, '0')}`;
}

export async function addAdult(
  db: Database,
  overrides: Partial<Pick<User, 'id' | 'email' | 'phone' | 'status' | 'role'>> = {},
): Promise<User> {
  const id = overrides.id ?? orderedUserId();
  const user = adultUser(0, {
    issuer: 'https://idp.notifications.test/',
    subject: `subject-${id}`,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
    id,
  });
  await insertUser(db, user);
  return user;
}

export async function addChild(db: Database, parentId: string, scopes: readonly Section[], options: { id?: string } = {}): Promise<User> {
  const id = options.id ?? orderedUserId();
  const user = childUser(0, parentId, { id, createdAt: T0, updatedAt: T0 });
  await db.transaction((tx) =>
    insertChildAccount(tx, { user, username: `kid-${id.slice(-6)}` as ChildUsername, secretHash: 'not-a-real-hash', secretKind: 'pin', scopes }),
  );
  return user;
}

/** A published announcement by `authorId`. */
export async function addPublishedAnnouncement(
  db: Database,
  authorId: string,
  content: { id?: string; title?: string; body?: string; channels?: AnnouncementChannel[]; status?: Announcement['status'] } = {},
): Promise<Announcement> {
  const announcement: Announcement = {
    id: content.id ?? randomUUID(),
    authorId,
    title: content.title ?? 'Bake sale moved',
    body: content.body ?? 'The bake sale moves to the gym on Saturday.',
    channels: content.channels ?? ['push', 'sms', 'email'],
    status: content.status ?? 'published',
    rejectionReason: null,
    createdAt: T0,
    updatedAt: T0,
    submittedAt: T0,
    reviewedAt: T0,
    reviewedBy: authorId,
    publishedAt: T0,
    publishedBy: authorId,
    fanoutEnqueuedAt: T0,
  };
  await insertAnnouncement(db, announcement);
  return announcement;
}

export interface ScriptedProviders extends DeliveryProviders {
  /** What each address gets, in order; the last answer stays. Unscripted addresses succeed. */
  script(address: string, ...outcomes: DeliveryOutcome[]): void;
  /** Every provider call's messages, successful or not. */
  readonly calls: { push: PushMessage[][]; sms: SmsMessage[]; email: EmailMessage[] };
  /** Messages the provider accepted. */
  readonly accepted: { push: PushMessage[]; sms: SmsMessage[]; email: EmailMessage[] };
  /** The receipt of tickets for `token` (default: ok); `absent` for one that is not ready. */
  receiptFor(token: string, receipt: DeliveryOutcome | 'absent'): void;
  /** Ticket ids whose receipts were asked for, per request. */
  readonly receiptRequests: string[][];
}

/** In-memory providers of the three channels with per-address scripted answers. */
/** Tries the ACS adapters make per message (the SDK pipeline's retries included). */
export const ADAPTER_TRIES = 3;

export function scriptedProviders(): ScriptedProviders {
  const scripts = new Map<string, DeliveryOutcome[]>();
  const calls: ScriptedProviders['calls'] = { push: [], sms: [], email: [] };
  const receiptsByToken = new Map<string, DeliveryOutcome | 'absent'>();
  const tokenOfTicket = new Map<string, string>();
  const receiptRequests: string[][] = [];
  const accepted: ScriptedProviders['accepted'] = { push: [], sms: [], email: [] };
  let ids = 0;
  const answer = (address: string, fallback: 'success' | 'accepted' = 'success'): DeliveryOutcome => {
    const queue = scripts.get(address);
    const next = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    if (next) return next;
    ids += 1;
    return { result: fallback, providerMessageId: `msg-${ids}` };
  };
  /**
   * SMS and e-mail as the ACS adapters answer: `accepted` by default, and transient failures retried
   * inside the adapter (3 tries, as the SDK pipeline), each retry told to the observer.
   */
  const acsLike = (address: string, observer: SendObserver | undefined, call: () => void): DeliveryOutcome => {
    for (;;) {
      call();
      const outcome = answer(address, 'accepted');
      const tries = observer ? (observer.tries += 1) : 1;
      if (outcome.result !== 'provider_error' || !outcome.transient || tries >= ADAPTER_TRIES) return outcome;
      observer?.onRetry?.(outcome.code, tries);
    }
  };
  return {
    calls,
    accepted,
    receiptRequests,
    receiptFor(token, receipt) {
      receiptsByToken.set(token, receipt);
    },
    script(address, ...outcomes) {
      scripts.set(address, [...outcomes]);
    },
    push: {
      async send(messages) {
        calls.push.push([...messages]);
        return messages.map((message) => {
          const outcome = answer(message.to);
          if (outcome.result === 'success') accepted.push.push(message);
          if (outcome.result === 'success' && outcome.providerMessageId) tokenOfTicket.set(outcome.providerMessageId, message.to);
          return outcome;
        });
      },
      async checkReceipts(ticketIds) {
        receiptRequests.push([...ticketIds]);
        const receipts = new Map<string, DeliveryOutcome>();
        for (const id of ticketIds) {
          const receipt = receiptsByToken.get(tokenOfTicket.get(id) ?? '') ?? { result: 'success' };
          if (receipt !== 'absent') receipts.set(id, receipt);
        }
        return receipts;
      },
    },
    sms: {
      async send(message, observer) {
        const outcome = acsLike(message.to, observer, () => calls.sms.push(message));
        if (outcome.result === 'accepted' || outcome.result === 'success') accepted.sms.push(message);
        return outcome;
      },
    },
    email: {
      async send(message, observer) {
        const outcome = acsLike(message.to, observer, () => calls.email.push(message));
        if (outcome.result === 'accepted' || outcome.result === 'success') accepted.email.push(message);
        return outcome;
      },
    },
  };
}

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordingSleep(): ((ms: number) => Promise<void>) & { waits: number[] } {
  const waits: number[] = [];
  const sleep = async (ms: number): Promise<void> => {
    waits.push(ms);
  };
  return Object.assign(sleep, { waits });
}

export const transient500: DeliveryOutcome = { result: 'provider_error', code: 'http_500', transient: true };
