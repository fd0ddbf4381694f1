import { Umzug } from 'umzug';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import type { Logger } from '../logging/logger';
import { systemClock, type Clock } from '../ports/clock';
import type { Database, Dialect } from './database';
import type { MigrationDefinition } from './migration';
import { mssqlMigrations } from './migrations/mssql';
import { sqliteMigrations } from './migrations/sqlite';
import {
  forgetMigration,
  isMigrationApplied,
  lockSchemaMigrations,
  recordMigration,
  schemaMigrationsStorage,
} from './schema-migrations';

/** The migrations of `dialect`, in order. */
export function migrationsFor(dialect: Dialect): readonly MigrationDefinition[] {
  return dialect === 'sqlite' ? sqliteMigrations : mssqlMigrations;
}

export interface MigrationResult {
  /** The migrations this run applied, in order; empty when the schema was already current. */
  applied: string[];
}

export interface MigratorOptions {
  logger?: Logger;
  clock?: Clock;
  /** How long to wait for another migrator; default `DEFAULT_MIGRATION_LOCK_TIMEOUT_MS`. */
  lockTimeoutMs?: number;
}

/**
 * An umzug migrator for `db`. Each migration runs in one transaction that takes the migration lock,
 * skips the migration if another process applied it meanwhile, applies it and records it, so two
 * instances starting together cannot both apply one.
 * @param onApplied told the name of each migration this migrator actually applies.
 */
export function createMigrator(
  db: Database,
  options: MigratorOptions = {},
  onApplied: (name: string) => void = () => undefined,
): Umzug<{ db: Database }> {
  const clock = options.clock ?? systemClock;
  const now = () => clock.now().toISOString();
  return new Umzug({
    context: { db },
    storage: schemaMigrationsStorage(db, now, options.lockTimeoutMs),
    logger: umzugLogger(options.logger),
    migrations: migrationsFor(db.dialect).map((definition) => ({
      name: definition.name,
      up: async ({ context }) => {
        const applied = await context.db.transaction(async (tx) => {
          await lockSchemaMigrations(tx, options.lockTimeoutMs);
          if (await isMigrationApplied(tx, definition.name)) return false;
          await definition.up(tx);
          await recordMigration(tx, definition.name, now());
          return true;
        });
        if (applied) onApplied(definition.name);
      },
      down: ({ context }) =>
        context.db.transaction(async (tx) => {
          if (!definition.down) throw new Error(`Migration ${definition.name} cannot be reverted`);
          await lockSchemaMigrations(tx, options.lockTimeoutMs);
          if (!(await isMigrationApplied(tx, definition.name))) return;
          await definition.down(tx);
          await forgetMigration(tx, definition.name);
        }),
    })),
  });
}

/**
 * Brings `db`'s schema up to date; running it again applies nothing. Rejects with
 * `DependencyUnavailableError('database')` when the database cannot be reached, and with umzug's
 * error (the failing migration named, the cause attached) when a migration fails.
 * @param options `logger` gets one line per migration run, `clock` stamps `SchemaMigrations.appliedAt`.
 */
export async function migrateDatabase(db: Database, options: MigratorOptions = {}): Promise<MigrationResult> {
  const applied: string[] = [];
  const migrator = createMigrator(db, options, (name) => applied.push(name));
  try {
    await migrator.up();
  } catch (error) {
    throw unavailableCause(error) ?? error;
  }
  return { applied };
}

/** Umzug wraps a migration's error; a database that is down is worth reporting as such. */
function unavailableCause(error: unknown): DependencyUnavailableError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof DependencyUnavailableError) return current;
  }
  return undefined;
}

type UmzugLogFn = (record: Record<string, unknown>) => void;

const EVENT_MESSAGES: Readonly<Record<string, string>> = {
  migrating: 'schema migration starting',
  migrated: 'schema migration applied',
  reverting: 'schema migration reverting',
  reverted: 'schema migration reverted',
};

function umzugLogger(logger: Logger | undefined): Record<'info' | 'warn' | 'error' | 'debug', UmzugLogFn> | undefined {
  if (!logger) return undefined;
  const line =
    (level: 'info' | 'warn' | 'error' | 'debug'): UmzugLogFn =>
    (record) => {
      const fields: Record<string, unknown> = { migration: record.name };
      if (typeof record.durationSeconds === 'number') fields.durationMs = Math.round(record.durationSeconds * 1000);
      logger[level](fields, EVENT_MESSAGES[String(record.event)] ?? 'schema migration event');
    };
  return { info: line('info'), warn: line('warn'), error: line('error'), debug: line('debug') };
}
