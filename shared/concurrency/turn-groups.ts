/**
 * Work asked for in the same turn of the event loop, done together: `ask(item)` joins the group
 * of items asked for before the next `setImmediate`, and `run` takes each group (at most
 * `maxItems`) in one call, one group at a time; items asked for while a group runs form the next
 * one. How the sends that start together (a batch filling its slots, the answers read in one poll
 * of the sockets) share one statement instead of one each, without any item waiting for work that
 * has not been asked for yet.
 */
export class TurnGroups<Item, Answer> {
  private waiting: { item: Item; resolve(answer: Answer): void; reject(error: unknown): void }[] = [];
  private running = false;

  /**
   * @param run answers a group's items, in order (one answer per item); when it throws, every item
   *   of the group is refused with its error, and the next group runs as usual.
   */
  constructor(
    private readonly run: (items: Item[]) => Promise<Answer[]>,
    private readonly maxItems: number,
  ) {}

  /** The answer to `item`, worked out with whatever else is asked for in this turn. */
  ask(item: Item): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        void this.runWaiting();
      }
    });
  }

  private async runWaiting(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const group = this.waiting.splice(0, this.maxItems);
        try {
          const answers = await this.run(group.map((waiting) => waiting.item));
          if (answers.length !== group.length) throw new Error(`TurnGroups: ${answers.length} answers for ${group.length} items`);
          group.forEach((waiting, index) => waiting.resolve(answers[index] as Answer));
        } catch (error) {
          for (const waiting of group) waiting.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
