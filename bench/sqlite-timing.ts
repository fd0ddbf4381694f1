import { StatementSync } from 'node:sqlite';

/** One statement text's share of the time spent in SQLite. */
export interface StatementTime {
  /** The statement's first words (no values: parameters are bound, never in the text). */
  sql: string;
  calls: number;
  ms: number;
}

export interface SqliteTime {
  calls: number;
  ms: number;
  /** The statements that took the most time, largest first. */
  top: StatementTime[];
}

const firstWords = (sql: string): string => {
  const words = sql.replace(/\s+/g, ' ').trim().split(' ');
  return words.slice(0, 6).join(' ') + (words.length > 6 ? ' …' : '');
};

/** The statement's first words; after a leading `WITH name AS (…)`, the main statement's, so two statements on the same rows tell apart. */
const label = (sql: string): string => {
  const text = sql.trim();
  if (!/^WITH\b/i.test(text)) return firstWords(text);
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (text[index] === '(') depth += 1;
    else if (text[index] === ')' && --depth === 0) return `WITH … ${firstWords(text.slice(index + 1))}`;
  }
  return firstWords(text);
};

/**
 * Times every `node:sqlite` statement of this process (the bench worker's), by statement text.
 * `node:sqlite` runs statements synchronously on the event loop, so this is also time the worker
 * could do nothing else. Two clock readings a statement: far below a statement's own cost.
 */
export function timeSqliteStatements(): { reset(): void; read(top?: number): SqliteTime } {
  const times = new Map<string, { calls: number; ns: bigint }>();
  const prototype = StatementSync.prototype as unknown as Record<'run' | 'all' | 'get', (...args: unknown[]) => unknown>;
  for (const method of ['run', 'all', 'get'] as const) {
    const original = prototype[method];
    prototype[method] = function (this: StatementSync, ...args: unknown[]): unknown {
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const key = this.sourceSQL;
        const entry = times.get(key) ?? { calls: 0, ns: 0n };
        entry.calls += 1;
        entry.ns += process.hrtime.bigint() - started;
        times.set(key, entry);
      }
    };
  }
  return {
    reset: () => times.clear(),
    read(top = 3) {
      const all = [...times].map(([sql, { calls, ns }]) => ({ sql: label(sql), calls, ms: Number(ns) / 1e6 }));
      all.sort((a, b) => b.ms - a.ms);
      return { calls: all.reduce((sum, s) => sum + s.calls, 0), ms: all.reduce((sum, s) => sum + s.ms, 0), top: all.slice(0, top) };
    },
  };
}
