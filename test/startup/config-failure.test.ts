import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CanaryTracker } from '../helpers/canaries';
import { parseLogLine } from '../helpers/log-schema';
import { loadLikeTheWorker, ROOT } from './worker-load';

/**
 * Under the Functions host, an entry file that throws while the worker loads it
 * is caught by the worker, which then answers the host's metadata request with success and no
 * functions: the app would run and serve nothing, its error on stderr only. So the app itself
 * ends the process on a configuration error, with one JSON line on stdout naming the settings.
 */
const canaries = new CanaryTracker();
const PEPPER = 'canary-pepper-too-short';
const BAD = {
  APP_ENV: 'production',
  LOG_LEVEL: 'canary-level-value',
  TRUST_PROXY_HOPS: 'canary-hops-value',
  CHILD_SECRET_PEPPER: PEPPER,
  IDP_JWKS_URI: 'http://canary-jwks.example/keys',
};
canaries.add(...Object.values(BAD).filter((value) => value !== 'production'));

beforeAll(() => {
  for (const built of ['dist/app/main.js', 'dist/devhost/main.js']) {
    if (!existsSync(path.join(ROOT, built))) throw new Error(`${built} is missing: run \`npm run build\` (npm test does it)`);
  }
});

function expectOneConfigLine(stdout: string[], settings: string[]): void {
  const lines = stdout.map(parseLogLine);
  const failures = lines.filter((line) => line.errorCode === 'config_invalid');
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({ level: 'error', service: 'api', settings });
  expect(canaries.findIn(stdout.join('\n'))).toEqual([]);
}

describe('a configuration error', () => {
  it('ends the process loaded as the worker loads it: one config_invalid line, exit 1, nothing registered after it', async () => {
    const run = loadLikeTheWorker(BAD);
    const { code, stdout, stderr } = await run.ended;
    expect(code).toBe(1);
    // The process ended while the first entry file loaded: the loader never got to say it was loaded.
    expect(stderr).not.toContain('LOADED');
    expect(stdout).toHaveLength(1);
    expectOneConfigLine(stdout, ['LOG_LEVEL', 'TRUST_PROXY_HOPS']);
    // The host keeps a worker's last stderr lines in its exit error, and records a line with "error" as an error.
    expect(stderr).toMatch(/^Configuration error \(config_invalid\): fix LOG_LEVEL, TRUST_PROXY_HOPS; the app exits\.$/m);
    expect(canaries.findIn(stderr)).toEqual([]);
  });

  it('names the production settings that are missing or wrong, never their values', async () => {
    const { code, stdout } = await loadLikeTheWorker({ APP_ENV: 'production', CHILD_SECRET_PEPPER: PEPPER, IDP_JWKS_URI: BAD.IDP_JWKS_URI }).ended;
    expect(code).toBe(1);
    const line = parseLogLine(stdout[0] ?? '');
    expect(line.settings).toEqual(expect.arrayContaining(['IDP_ISSUER', 'IDP_JWKS_URI', 'SQL_CONNECTION_STRING', 'CHILD_SECRET_PEPPER']));
    expect(canaries.findIn(stdout.join('\n'))).toEqual([]);
  });

  it('under the local host, is the app\'s own exit, as under the Functions host (the host does not read the app\'s settings)', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/devhost/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', DEVHOST_SKIP_LOCAL_SETTINGS: 'true', ...BAD },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.resume();
    const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
    expect(code).toBe(1);
    const stdout = out.split('\n').filter((line) => line !== '');
    expectOneConfigLine(stdout, ['LOG_LEVEL', 'TRUST_PROXY_HOPS']);
    expect(stdout.map((line) => (JSON.parse(line) as { message: string }).message)).not.toContain('local host failed to start');
  });
});
