import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database, SqlExecutor } from '../../shared/db/database';
import { UniqueViolationError } from '../../shared/db/database-errors';
import { migrateDatabase, migrationsFor } from '../../shared/db/migrate';
import type { TestDatabase, TestDatabaseFactory } from './test-databases';

/**
 * What every `Database` adapter must do, run against each engine. The statements are the same
 * text on both engines (only the scratch table's DDL differs), as in production code.
 */

const PROBE_TABLE: Readonly<Record<Database['dialect'], string>> = {
  sqlite: `CREATE TABLE ContractProbe (
    id TEXT NOT NULL PRIMARY KEY, label TEXT NULL, amount INTEGER NULL, ratio REAL NULL, flag INTEGER NULL, at TEXT NULL
  ) STRICT`,
  mssql: `CREATE TABLE dbo.ContractProbe (
    id nvarchar(64) NOT NULL PRIMARY KEY, label nvarchar(200) NULL, amount int NULL, ratio float NULL, flag bit NULL,
    at datetime2(3) NULL
  )`,
};

interface ProbeRow {
  id: string;
  label: string | null;
  amount: number | null;
  ratio: number | null;
  flag: number | null;
  at: string | null;
}

const INSERT_PROBE = `INSERT INTO ContractProbe (id, label, amount, ratio, flag, at)
  VALUES (@id, @label, @amount, @ratio, @flag, @at)`;

function insertProbe(executor: SqlExecutor, id: string, fields: Partial<Omit<ProbeRow, 'flag'>> & { flag?: boolean | null } = {}) {
  return executor.execute(INSERT_PROBE, {
    id,
    label: fields.label ?? null,
    amount: fields.amount ?? null,
    ratio: fields.ratio ?? null,
    flag: fields.flag ?? null,
    at: fields.at ?? null,
  });
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Registers the contract suite of the `Database` port for one engine.
 * @param name the engine, shown in the suite's title.
 * @param factory a fresh, empty database per test.
 */
export function describeDatabaseContract(name: string, factory: TestDatabaseFactory): void {
  describe(`Database contract: ${name}`, () => {
    let handle: TestDatabase;
    let db: Database;

    beforeEach(async () => {
      handle = await factory();
      db = handle.db;
      await db.execute(PROBE_TABLE[db.dialect]);
    });
    afterEach(async () => {
      await handle.dispose();
    });

    const probeIds = async () =>
      (await db.query<{ id: string }>('SELECT id FROM ContractProbe ORDER BY id')).map((row) => row.id);

    it('round-trips strings, numbers, null and booleans through named parameters', async () => {
      const label = "O'Brien; -- not a comment, ünïcødé 😀 and @notAParameter";
      await insertProbe(db, 'p1', { label, amount: -2147483647, ratio: 0.25, flag: true });
      await insertProbe(db, 'p2', { label: '', amount: 0, flag: false });
      await insertProbe(db, 'p3');

      const rows = await db.query<ProbeRow>(
        "SELECT id, label, amount, ratio, flag, at FROM ContractProbe WHERE id <> '@id' ORDER BY id",
      );
      expect(rows).toEqual([
        { id: 'p1', label, amount: -2147483647, ratio: 0.25, flag: 1, at: null },
        { id: 'p2', label: '', amount: 0, ratio: null, flag: 0, at: null },
        { id: 'p3', label: null, amount: null, ratio: null, flag: null, at: null },
      ]);
      const flagged = await db.query<{ id: string }>('SELECT id FROM ContractProbe WHERE flag = @flag', { flag: true });
      expect(flagged).toEqual([{ id: 'p1' }]);
      const sum = await db.query<{ total: number }>('SELECT amount + @step AS total FROM ContractProbe WHERE id = @id', {
        id: 'p2',
        step: 7,
      });
      expect(sum).toEqual([{ total: 7 }]);
    });

    it('counts the rows a statement changed', async () => {
      for (const id of ['a', 'b', 'c']) expect(await insertProbe(db, id, { amount: 1 })).toBe(1);
      expect(await db.execute('UPDATE ContractProbe SET amount = @amount WHERE id <> @id', { amount: 2, id: 'a' })).toBe(2);
      expect(await db.execute('DELETE FROM ContractProbe WHERE id = @id', { id: 'nope' })).toBe(0);
    });

    it('returns timestamps as the ISO 8601 UTC strings that were written', async () => {
      const instants = ['2024-02-29T23:59:59.123Z', '2023-12-31T00:00:00.000Z', '2024-03-01T00:00:00.001Z'];
      for (const [index, at] of instants.entries()) await insertProbe(db, `t${index}`, { at });
      const rows = await db.query<{ at: string }>('SELECT at FROM ContractProbe ORDER BY at');
      expect(rows.map((row) => row.at)).toEqual([...instants].sort());
      const later = await db.query<{ id: string }>('SELECT id FROM ContractProbe WHERE at > @since ORDER BY id', {
        since: '2024-02-29T23:59:59.123Z',
      });
      expect(later).toEqual([{ id: 't2' }]);
    });

    it('commits a transaction and resolves with what the callback returned', async () => {
      const result = await db.transaction(async (tx) => {
        await insertProbe(tx, 'c1');
        await insertProbe(tx, 'c2');
        return (await tx.query<{ id: string }>('SELECT id FROM ContractProbe ORDER BY id')).length;
      });
      expect(result).toBe(2);
      expect(await probeIds()).toEqual(['c1', 'c2']);
    });

    it('rolls back everything when the callback throws, and rethrows that very error', async () => {
      await insertProbe(db, 'before');
      const failure = new Error('mid-transaction failure');
      await expect(
        db.transaction(async (tx) => {
          await insertProbe(tx, 'r1');
          await tx.execute('UPDATE ContractProbe SET label = @label WHERE id = @id', { label: 'changed', id: 'before' });
          await delay(5);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await db.query('SELECT id, label FROM ContractProbe')).toEqual([{ id: 'before', label: null }]);
    });

    it('rolls back when a statement in the transaction fails', async () => {
      await insertProbe(db, 'dup');
      await expect(
        db.transaction(async (tx) => {
          await insertProbe(tx, 'r1');
          await insertProbe(tx, 'dup');
        }),
      ).rejects.toBeInstanceOf(UniqueViolationError);
      expect(await probeIds()).toEqual(['dup']);
    });

    it('keeps a plain statement out of a transaction that is running', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let signalInserted!: () => void;
      const inserted = new Promise<void>((resolve) => (signalInserted = resolve));
      const failing = db.transaction(async (tx) => {
        await insertProbe(tx, 'in-tx');
        signalInserted();
        await gate;
        throw new Error('abandon');
      });
      await inserted;
      const plainInsert = insertProbe(db, 'plain');
      const readDuringTransaction = db.query<{ id: string }>('SELECT id FROM ContractProbe');
      await delay(20);
      release();
      await expect(failing).rejects.toThrow('abandon');
      expect(await plainInsert).toBe(1);
      expect((await readDuringTransaction).map((row) => row.id)).not.toContain('in-tx');
      expect(await probeIds()).toEqual(['plain']);
    });

    it('runs two concurrent transactions without mixing their statements', async () => {
      const committing = db.transaction(async (tx) => {
        await insertProbe(tx, 'a1');
        await delay(10);
        await insertProbe(tx, 'a2');
      });
      const failing = db.transaction(async (tx) => {
        await insertProbe(tx, 'b1');
        await delay(5);
        await insertProbe(tx, 'b2');
        throw new Error('b fails');
      });
      await committing;
      await expect(failing).rejects.toThrow('b fails');
      expect(await probeIds()).toEqual(['a1', 'a2']);
    });

    it('runs statements that a transaction sends side by side', async () => {
      await db.transaction(async (tx) => {
        await Promise.all(['s1', 's2', 's3', 's4'].map((id) => insertProbe(tx, id)));
        const counts = await Promise.all([1, 2, 3].map(() => tx.query('SELECT id FROM ContractProbe')));
        expect(counts.map((rows) => rows.length)).toEqual([4, 4, 4]);
      });
      expect(await probeIds()).toEqual(['s1', 's2', 's3', 's4']);
    });

    it('refuses a statement sent through the database inside its own transaction', async () => {
      await expect(db.transaction(async () => db.query('SELECT id FROM ContractProbe'))).rejects.toThrow(/use the `tx`/);
      await expect(db.transaction(async () => db.transaction(async () => 1))).rejects.toThrow(/use the `tx`/);
      // The database still works afterwards.
      expect(await insertProbe(db, 'after')).toBe(1);
    });

    it('refuses a statement sent through a transaction that has finished', async () => {
      let leaked: SqlExecutor | undefined;
      await db.transaction(async (tx) => {
        leaked = tx;
      });
      await expect(insertProbe(leaked as SqlExecutor, 'late')).rejects.toThrow(/already finished/);
      expect(await probeIds()).toEqual([]);
    });

    it('reports a duplicate key as UniqueViolationError', async () => {
      await insertProbe(db, 'same');
      const error = await insertProbe(db, 'same').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UniqueViolationError);
      expect((error as Error).cause).toBeDefined();
    });

    it('refuses a statement whose placeholder has no value', async () => {
      await expect(db.query('SELECT id FROM ContractProbe WHERE id = @id')).rejects.toThrow(/@id/);
    });

    it('answers ping with a real statement', async () => {
      await expect(db.ping()).resolves.toBeUndefined();
    });

    it('applies the migrations once: a second run applies nothing', async () => {
      const names = migrationsFor(db.dialect).map((migration) => migration.name);
      expect(await migrateDatabase(db)).toEqual({ applied: names });
      expect(await migrateDatabase(db)).toEqual({ applied: [] });
      const recorded = await db.query<{ name: string; appliedAt: string }>(
        'SELECT name, appliedAt FROM SchemaMigrations ORDER BY name',
      );
      expect(recorded.map((row) => row.name)).toEqual(names);
      for (const row of recorded) expect(row.appliedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });
  });
}
