import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Catches a statement sent through the `Database` from inside one of its own transactions. On
 * SQLite it would wait for the transaction that waits for it (a deadlock); on SQL Server it would
 * run outside the transaction and could block on the transaction's own locks. Either way it is a
 * bug: the callback must use the `tx` it was given.
 */
export class TransactionScope {
  private readonly storage = new AsyncLocalStorage<{ open: boolean }>();

  /** Runs `work` marked as inside a transaction until the returned promise settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const marker = { open: true };
    try {
      return await this.storage.run(marker, work);
    } finally {
      // Tasks that `work` started and did not await keep the marker; once closed it no longer binds them.
      marker.open = false;
    }
  }

  /** Throws when called from inside a transaction of this database. */
  assertOutside(): void {
    if (this.storage.getStore()?.open) {
      throw new Error('Statement sent through the Database inside its own transaction: use the `tx` passed to the callback');
    }
  }
}
