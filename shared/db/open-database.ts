import type { Config } from '../config';
import type { Logger } from '../logging/logger';
import type { Database } from './database';
import { createMssqlDatabase } from './mssql-database';
import { createSqliteDatabase } from './sqlite-database';

export interface OpenDatabaseOptions {
  /** Receives connection-pool trouble that no caller is waiting for (SQL Server). */
  logger?: Logger;
  /** SQLite only: how long to wait for another process's write lock; default 5000 ms. */
  sqliteBusyTimeoutMs?: number;
  /** SQL Server only: how long one statement may run; default the connection string's, else 15 s. */
  mssqlRequestTimeoutMs?: number;
}

/**
 * The configured database: SQL Server when `SQL_CONNECTION_STRING` is set, else the SQLite file.
 * Nothing is connected yet; the first statement connects, and a database that cannot be reached
 * rejects that statement (and `ping`) with `DependencyUnavailableError('database')`, so the app
 * starts and `/api/ready` answers 503 until it can. Throws `ConfigError` for an unusable setting.
 * @param config `config.database`.
 */
export function openDatabase(config: Config['database'], options: OpenDatabaseOptions = {}): Database {
  switch (config.kind) {
    case 'sqlite':
      return createSqliteDatabase(
        config.path,
        options.sqliteBusyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.sqliteBusyTimeoutMs },
      );
    case 'mssql':
      return createMssqlDatabase(config.connectionString, {
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.mssqlRequestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.mssqlRequestTimeoutMs }),
      });
  }
}
