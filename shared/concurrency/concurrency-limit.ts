/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait in arrival order. Used by
 * the secret hasher so a burst of sign-ins queues for Argon2 instead of starting one 19 MiB,
 * CPU-bound computation per request, which would exhaust memory and libuv's thread pool.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('concurrency limit must be a whole number ≥ 1');
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a free slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `task` once a slot is free; resolves or rejects with its outcome, freeing the slot either way. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      if (next) next();
      else this.running -= 1;
    }
  }
}
