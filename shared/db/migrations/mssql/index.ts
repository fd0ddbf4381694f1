import type { MigrationDefinition } from '../../migration';
import * as auditLog from './0001-audit-log';

/** SQL Server's migrations, in order; names match `../sqlite/index.ts` one for one. */
export const mssqlMigrations: readonly MigrationDefinition[] = [{ name: '0001-audit-log', up: auditLog.up }];
