/**
 * Runs tasks one at a time, in the order they were queued. The SQLite adapter uses one per
 * connection (a transaction spans awaits, and nothing else may run on the connection meanwhile);
 * the SQL Server adapter uses one per transaction (a transaction's connection takes one request at
 * a time).
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves or rejects with `task`'s outcome once every task queued before it has settled. */
  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    // The next task waits for this one to settle, whatever its outcome.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
