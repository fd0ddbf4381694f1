import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs a newcomer reads stay short enough to hold, and the architecture map names every folder
 * of `shared/`, so a folder added without its entry (what it keeps true) fails here.
 */
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const lineCount = (text: string): number => text.replace(/\n$/, '').split('\n').length;

/** Every folder under `shared/`, as `a/b/` relative to it. */
function sharedFolders(dir = path.join(ROOT, 'shared'), prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [`${prefix}${entry.name}/`, ...sharedFolders(path.join(dir, entry.name), `${prefix}${entry.name}/`)]);
}

/** The text of a `## heading` section of a Markdown page, up to the next `## `. */
function section(page: string, heading: string): string {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

describe('the docs map', () => {
  it('README.md stays at most 250 lines', () => {
    expect(lineCount(read('README.md'))).toBeLessThanOrEqual(250);
  });

  it('ARCHITECTURE.md is 60 to 400 lines and its code map names every folder of shared/', () => {
    const architecture = read('ARCHITECTURE.md');
    expect(lineCount(architecture)).toBeGreaterThanOrEqual(60);
    expect(lineCount(architecture)).toBeLessThanOrEqual(400);
    const codeMap = section(architecture, 'Code map');
    const folders = sharedFolders();
    expect(folders.length).toBeGreaterThan(30);
    const missing = folders.filter((folder) => !codeMap.includes(`\`${folder}\``));
    expect(missing).toEqual([]);
  });

  it('names every floor unit of .dependency-cruiser.cjs in ARCHITECTURE.md', () => {
    const floors = /const FLOORS = \[([\s\S]*?)\n\];/.exec(read('.dependency-cruiser.cjs'))?.[1] ?? '';
    const lists = [...floors.matchAll(/units: \[([^\]]*)\]/g)].map((match) => match[1] ?? '').join(',');
    const units = [...lists.matchAll(/'([a-z-]+(?:\.ts)?)'/g)].map((match) => match[1] as string);
    expect(units.length).toBeGreaterThan(20);
    const architecture = read('ARCHITECTURE.md');
    for (const unit of units) expect(architecture).toContain(unit.endsWith('.ts') ? `\`${unit}\`` : `\`${unit}/\``);
  });

  it("gives the notifications subsystem's floors in ARCHITECTURE.md in the lint's order, every subfolder on one", () => {
    const declared = /const NOTIFICATION_FLOORS = \[([\s\S]*?)\n\];/.exec(read('.dependency-cruiser.cjs'))?.[1] ?? '';
    const units = [...declared.matchAll(/units: \[([^\]]*)\]/g)].flatMap((match) =>
      [...(match[1] ?? '').matchAll(/'([a-z-]+)'/g)].map((unit) => unit[1] as string),
    );
    const subfolders = readdirSync(path.join(ROOT, 'shared', 'notifications'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect([...units].sort()).toEqual([...subfolders].sort());
    const section = /### The notifications subsystem\n([\s\S]*?)\n### /.exec(read('ARCHITECTURE.md'))?.[1] ?? '';
    const floorList = section.split('\n').filter((line) => /^\d+\. /.test(line));
    const named = floorList.flatMap((line) => [...line.matchAll(/^\d+\. `([a-z-]+)\/`(?: and `([a-z-]+)\/`)?/g)].flatMap((m) => m.slice(1).filter(Boolean)));
    expect(named).toEqual(units);
  });

  it('each topic page of docs/ is at most 700 lines, and the README links every one', () => {
    const readme = read('README.md');
    const pages = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const page of pages) {
      expect(lineCount(read(`docs/${page}`)), page).toBeLessThanOrEqual(700);
      expect(readme, page).toContain(`(docs/${page})`);
    }
  });

  it('the API page keeps the endpoint table between the markers its generator rewrites', () => {
    const api = read('docs/api.md');
    const begin = api.indexOf('<!-- BEGIN generated endpoints -->');
    const end = api.indexOf('<!-- END generated endpoints -->');
    expect(begin).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(begin);
    expect(api.slice(begin, end)).toContain('| `POST /api/v1/auth/child-session`');
  });
});
