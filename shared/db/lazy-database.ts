import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import type { Database } from './database';

/** Opens the database on first use and again after a failure, so a database that was down at start-up heals without a restart. */
export interface DatabaseProvider {
  /** The open, migrated database; throws `DependencyUnavailableError` when it cannot be opened. */
  get(): Promise<Database>;
  close(): Promise<void>;
}

/**
 * Wraps `open` (connect and, in development, migrate) so that concurrent callers share one attempt
 * and a failed attempt is not cached.
 */
export function lazyDatabase(open: () => Promise<Database>): DatabaseProvider {
  let opened: Database | undefined;
  let opening: Promise<Database> | undefined;
  return {
    async get() {
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
      const database = opened;
      opened = undefined;
      await database?.close();
    },
  };
}
