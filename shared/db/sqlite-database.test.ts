import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import type { Database } from './database';
import { createSqliteDatabase } from './sqlite-database';

let folder: string;
const opened: Database[] = [];

function open(path: string, busyTimeoutMs?: number): Database {
  const db = createSqliteDatabase(path, busyTimeoutMs === undefined ? {} : { busyTimeoutMs });
  opened.push(db);
  return db;
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'sqlite-db-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
  rmSync(folder, { recursive: true, force: true });
});

/**
 * Runs a second process that takes the file's write lock, inserts a row and holds the lock for
 * `holdMs`; resolves once the lock is held, with a promise of the process's exit code.
 */
async function holdWriteLockInAnotherProcess(path: string, holdMs: number): Promise<{ exited: Promise<number | null> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    db.exec("INSERT INTO Probe (id) VALUES ('other-process')");
    process.stdout.write('locked\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.argv[2]));
    db.exec('COMMIT');
    db.close();`;
  const child = spawn(process.execPath, ['-e', script, path, String(holdMs)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited early with ${code}`)));
  });
  return { exited };
}

describe('createSqliteDatabase', () => {
  it('opens on first use, creating the missing folders of the file', async () => {
    const path = join(folder, 'nested', 'deeper', 'app.sqlite');
    const db = open(path);
    expect(existsSync(path)).toBe(false);
    await db.ping();
    expect(existsSync(path)).toBe(true);
  });

  it('turns on WAL, foreign keys and the busy timeout', async () => {
    const db = open(join(folder, 'app.sqlite'), 1234);
    expect(await db.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await db.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    expect(await db.query('PRAGMA busy_timeout')).toEqual([{ timeout: 1234 }]);
  });

  it('fails cleanly, and heals, when the file cannot be created', async () => {
    const blocker = join(folder, 'not-a-folder');
    writeFileSync(blocker, 'a file where the folder should be');
    const db = open(join(blocker, 'app.sqlite'));

    const error = await db.ping().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).dependency).toBe('database');
    expect((error as Error).cause).toBeInstanceOf(Error);
    await expect(db.execute('CREATE TABLE Probe (id TEXT)')).rejects.toBeInstanceOf(DependencyUnavailableError);

    rmSync(blocker);
    await expect(db.ping()).resolves.toBeUndefined();
  });

  it('fails cleanly when the file is not a database', async () => {
    const path = join(folder, 'garbage.sqlite');
    writeFileSync(path, 'this is not an SQLite database, just enough bytes to be read as a header....'.repeat(20));
    await expect(open(path).ping()).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it("waits for another process's write lock, up to the busy timeout", async () => {
    const path = join(folder, 'shared.sqlite');
    const db = open(path);
    await db.execute('CREATE TABLE Probe (id TEXT PRIMARY KEY)');

    const holder = await holdWriteLockInAnotherProcess(path, 300);
    const started = Date.now();
    await db.transaction((tx) => tx.execute("INSERT INTO Probe (id) VALUES ('this-process')"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(await holder.exited).toBe(0);
    expect(await db.query('SELECT id FROM Probe ORDER BY id')).toEqual([{ id: 'other-process' }, { id: 'this-process' }]);
  });

  it('reports a lock held past the busy timeout as an unavailable database', async () => {
    const path = join(folder, 'shared.sqlite');
    await open(path).execute('CREATE TABLE Probe (id TEXT PRIMARY KEY)');
    const impatient = open(path, 50);
    await impatient.ping();

    const holder = await holdWriteLockInAnotherProcess(path, 400);
    await expect(impatient.transaction((tx) => tx.execute("INSERT INTO Probe (id) VALUES ('x')"))).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    expect(await holder.exited).toBe(0);
    // The failed transaction left the connection usable.
    await expect(impatient.execute("INSERT INTO Probe (id) VALUES ('after')")).resolves.toBe(1);
  });

  it('runs a transaction asked to go first before the statements already waiting for the connection', async () => {
    const db = open(join(folder, 'first.sqlite'));
    await db.execute('CREATE TABLE Events (n INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)');
    let release: () => void = () => undefined;
    // A transaction holding the connection, with writes queued behind it.
    const holding = db.transaction(async (tx) => {
      await tx.execute("INSERT INTO Events (name) VALUES ('holding')");
      await new Promise<void>((resolve) => (release = resolve));
    });
    await new Promise((resolve) => setImmediate(resolve));
    const queued = ['sms-1', 'sms-2', 'sms-3'].map((name) => db.execute('INSERT INTO Events (name) VALUES (@name)', { name }));
    const answer = db.transaction((tx) => tx.execute("INSERT INTO Events (name) VALUES ('push-answer')"), { first: true });
    release();
    await Promise.all([holding, ...queued, answer]);
    expect((await db.query<{ name: string }>('SELECT name FROM Events ORDER BY n')).map((row) => row.name)).toEqual([
      'holding',
      'push-answer',
      'sms-1',
      'sms-2',
      'sms-3',
    ]);
  });

  it('binds whole numbers as INTEGER and others as REAL, as SQL Server types them', async () => {
    const db = open(':memory:');
    expect(await db.query('SELECT typeof(@whole) AS whole, typeof(@fraction) AS fraction', { whole: 3, fraction: 0.5 })).toEqual([
      { whole: 'integer', fraction: 'real' },
    ]);
  });

  it('refuses SQL text with more than one statement instead of running only the first', async () => {
    const db = open(':memory:');
    await expect(db.execute('CREATE TABLE A (x TEXT); CREATE TABLE B (y TEXT)')).rejects.toThrow(/One statement per call/);
    expect(await db.query("SELECT name FROM sqlite_master WHERE type = 'table'")).toEqual([]);
    await expect(db.execute('CREATE TABLE A (x TEXT); -- trailing comment\n')).resolves.toBe(0);
  });

  it('refuses parameters the statement does not use, and values it cannot bind', async () => {
    const db = open(':memory:');
    await expect(db.query('SELECT @a AS a', { a: 1, b: 2 })).rejects.toThrow(/@b is not used/);
    await expect(db.query('SELECT @a AS a', { a: Number.NaN })).rejects.toThrow(/finite/);
    await expect(db.query('SELECT @a AS a', { a: undefined as unknown as null })).rejects.toThrow(/unsupported type/);
  });

  it('rejects statements once closed', async () => {
    const db = open(':memory:');
    await db.ping();
    await db.close();
    await expect(db.ping()).rejects.toThrow(/closed/);
    await expect(db.close()).resolves.toBeUndefined();
  });
});
