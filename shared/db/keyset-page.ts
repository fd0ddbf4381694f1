/**
 * Keyset paging over (createdAt, id): stable under inserts, and the same query text for every page
 * on both engines.
 */

/** A position in a list ordered by (createdAt, id). */
export interface ListCursor {
  createdAt: string;
  id: string;
}

/** Before every row: the earliest time both engines parse, so the first page needs no other query. */
export const START_OF_LIST: ListCursor = { createdAt: '0001-01-01T00:00:00.000Z', id: '' };

/**
 * Splits the `limit + 1` rows a page query fetched into the page and the cursor of the next one.
 * @param rows the rows, fetched with `limit + 1` so that a next page shows itself.
 * @param cursorOf the (createdAt, id) of a row.
 */
export function toPage<T>(rows: readonly T[], limit: number, cursorOf: (row: T) => ListCursor): { items: T[]; next: ListCursor | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
