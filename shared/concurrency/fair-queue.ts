/**
 * A concurrency limit with a bounded, fair waiting line: at most `limit` tasks run at once; the
 * rest wait in per-client lines served round-robin (one task from each client that waits, in
 * turn), so a client that floods the queue waits behind itself, not in front of everyone else.
 * Nobody waits for ever: past `maxQueued` waiting tasks, or `maxWaitMs` in line, a task is refused
 * with `QueueRefusal` instead of run. The secret hasher puts Argon2 behind one, keyed by the
 * client's address bucket.
 */

export interface FairQueueOptions {
  /** Tasks running at once (a whole number ≥ 1). */
  limit: number;
  /** Tasks waiting at most, all clients together (a whole number ≥ 1). */
  maxQueued: number;
  /** The longest a task waits for its turn, in milliseconds (≥ 1). */
  maxWaitMs: number;
}

/**
 * Why a task was refused: the line was `full` and its client held the most places in it (the
 * newcomer, or the newest of the client with the longest line, makes room), or it waited
 * `maxWaitMs` (`timeout`). The task never ran.
 */
export class QueueRefusal extends Error {
  override readonly name = 'QueueRefusal';
  constructor(
    readonly reason: 'full' | 'timeout',
    /** Whole seconds after which trying again is sensible (≥ 1). */
    readonly retryAfterSeconds: number,
  ) {
    super(reason === 'full' ? 'the waiting line is full' : 'waited too long for a turn');
  }
}

interface Waiter {
  start(): void;
  refuse(refusal: QueueRefusal): void;
  timer: ReturnType<typeof setTimeout>;
}

export class FairQueue {
  private running = 0;
  private waitingCount = 0;
  /** Each waiting client's line; the Map's order is the round-robin order. */
  private readonly lines = new Map<string, Waiter[]>();
  private readonly retryAfterSeconds: number;

  constructor(private readonly options: FairQueueOptions) {
    for (const [name, value] of Object.entries({ limit: options.limit, maxQueued: options.maxQueued, maxWaitMs: options.maxWaitMs })) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number ≥ 1`);
    }
    this.retryAfterSeconds = Math.max(1, Math.ceil(options.maxWaitMs / 1000));
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a turn now. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Clients with a task waiting now. */
  get waitingClients(): number {
    return this.lines.size;
  }

  /**
   * Runs `task` now if a slot is free, else once it is `client`'s turn; resolves or rejects with
   * its outcome, freeing the slot either way. Rejects with `QueueRefusal` (the task not run) when
   * the line is full and `client` holds the most places in it, or when the wait runs out.
   * @param client the key tasks are served fairly across (a client address bucket).
   */
  async run<T>(client: string, task: () => Promise<T>): Promise<T> {
    if (this.running < this.options.limit && this.waitingCount === 0) {
      this.running += 1;
    } else {
      await this.wait(client);
    }
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private wait(client: string): Promise<void> {
    if (this.waitingCount >= this.options.maxQueued && !this.makeRoomFor(client)) {
      return Promise.reject(new QueueRefusal('full', this.retryAfterSeconds));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        refuse: reject,
        timer: setTimeout(() => {
          this.remove(client, waiter);
          reject(new QueueRefusal('timeout', this.retryAfterSeconds));
        }, this.options.maxWaitMs),
      };
      // A wait must not keep the process alive on its own (a shutdown would otherwise wait for it).
      waiter.timer.unref?.();
      const line = this.lines.get(client);
      if (line) line.push(waiter);
      else this.lines.set(client, [waiter]);
      this.waitingCount += 1;
    });
  }

  /**
   * The line is full: when another client holds more places than `client` would with the newcomer,
   * that client's newest waiter is refused to make room (so a flood can only push itself out).
   * @returns false when `client` itself holds the most: the newcomer is the one refused.
   */
  private makeRoomFor(client: string): boolean {
    const own = (this.lines.get(client)?.length ?? 0) + 1;
    let longest: { client: string; line: Waiter[] } | undefined;
    for (const [key, line] of this.lines) {
      if (key !== client && line.length > own && (!longest || line.length > longest.line.length)) longest = { client: key, line };
    }
    if (!longest) return false;
    const evicted = longest.line.pop();
    if (!evicted) return false;
    if (longest.line.length === 0) this.lines.delete(longest.client);
    this.waitingCount -= 1;
    clearTimeout(evicted.timer);
    evicted.refuse(new QueueRefusal('full', this.retryAfterSeconds));
    return true;
  }

  /** A task ended: its slot goes straight to the next client in turn, so a newcomer cannot overtake the line. */
  private release(): void {
    const next = this.nextWaiter();
    if (next) next.start();
    else this.running -= 1;
  }

  private nextWaiter(): Waiter | undefined {
    const first = this.lines.entries().next();
    if (first.done) return undefined;
    const [client, line] = first.value;
    const waiter = line.shift();
    // Served: the client goes to the back of the round, or leaves it when it has nobody waiting.
    this.lines.delete(client);
    if (line.length > 0) this.lines.set(client, line);
    if (!waiter) return undefined;
    this.waitingCount -= 1;
    clearTimeout(waiter.timer);
    return waiter;
  }

  private remove(client: string, waiter: Waiter): void {
    const line = this.lines.get(client);
    const index = line?.indexOf(waiter) ?? -1;
    if (!line || index < 0) return;
    line.splice(index, 1);
    if (line.length === 0) this.lines.delete(client);
    this.waitingCount -= 1;
  }
}
