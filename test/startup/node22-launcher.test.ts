import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/local-host';

/**
 * scripts/node22.js: `npm start`, `dev:token` and `reset` run on a Node the app supports, fetching the
 * project's Node 22 (as CI does) when the machine's own is older.
 */
// A plain-JS script of scripts/ (tsc does not compile it), loaded from the project root at run time.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { launchPlan } = require(path.join(PROJECT_ROOT, 'scripts', 'node22.js')) as {
  launchPlan(version: string, platform: string, arch: string): 'here' | 'node22' | 'refuse';
};

/** The machine's own Node, when it is older than the app needs (Debian's, on these machines). */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => {
  if (!existsSync(candidate)) return false;
  const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  return launchPlan(version, 'linux', 'x64') !== 'here';
});

describe('the Node 22 launcher', () => {
  it('runs here on a supported Node, fetches Node 22 for an older one on Linux x64, and refuses elsewhere', () => {
    expect(launchPlan('22.12.0', 'linux', 'x64')).toBe('here');
    expect(launchPlan('24.1.0', 'darwin', 'arm64')).toBe('here');
    expect(launchPlan('22.11.0', 'linux', 'x64')).toBe('node22');
    expect(launchPlan('20.20.2', 'linux', 'x64')).toBe('node22');
    expect(launchPlan('20.20.2', 'darwin', 'arm64')).toBe('refuse');
    expect(launchPlan('20.20.2', 'linux', 'arm64')).toBe('refuse');
  });

  it('runs a script in this process, with its arguments, on a supported Node', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'node22-'));
    try {
      const script = path.join(dir, 'probe.js');
      writeFileSync(script, 'console.log(JSON.stringify({ node: process.versions.node, args: process.argv.slice(2), pid: process.pid }));\n');
      const result = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'node22.js'), script, '--sub', 'parent-1'], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ node: process.versions.node, args: ['--sub', 'parent-1'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(OLD_NODE !== undefined && process.platform === 'linux' && process.arch === 'x64')(
    "runs the script on the project's Node 22 when started by an older Node, stdout kept for the script",
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'node22-'));
      try {
        const script = path.join(dir, 'probe.js');
        writeFileSync(script, 'console.log(JSON.stringify({ node: process.versions.node, args: process.argv.slice(2) })); process.exitCode = 3;\n');
        const result = spawnSync(OLD_NODE ?? 'node', [path.join(PROJECT_ROOT, 'scripts', 'node22.js'), script, '--email', 'x'], {
          cwd: PROJECT_ROOT,
          encoding: 'utf8',
          timeout: 120_000,
        });
        expect(result.status, result.stderr).toBe(3);
        const ran = JSON.parse(result.stdout) as { node: string; args: string[] };
        expect(ran.args).toEqual(['--email', 'x']);
        expect(launchPlan(ran.node, 'linux', 'x64')).toBe('here');
        expect(result.stderr).toContain("on the project's Node 22");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});
