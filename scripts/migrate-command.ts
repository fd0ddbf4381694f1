import type { DestinationStream } from 'pino';
import { ConfigError, loadConfig } from '../shared/config';
import { createLogger, errorFields, type Logger } from '../shared/logging/logger';
import type { Clock } from '../shared/ports/clock';
import { runWithTimeBudget } from '../shared/resilience/time-budget';
import type { Database } from '../shared/db/database';
import { migrateDatabase } from '../shared/db/migrate';
import { openDatabase } from '../shared/db/open-database';

/** `npm run migrate` waits this long for another migrator (a second release step running at once)… */
export const MIGRATE_LOCK_TIMEOUT_MS = 60_000;

/** …and retries a lock not granted, or a passing fault, for this long in all. */
export const MIGRATE_BUDGET_MS = 3 * 60_000;

/** And lets one statement (DDL on a large table) run this long. */
export const MIGRATE_REQUEST_TIMEOUT_MS = 10 * 60_000;

export interface MigrateCommandOptions {
  /** Tests capture log lines here; the command writes to stdout. */
  logDestination?: DestinationStream;
  clock?: Clock;
}

/**
 * `npm run migrate`: reads the configuration from `env`, applies the pending migrations to the
 * configured database and logs the outcome. Resolves with the process exit code: 0 when the
 * schema is current, 1 when the configuration, the database or a migration failed.
 * @param env the variables to read; the script passes `process.env`.
 */
export async function runMigrateCommand(
  env: Readonly<Record<string, string | undefined>>,
  options: MigrateCommandOptions = {},
): Promise<number> {
  const destination = options.logDestination ? { destination: options.logDestination } : {};
  let logger: Logger;
  let database: Database;
  try {
    const config = loadConfig(env);
    logger = createLogger({ service: config.serviceName, level: config.logLevel, pretty: config.logPretty, ...destination });
    // A migration may wait for another one and alter large tables: longer than a request may.
    database = openDatabase(config.database, { logger, mssqlRequestTimeoutMs: MIGRATE_REQUEST_TIMEOUT_MS });
  } catch (error) {
    const fallback = createLogger({ service: 'migrate', level: 'info', ...destination });
    const problems = error instanceof ConfigError ? { problems: error.problems } : {};
    fallback.error({ errorCode: 'invalid_configuration', ...problems, ...errorFields(error) }, 'migration not started');
    return 1;
  }

  try {
    const result = await runWithTimeBudget(MIGRATE_BUDGET_MS, () =>
      migrateDatabase(database, {
        logger,
        lockTimeoutMs: MIGRATE_LOCK_TIMEOUT_MS,
        ...(options.clock ? { clock: options.clock } : {}),
      }),
    );
    logger.info(
      { dialect: database.dialect, applied: result.applied, appliedCount: result.applied.length },
      result.applied.length > 0 ? 'database schema migrated' : 'database schema already current',
    );
    return 0;
  } catch (error) {
    logger.error({ errorCode: 'migration_failed', dialect: database.dialect, ...errorFields(error) }, 'database migration failed');
    return 1;
  } finally {
    await database.close().catch((error: unknown) => {
      logger.warn({ ...errorFields(error) }, 'database did not close cleanly');
    });
  }
}
