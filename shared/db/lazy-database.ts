import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import type { Database } from './database';

/** Opens the database on first use and again after a failure, so a database that was down at start-up heals without a restart. */
export interface DatabaseProvider {
  /**
   * The open, migrated database; throws `DependencyUnavailableError` when it cannot be opened, and
   * once `close` was called (the process is shutting down).
   */
  get(): Promise<Database>;
  /** Closes the database for good: a later `get` fails instead of opening it again. */
  close(): Promise<void>;
}

/**
 * Wraps `open` (connect and, in development, migrate) so that concurrent callers share one attempt
 * and a failed attempt is not cached. After `close`, nothing reopens it: work still running when a
 * shutdown closes the database gets 503 `service_unavailable` (through the HTTP pipeline), and a
 * queue message is retried elsewhere, rather than holding a fresh connection the exit then cuts.
 */
export function lazyDatabase(open: () => Promise<Database>): DatabaseProvider {
  let opened: Database | undefined;
  let opening: Promise<Database> | undefined;
  let closed = false;
  return {
    async get() {
      if (closed) throw new DependencyUnavailableError('database', { cause: new Error('the database was closed for shutdown') });
      if (opened) return opened;
      opening ??= open().then(
        (database) => {
          opened = database;
          opening = undefined;
          return database;
        },
        (error: unknown) => {
          opening = undefined;
          throw error instanceof DependencyUnavailableError
            ? error
            : new DependencyUnavailableError('database', { cause: error });
        },
      );
      return opening;
    },
    async close() {
      closed = true;
      // An open still under way is finished and closed too, so no connection outlives the close.
      const database = opened ?? (await opening?.catch(() => undefined));
      opened = undefined;
      await database?.close();
    },
  };
}
