import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../helpers/local-host';

/**
 * The quick start is CI's first step, here and on the code host. The checks themselves run in CI
 * (scripts/quick-start-check.js on the fresh clone); this holds the wiring: that they run, first, and
 * that the README's blocks they read are there.
 */
interface WorkflowStep {
  run?: string;
  uses?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: WorkflowStep[] }>;
}

const read = (file: string): string => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

describe('the quick-start check in CI', () => {
  it('runs in .ci/run before the type check and the tests, which stay after it', () => {
    const commands = read('.ci/run')
      .split('\n')
      .filter((line) => /^(node|npm) /.test(line));
    expect(commands).toEqual([
      'node scripts/quick-start-check.js',
      'npm run typecheck',
      'npm run lint',
      'npm install --no-audit --no-fund',
      'npm test -- --reporter=default --reporter=json --outputFile.json=.tools/vitest-results.json || status=$?',
    ]);
  });

  it("runs the tests as a newcomer meets them: in a copy with nothing beside it, on the machine's own Node", () => {
    const run = read('.ci/run');
    // No PATH set up: the machine's Node stays first, so npm test must bring Node 22 itself.
    expect(run).not.toMatch(/\bPATH=/);
    expect(run).not.toMatch(/ensure-node22/);
    // The README's commands run in a fresh folder, after a cd into the copy.
    const lines = run.split('\n');
    const cdCopy = lines.findIndex((line) => line.startsWith('cd "$newcomer/app"'));
    expect(cdCopy).toBeGreaterThan(lines.indexOf('npm run lint'));
    expect(lines.findIndex((line) => line.startsWith('npm install'))).toBeGreaterThan(cdCopy);
    expect(run).toMatch(/newcomer="\$\(mktemp -d\)"/);
    // The README's own test command is the one CI runs.
    expect(read('README.md')).toMatch(/## Tests\n\n```sh\nnpm install\nnpm test\n```/);
  });

  it('runs on every push and pull request, and again under func start on the code host', () => {
    const workflow = parse(read('.github/workflows/ci.yml')) as Workflow;
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
    const runs = (job: string): string[] => (workflow.jobs[job]?.steps ?? []).flatMap((step) => (step.run ? [step.run.trim()] : []));
    expect(runs('ci')).toContain('bash main/.ci/run');
    expect(runs('quick-start-func')).toContain('node scripts/quick-start-check.js --host func');
    expect(runs('quick-start-func').some((run) => run.includes('azure-functions-core-tools@4'))).toBe(true);
  });

  it("finds the README's probes and walk-through blocks, which use the helpers the README sources", () => {
    // A plain-JS script of scripts/ (tsc does not compile it), loaded from the project root at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { readmeBlock } = require(path.join(PROJECT_ROOT, 'scripts', 'readme-blocks.js')) as { readmeBlock(name: string, readme?: string): string };
    for (const name of ['probes', 'walk-through']) {
      expect(readmeBlock(name).split('\n')[0]).toMatch(/^source scripts\/walkthrough-lib\.sh\b/);
    }
    expect(() => readmeBlock('probes', '# no blocks here\n')).toThrow('README.md has no block named "probes"');
    expect(() => readmeBlock('probes', '<!-- README block "probes": x -->\ntext\n')).toThrow('must be a ```sh fence');
  });
});
