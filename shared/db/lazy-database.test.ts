import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import type { Database } from './database';
import { lazyDatabase } from './lazy-database';

function fakeDatabase(): Database & { closed: number } {
  const database = { closed: 0, close: async () => void (database.closed += 1) };
  return database as unknown as Database & { closed: number };
}

describe('lazyDatabase', () => {
  it('opens once for concurrent callers and again after a failed attempt', async () => {
    let opens = 0;
    const database = fakeDatabase();
    const provider = lazyDatabase(async () => {
      opens += 1;
      if (opens === 1) throw new Error('ECONNREFUSED');
      return database;
    });
    await expect(provider.get()).rejects.toBeInstanceOf(DependencyUnavailableError);
    const [first, second] = await Promise.all([provider.get(), provider.get()]);
    expect(first).toBe(database);
    expect(second).toBe(database);
    expect(opens).toBe(2);
  });

  it('does not reopen the database once it was closed for shutdown: get fails as unavailable', async () => {
    let opens = 0;
    const database = fakeDatabase();
    const provider = lazyDatabase(async () => {
      opens += 1;
      return database;
    });
    await provider.get();
    await provider.close();
    expect(database.closed).toBe(1);
    const refused = await provider.get().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DependencyUnavailableError);
    expect((refused as DependencyUnavailableError).dependency).toBe('database');
    expect(opens).toBe(1);
  });

  it('closes a database whose opening was still under way at the close', async () => {
    const database = fakeDatabase();
    let finishOpen: () => void = () => undefined;
    const provider = lazyDatabase(
      () =>
        new Promise<Database>((resolve) => {
          finishOpen = () => resolve(database);
        }),
    );
    const pending = provider.get();
    const closing = provider.close();
    finishOpen();
    await pending;
    await closing;
    expect(database.closed).toBe(1);
    await expect(provider.get()).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
