import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The OpenAPI document as tools nobody here wrote read it: Redocly CLI (its `recommended` rules,
 * redocly.yaml) and Spectral (`spectral:oas`, .spectral.yaml), the versions package.json pins. Each
 * runs once, on docs/openapi.json and on a copy with two faults (a tag without a description,
 * which only Redocly's rules flag, and an example nothing uses), so the run shows it would fail.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const DOCUMENT = path.join(ROOT, 'docs/openapi.json');
// Neither reports usage nor looks for a newer version: no request leaves the machine.
const QUIET = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

let workDir: string;
let faulty: string;

beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  const document = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as { tags: { description?: string }[]; components: { examples: Record<string, unknown> } };
  delete document.tags[0]?.description;
  document.components.examples.unused = { summary: 'Used nowhere', value: {} };
  faulty = path.join(workDir, 'faulty.json');
  writeFileSync(faulty, JSON.stringify(document, null, 2));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** Runs a CLI of node_modules with the running Node; its stdout, whatever its exit code. */
async function cli(entry: string, args: readonly string[]): Promise<string> {
  try {
    return (await run(process.execPath, [path.join(ROOT, 'node_modules', entry), ...args], { cwd: ROOT, env: QUIET, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    // Both exit non-zero when they find a problem; the JSON report is on stdout all the same.
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    if (!stdout) throw new Error(`${entry} failed: ${stderr ?? String(error)}`);
    return stdout;
  }
}

describe('the OpenAPI document under third-party linters', () => {
  it('Redocly CLI (recommended): 0 errors, 0 warnings; the faulty copy has warnings', async () => {
    const report = (file: string) => cli('@redocly/cli/bin/cli.js', ['lint', file, '--format=json', '--config', path.join(ROOT, 'redocly.yaml')]);
    const parse = (text: string) => JSON.parse(text) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    const [clean, broken] = await Promise.all([report(DOCUMENT), report(faulty)]).then(([a, b]) => [parse(a), parse(b)] as const);
    expect(clean.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(clean.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(broken.problems.map((problem) => problem.ruleId).sort()).toEqual(['no-unused-components', 'tag-description']);
  });

  it('Spectral (spectral:oas): 0 errors, 0 warnings; the faulty copy has warnings', async () => {
    const stdout = await cli('@stoplight/spectral-cli/dist/index.js', [
      'lint',
      DOCUMENT,
      faulty,
      '--format=json',
      '--ruleset',
      path.join(ROOT, '.spectral.yaml'),
      '--quiet',
    ]);
    // Severity 0 is an error, 1 a warning.
    const results = JSON.parse(stdout) as { code: string; message: string; severity: number; source: string }[];
    const of = (file: string) => results.filter((result) => path.resolve(result.source) === file && result.severity <= 1);
    expect(of(DOCUMENT).map((result) => `${result.code}: ${result.message}`)).toEqual([]);
    expect(of(faulty).map((result) => result.code).sort()).toEqual(['oas3-unused-component']);
  });
});
