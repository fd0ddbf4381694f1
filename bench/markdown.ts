/** Number formats and markdown tables of the bench report. */
import type { Spread } from './stats';

/** Milliseconds: two decimals below 10, one above. */
export const ms = (value: number): string => value.toFixed(value < 10 ? 2 : 1);
export const mib = (bytes: number): string => (bytes / 1024 ** 2).toFixed(1);
/** A whole number with thousands separators (`20,100`). */
export const count = (value: number): string => Math.round(value).toLocaleString('en-US');

const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

/** A markdown table whose last `rightAligned` columns are right-aligned (numbers). */
export const table = (header: readonly string[], rows: readonly (readonly string[])[], rightAligned = header.length - 1): string =>
  [row(header), row(header.map((_, i) => (i >= header.length - rightAligned ? '---:' : '---'))), ...rows.map(row)].join('\n');

/** A repeated figure as `min / median / max`, the median in bold: the figure goals are judged on. */
export const spreadText = (s: Spread, format: (value: number) => string): string =>
  `${format(s.min)} / **${format(s.median)}** / ${format(s.max)}`;

/** A ratio with two decimals: `×1.42`. */
export const times = (value: number): string => `×${value.toFixed(2)}`;
