import type { Announcement, AnnouncementChannel } from '../../shared/announcements/announcement';
import type { Database } from '../../shared/db/database';
import { createLogger } from '../../shared/logging/logger';
import type { FanoutDeps } from '../../shared/notifications/engine/fanout-deps';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import { inMemoryFanoutQueue } from '../../shared/messages/fanout-queue';
import { buildFanoutDeps } from '../../shared/composition/fanout-services';
import { handleFanoutMessage, type FanoutResult } from '../../shared/notifications/jobs/handle-fanout-message';
import { registerPushToken } from '../../shared/users/push-tokens';
import type { Section, User } from '../../shared/users/user';
import { expect } from 'vitest';
import { createFlowHarness, type FlowHarness } from '../auth/flows/flow-harness';
import { parseLogLine } from '../helpers/log-schema';
import { addChild, addPublishedAnnouncement, orderedUserId, recordingSleep, scriptedProviders, type ScriptedProviders } from './notification-fixtures';

/**
 * In-process harness of the fan-out: the flow harness (temporary SQLite file, manual clock, log
 * sink, in-memory telemetry, canaries) with scripted providers, an in-memory queue, a sleep that
 * does not wait, and helpers that make recipients and announcements whose addresses, tokens and
 * texts are all canaries.
 */
export interface FanoutHarness {
  h: FlowHarness;
  db: Database;
  providers: ScriptedProviders;
  sleep: ReturnType<typeof recordingSleep>;
  queue: ReturnType<typeof inMemoryFanoutQueue>;
  deps: FanoutDeps;
  author: User;
  recipient(contact?: { email?: boolean; phone?: boolean; devices?: number }): Promise<TestRecipient>;
  child(parent: User, scopes: readonly Section[], devices?: number): Promise<TestRecipient>;
  announcement(channels?: AnnouncementChannel[], status?: Announcement['status']): Promise<Announcement>;
  /** Handles one message; a throw comes back as the rejection. */
  handle(message: unknown): Promise<FanoutResult>;
  /** Handles the first message, then every batch message it queued; resolves with the batches' errors. */
  fanOut(announcementId: string): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface TestRecipient {
  user: User;
  email: string | null;
  phone: string | null;
  tokens: string[];
}

let counter = 0;
const next = (): string => String((counter += 1)).padStart(5, '0');

export async function createFanoutHarness(env: Record<string, string> = {}): Promise<FanoutHarness> {
  const h = await createFlowHarness({ env: { FANOUT_BATCH_SIZE: '3', ...env } });
  const db = await h.services.database.get();
  const providers = scriptedProviders();
  const sleep = recordingSleep();
  const queue = inMemoryFanoutQueue();
  const logger = createLogger({ service: 'notifications', level: 'info', destination: h.sink });
  const deps: FanoutDeps = { ...buildFanoutDeps(h.services, { providers, logger, sleep }), queue };
  const author = await h.insertAdult({ id: orderedUserId(), role: 'author' });

  const addDevices = async (user: User, count: number): Promise<string[]> => {
    const tokens: string[] = [];
    for (let n = 0; n < count; n += 1) {
      const token = `ExponentPushToken[canaryDevice${next()}]`;
      await db.transaction((tx) => registerPushToken(tx, user.id, token, h.clock.now().toISOString()));
      h.canaries.add(token, token.slice('ExponentPushToken['.length, -1));
      tokens.push(token);
    }
    return tokens;
  };

  const harness: FanoutHarness = {
    h,
    db,
    providers,
    sleep,
    queue,
    deps,
    author,
    async recipient(contact = { email: true, phone: true, devices: 1 }) {
      const n = next();
      const email = contact.email ? `reader.${n}@canary-mail.test` : null;
      const phone = contact.phone ? `+1555${n}77` : null;
      h.canaries.add(...[email, phone].filter((v): v is string => v !== null));
      const user = await h.insertAdult({ id: orderedUserId(), email, phone });
      return { user, email, phone, tokens: await addDevices(user, contact.devices ?? 0) };
    },
    async child(parent, scopes, devices = 1) {
      const user = await addChild(db, parent.id, scopes);
      return { user, email: null, phone: null, tokens: await addDevices(user, devices) };
    },
    async announcement(channels = ['push', 'sms', 'email'], status = 'published') {
      const n = next();
      const title = `Canary headline ${n} qv${n}`;
      const body = `Canary text ${n}: choir practice moves to the hall jw${n}`;
      h.canaries.add(title, body, `qv${n}`, `jw${n}`);
      return addPublishedAnnouncement(db, author.id, { title, body, channels, status });
    },
    handle(message) {
      return handleFanoutMessage(message, deps);
    },
    async fanOut(announcementId) {
      const start = queue.messages.length;
      await handleFanoutMessage({ announcementId }, deps);
      const errors: unknown[] = [];
      for (const message of queue.messages.slice(start) as FanoutMessage[]) {
        await handleFanoutMessage(message, deps).catch((error: unknown) => errors.push(error));
      }
      return errors;
    },
    close: () => h.close(),
  };
  return harness;
}

/**
 * The leak check every fan-out test ends with: no address, phone number, push token or
 * announcement text (all tracked as canaries when made) in any log line, audit row or telemetry
 * item, and every line schema-valid. When the test made recipients, the positive control proves
 * the search would find one of them.
 */
export function expectNoFanoutLeaks(f: FanoutHarness): void {
  for (const line of f.h.sink.raw) expect(() => parseLogLine(line)).not.toThrow();
  const probe = f.h.rows<{ email: string | null }>('SELECT email FROM Users WHERE email IS NOT NULL')[0]?.email;
  if (probe) expect(f.h.canaries.findIn(JSON.stringify({ leaked: probe }))).toContain(probe);
  expect(f.h.leaks()).toEqual({ log: [], audit: [], telemetry: [] });
}
