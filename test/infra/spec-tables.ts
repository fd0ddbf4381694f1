import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SpecRow } from './alert-catalogue';
import { ROOT } from './alert-catalogue';

/** The service spec's alert tables (its section 8), as the project states them. */
export const SPEC_PATH = path.join(ROOT, 'infra/alerts/spec-rows.md');

/** The rows of the first Markdown table after the line that starts with `heading`. */
function tableAfter(text: string, heading: string): [string, string][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start < 0) throw new Error(`no "${heading}" in ${SPEC_PATH}`);
  const rows: [string, string][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('|')) {
      inTable = true;
      const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
      if (cells.every((cell) => /^-+$/.test(cell))) continue;
      rows.push([cells[0] ?? '', cells[1] ?? '']);
    } else if (inTable) {
      break;
    }
  }
  return rows.slice(1); // the header row
}

/** The rows of the spec's section 8 tables (infra/alerts/spec-rows.md): critical alerts, warning alerts, infrastructure thresholds. */
export function specAlertRows(): SpecRow[] {
  const text = readFileSync(SPEC_PATH, 'utf8');
  const rows = (table: SpecRow['table'], heading: string): SpecRow[] =>
    tableAfter(text, heading).map(([row, condition]) => ({ table, row, condition }));
  return [
    ...rows('critical', '### Critical alerts'),
    ...rows('warning', '### Warning alerts'),
    ...rows('infrastructure', 'Infrastructure metrics and their thresholds of concern'),
  ];
}
