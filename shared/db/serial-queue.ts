/**
 * Runs tasks one at a time, in the order they were queued; a task queued with `runFirst` goes
 * before every task not started yet (after the other `runFirst` tasks waiting). The SQLite adapter
 * uses one per connection (a transaction spans awaits, and nothing else may run on the connection
 * meanwhile); the SQL Server adapter uses one per transaction (a transaction's connection takes
 * one request at a time).
 */
export class SerialQueue {
  private readonly waiting: (() => Promise<void>)[] = [];
  /** How many of `waiting`'s first entries were queued with `runFirst`. */
  private firstWaiting = 0;
  private draining = false;

  /** Resolves or rejects with `task`'s outcome once every task queued before it has settled. */
  run<T>(task: () => T | Promise<T>): Promise<T> {
    return this.enqueue(task, false);
  }

  /**
   * Resolves or rejects with `task`'s outcome once the task running now (and any `runFirst` task
   * queued before it) has settled: ahead of the tasks still waiting.
   */
  runFirst<T>(task: () => T | Promise<T>): Promise<T> {
    return this.enqueue(task, true);
  }

  private enqueue<T>(task: () => T | Promise<T>, first: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job = async (): Promise<void> => {
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        }
      };
      if (first) {
        this.waiting.splice(this.firstWaiting, 0, job);
        this.firstWaiting += 1;
      } else {
        this.waiting.push(job);
      }
      if (!this.draining) {
        this.draining = true;
        // Started on a later turn, as a chained promise would: never inside the caller's own call.
        queueMicrotask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    for (let job = this.waiting.shift(); job; job = this.waiting.shift()) {
      if (this.firstWaiting > 0) this.firstWaiting -= 1;
      await job();
    }
    this.draining = false;
  }
}
