import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildAppServices } from './composition-root';

const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The tables of a fresh SQLite file after the services opened it. */
async function tablesAfterOpen(env: Record<string, string>): Promise<string[]> {
  const directory = mkdtempSync(path.join(tmpdir(), 'migrate-on-open-'));
  directories.push(directory);
  const services = buildAppServices({ ...env, SQLITE_PATH: path.join(directory, 'db.sqlite') }, { logDestination: silent });
  try {
    const db = await services.database.get();
    const rows = await db.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    return rows.map((row) => row.name);
  } finally {
    await services.database.close();
  }
}

describe('migrate on open', () => {
  it('brings the schema up to date on first open outside production', async () => {
    expect((await tablesAfterOpen({ APP_ENV: 'test' })).length).toBeGreaterThan(5);
  });

  it('opens the database as production does, schema untouched, with MIGRATE_ON_OPEN=false', async () => {
    expect(await tablesAfterOpen({ APP_ENV: 'test', MIGRATE_ON_OPEN: 'false' })).toEqual([]);
  });
});
