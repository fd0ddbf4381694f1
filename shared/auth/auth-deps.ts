import type { DatabaseProvider } from '../db/lazy-database';
import type { SecretHasher } from '../ports/secret-hasher';
import type { Shutdown } from '../lifecycle/shutdown';
import type { Logger } from '../logging/logger';
import type { NoticeQueue } from '../messages/notice-queue';
import type { Clock } from '../ports/clock';
import type { Random } from '../ports/random';
import type { SessionPolicy } from '../sessions/session-policy';
import type { Telemetry } from '../telemetry/telemetry';

/** The ports the authentication use cases share; built once in the composition root. */
export interface AuthDeps {
  database: DatabaseProvider;
  clock: Clock;
  random: Random;
  telemetry: Telemetry;
  logger: Logger;
  sessionPolicy: SessionPolicy;
}

/** What the child sign-in and the child-account management add: the Argon2id hasher and the pepper (throttle keys). */
export interface ChildAuthDeps extends AuthDeps {
  hasher: SecretHasher;
  pepper: string;
  /**
   * Where the notice of a child's locked account is enqueued for the parent. Absent (some tests):
   * the notice stays owed in its table and the queue-depth timer's catch-up sends it.
   */
  noticeQueue?: NoticeQueue;
  /**
   * Counts work a request starts and does not wait for (the lock notice's enqueue), so the
   * process's shutdown waits for it (`Shutdown.track`); tests wait for it with `drained`. Absent:
   * the work runs untracked.
   */
  shutdown?: Pick<Shutdown, 'track'>;
  /**
   * Called for every child sign-in without a client address, which then counts under the one
   * shared "unknown" address limit; the composition root passes `warnOnceWithoutAddress` (one warn
   * line per process). Absent (some tests): the attempts still share that limit, silently.
   */
  onUnknownClientAddress?: () => void;
}
