/**
 * Secrets and personal data a test suite used, to be searched for in everything the app wrote:
 * stdout, AuditLog rows, telemetry. A JWT is also tracked by each of its segments, so a log line
 * holding only a token's payload still counts as a leak.
 */
export class CanaryTracker {
  private readonly values = new Set<string>();

  /** Tracks a secret or personal value (ignored when shorter than 6 characters: too likely by chance). */
  add(...values: string[]): void {
    for (const value of values) {
      if (value.length >= 6) this.values.add(value);
      if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value)) {
        for (const segment of value.split('.')) if (segment.length >= 12) this.values.add(segment);
      }
    }
  }

  /**
   * The tracked values that occur in `text` (case-insensitively for the textual ones). A value of
   * digits only (a PIN) counts where no other hex digit touches it: inside a random trace id or UUID
   * a 6-digit PIN turns up by chance about once in 30 runs of a suite, which is not a leak.
   */
  findIn(text: string): string[] {
    const lower = text.toLowerCase();
    return [...this.values].filter((value) =>
      /^[0-9]+$/.test(value)
        ? new RegExp(`(?<![0-9a-f])${value}(?![0-9a-f])`, 'i').test(text)
        : text.includes(value) || lower.includes(value.toLowerCase()),
    );
  }

  get size(): number {
    return this.values.size;
  }
}
