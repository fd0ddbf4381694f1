import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../shared/lifecycle/node-version';
import { ROOT } from './worker-load';

/**
 * Node 20 loads the app and dies with a segmentation fault inside argon2: every entry point names
 * the Node.js version it needs first, before anything native loads.
 */
function runAs(nodeVersion: string, entry: string): { status: number | null; stderr: string; stdout: string } {
  const script = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(nodeVersion)} } });
    require(${JSON.stringify(entry)});`;
  const result = spawnSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', APP_ENV: 'test', DEVHOST_SKIP_LOCAL_SETTINGS: 'true', PORT: '0' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('the Node.js version check', () => {
  it('accepts 22.12 and newer, refuses older versions naming the one to install', () => {
    for (const ok of ['22.12.0', '22.20.1', '23.0.0', '24.4.1']) expect(nodeVersionProblem(ok)).toBeUndefined();
    for (const old of ['20.20.2', '22.11.0', '18.19.0']) expect(nodeVersionProblem(old)).toMatch(/^error: this app needs Node\.js 22\.12 or newer.*this is Node\.js /);
  });

  for (const entry of ['./dist/app/main.js', './dist/devhost/main.js']) {
    it(`${entry} stops on Node 20 with one sentence on stderr, before the app or anything native loads`, () => {
      const result = runAs('20.20.2', entry);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/error: this app needs Node\.js 22\.12 or newer .*this is Node\.js 20\.20\.2/);
      expect(result.stdout).toBe('');
      // Nothing of the app ran: no registration warning, no log line.
      expect(result.stderr).not.toMatch(/register|telemetry/i);
    });
  }
});
