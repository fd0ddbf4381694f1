/**
 * ACS's repeatable requests (learn.microsoft.com, "Repeatable requests", after OASIS Repeatable
 * Requests 1.0), as the fake applies them: a request id (GUID) with its first-sent instant
 * (IMF-fixdate) is tracked for 5 minutes. A repeat of a tracked id with the same request gets the
 * first answer and is not executed again; the same id with another request is refused (400); a
 * first-sent instant outside the window is refused (412); malformed values are refused (400).
 * Requests without the pair are not repeatable: executed every time.
 */

export const REPEATABILITY_WINDOW_MS = 5 * 60 * 1000;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export interface RepeatabilityPair {
  repeatabilityRequestId?: unknown;
  repeatabilityFirstSent?: unknown;
}

export type RepeatLookup<A> = { kind: 'repeat'; answer: A } | { kind: 'refused'; status: 400 | 412 } | undefined;

export class RepeatabilityLedger<A> {
  private readonly seen = new Map<string, { fingerprint: string; answer: A; firstSent: number }>();

  /** What a request carrying `pair` gets before it is executed: undefined = execute it. */
  lookup(pair: RepeatabilityPair, fingerprint: string, now = Date.now()): RepeatLookup<A> {
    const { repeatabilityRequestId: id, repeatabilityFirstSent: firstSent } = pair;
    if (id === undefined && firstSent === undefined) return undefined;
    if (typeof id !== 'string' || !GUID.test(id) || typeof firstSent !== 'string' || !IMF_FIXDATE.test(firstSent)) {
      return { kind: 'refused', status: 400 };
    }
    const sent = Date.parse(firstSent);
    if (Math.abs(now - sent) > REPEATABILITY_WINDOW_MS) return { kind: 'refused', status: 412 };
    const known = this.seen.get(id.toLowerCase());
    if (!known) return undefined;
    return known.fingerprint === fingerprint ? { kind: 'repeat', answer: known.answer } : { kind: 'refused', status: 400 };
  }

  /** Tracks the answer of an executed repeatable request. */
  remember(pair: RepeatabilityPair, fingerprint: string, answer: A): void {
    if (typeof pair.repeatabilityRequestId !== 'string' || typeof pair.repeatabilityFirstSent !== 'string') return;
    this.seen.set(pair.repeatabilityRequestId.toLowerCase(), { fingerprint, answer, firstSent: Date.parse(pair.repeatabilityFirstSent) });
  }

  clear(): void {
    this.seen.clear();
  }
}
