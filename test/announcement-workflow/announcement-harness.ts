import type { AnnouncementDeps } from '../../shared/announcement-workflow/announcement-deps';
import { createAnnouncement } from '../../shared/announcement-workflow/write-announcement';
import { DependencyUnavailableError } from '../../shared/errors/dependency-unavailable';
import type { FanoutMessage } from '../../shared/messages/fanout-message';
import type { FanoutQueue } from '../../shared/messages/fanout-queue';
import type { User } from '../../shared/users/user';
import { createFlowHarness, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * In-process harness for the announcement workflow: the flow harness (temporary SQLite file,
 * manual clock, log sink, in-memory telemetry, canaries) plus a fan-out queue that can be made
 * unreachable, an author and an administrator.
 */

/** A fan-out queue in memory that answers like an unreachable storage account while `down` is true. */
export interface SwitchableQueue extends FanoutQueue {
  messages: FanoutMessage[];
  down: boolean;
}

export function switchableQueue(): SwitchableQueue {
  const queue: SwitchableQueue = {
    messages: [],
    down: false,
    async enqueue(message) {
      if (queue.down) throw new DependencyUnavailableError('queue', { cause: new Error('connect ECONNREFUSED 127.0.0.1:10001') });
      queue.messages.push(message);
    },
  };
  return queue;
}

export interface AnnouncementHarness {
  h: FlowHarness;
  queue: SwitchableQueue;
  deps: AnnouncementDeps;
  author: User;
  admin: User;
  /** A draft by `author` whose title and body are canaries. */
  draft(author?: User): Promise<string>;
}

let draftCounter = 0;

export async function createAnnouncementHarness(): Promise<AnnouncementHarness> {
  const h = await createFlowHarness();
  const queue = switchableQueue();
  const deps: AnnouncementDeps = { ...h.services.corePorts, fanoutQueue: queue };
  const author = await h.insertAdult({ role: 'author' });
  const admin = await h.insertAdult({ role: 'admin' });
  return {
    h,
    queue,
    deps,
    author,
    admin,
    async draft(by = author) {
      draftCounter += 1;
      const title = `Canary title ${draftCounter} zq${String(draftCounter).padStart(4, '0')}`;
      const body = `Canary body ${draftCounter}: the bake sale moves to the gym xk${String(draftCounter).padStart(4, '0')}`;
      h.canaries.add(title, body);
      const created = await createAnnouncement(by, { title, body, channels: ['push', 'email'] }, deps);
      if (!created.ok) throw new Error(`draft refused: ${created.problem.code}`);
      return created.announcement.id;
    },
  };
}
