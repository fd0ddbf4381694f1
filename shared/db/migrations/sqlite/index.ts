import type { MigrationDefinition } from '../../migration';
import * as auditLog from './0001-audit-log';

/** SQLite's migrations, in order; names match `../mssql/index.ts` one for one. */
export const sqliteMigrations: readonly MigrationDefinition[] = [{ name: '0001-audit-log', up: auditLog.up }];
