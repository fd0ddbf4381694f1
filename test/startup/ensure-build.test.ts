import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/local-host';

/**
 * scripts/ensure-build.js decides whether `npm start`, `npm run dev:token` and `npm run reset` must build
 * first. Checked on a copy of the script in a scratch tree, so the project's own dist/ is never touched.
 */
// A plain-JS script of scripts/ (tsc does not compile it), loaded from the project root at run time.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { OUTPUTS } = require(path.join(PROJECT_ROOT, 'scripts', 'ensure-build.js')) as { OUTPUTS: readonly string[] };

let tree: string;

function write(file: string, mtimeSeconds: number): void {
  const full = path.join(tree, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, '// scratch\n');
  utimesSync(full, mtimeSeconds, mtimeSeconds);
}

function check(): { fresh: boolean; said: string } {
  const result = spawnSync(process.execPath, [path.join(tree, 'scripts', 'ensure-build.js'), '--check'], { encoding: 'utf8' });
  return { fresh: result.status === 0, said: result.stderr.trim() };
}

beforeEach(() => {
  tree = mkdtempSync(path.join(tmpdir(), 'ensure-build-'));
  mkdirSync(path.join(tree, 'scripts'));
  copyFileSync(path.join(PROJECT_ROOT, 'scripts', 'ensure-build.js'), path.join(tree, 'scripts', 'ensure-build.js'));
  utimesSync(path.join(tree, 'scripts', 'ensure-build.js'), 1_000, 1_000);
  write('shared/config.ts', 1_000);
  write('tsconfig.json', 1_000);
  for (const output of OUTPUTS) write(output, 2_000);
});

afterEach(() => rmSync(tree, { recursive: true, force: true }));

describe('ensure-build', () => {
  it('is satisfied by a build newer than every source', () => {
    expect(check()).toEqual({ fresh: true, said: 'build: up to date' });
  });

  it('builds when an output the README needs is missing (a fresh clone has no dist/)', () => {
    rmSync(path.join(tree, 'dist/app/functions.js'));
    expect(check()).toEqual({ fresh: false, said: 'build: stale (dist/app/functions.js is missing)' });
  });

  it('builds when a source, the compiler settings or the installed packages changed after the build', () => {
    write('shared/auth/new-file.ts', 3_000);
    expect(check().said).toBe('build: stale (shared/auth/new-file.ts changed since the last build)');
    rmSync(path.join(tree, 'shared/auth/new-file.ts'));
    write('node_modules/.package-lock.json', 3_000);
    expect(check().said).toBe('build: stale (node_modules/.package-lock.json changed since the last build)');
  });

  it("ignores what the build does not compile: test files and the bench's scratch files", () => {
    write('shared/config.test.ts', 3_000);
    write('bench/tmp/run-1/settings.json', 3_000);
    expect(check().fresh).toBe(true);
  });

  it('builds for real when stale, with the build output on stderr only (dev:token prints a token on stdout)', () => {
    rmSync(path.join(tree, 'dist/app/main.js'));
    // A stand-in npm whose `run build` writes the missing output, so the real build is not run here.
    const bin = path.join(tree, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "npm $*"\ntouch "${path.join(tree, 'dist/app/main.js')}"\n`, { mode: 0o755 });
    const stdout = execFileSync(process.execPath, [path.join(tree, 'scripts', 'ensure-build.js')], {
      encoding: 'utf8',
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(stdout).toBe('');
    expect(check().fresh).toBe(true);
  });
});
