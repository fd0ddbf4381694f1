import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogSink } from '../helpers/log-sink';
import { runMigrateCommand } from '../../scripts/migrate-command';
import { sqliteMigrations } from '../../shared/db/migrations/sqlite';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'migrate-command-'));
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('runMigrateCommand', () => {
  it('migrates the configured SQLite file, exits 0, and exits 0 again with nothing to do', async () => {
    const env = { APP_ENV: 'development', SQLITE_PATH: join(folder, 'data', 'app.sqlite') };
    const first = new LogSink();
    expect(await runMigrateCommand(env, { logDestination: first })).toBe(0);
    expect(first.withMessage('database schema migrated')).toMatchObject([
      { level: 'info', dialect: 'sqlite', applied: sqliteMigrations.map((migration) => migration.name) },
    ]);

    const second = new LogSink();
    expect(await runMigrateCommand(env, { logDestination: second })).toBe(0);
    expect(second.withMessage('database schema already current')).toMatchObject([{ applied: [], appliedCount: 0 }]);
  });

  it('exits 1 with an error line when the database cannot be opened', async () => {
    const blocker = join(folder, 'file');
    writeFileSync(blocker, 'not a folder');
    const sink = new LogSink();
    expect(await runMigrateCommand({ SQLITE_PATH: join(blocker, 'app.sqlite') }, { logDestination: sink })).toBe(1);
    const [line] = sink.withMessage('database migration failed');
    expect(line).toMatchObject({ level: 'error', errorCode: 'migration_failed', errorType: 'DependencyUnavailableError' });
  });

  it('exits 1 for bad configuration without writing the secret it was given', async () => {
    const sink = new LogSink();
    const env = { APP_ENV: 'production', SQL_CONNECTION_STRING: 'Server=db;User Id=app;Password=CanaryS3cret' };
    expect(await runMigrateCommand(env, { logDestination: sink })).toBe(1);
    expect(sink.withMessage('migration not started')).toMatchObject([{ level: 'error', errorCode: 'invalid_configuration' }]);
    expect(sink.text).not.toContain('CanaryS3cret');
  });
});
