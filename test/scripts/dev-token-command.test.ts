import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEV_IDP_AUDIENCE, DEV_IDP_ISSUER, DEV_IDP_KEY_DIRECTORY } from '../../shared/config';
import { type Clock, manualClock, systemClock } from '../../shared/ports/clock';
import { runDevTokenCommand } from '../../scripts/dev-token-command';
import { createIdTokenVerifier } from '../../shared/auth/id-token/verify-id-token';

let appRoot: string;

beforeEach(() => {
  appRoot = mkdtempSync(path.join(tmpdir(), 'dev-token-'));
});

afterEach(() => {
  rmSync(appRoot, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string> = { APP_ENV: 'development' }) {
  let stdout = '';
  let stderr = '';
  const exitCode = await runDevTokenCommand(
    argv,
    env,
    { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
    { cwd: appRoot, clock: manualClock('2031-05-04T12:00:00Z') },
  );
  return { exitCode, stdout, stderr };
}

function appVerifier(clock: Clock = manualClock('2031-05-04T12:00:00Z')) {
  const keyDirectory = path.join(appRoot, DEV_IDP_KEY_DIRECTORY);
  return createIdTokenVerifier({
    idp: { kind: 'development', issuer: DEV_IDP_ISSUER, audience: DEV_IDP_AUDIENCE, keyDirectory, algorithms: ['RS256'] },
    clock,
  });
}

describe('npm run dev:token (the command)', () => {
  it('prints only a token the app accepts', async () => {
    const { exitCode, stdout, stderr } = await run(['--sub', 'dev-alice', '--email', 'alice@example.org']);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(await appVerifier().verify(stdout.trim())).toEqual({
      ok: true,
      claims: { issuer: DEV_IDP_ISSUER, subject: 'dev-alice', email: 'alice@example.org' },
    });
  });

  it('uses the issuer and audience the app is configured with', async () => {
    const env = { APP_ENV: 'development', IDP_ISSUER: 'http://localhost:9999/custom', IDP_AUDIENCE: 'custom-aud' };
    const { exitCode, stdout } = await run(['--sub', 'x'], env);
    expect(exitCode).toBe(0);
    const [, payload] = stdout.trim().split('.');
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString())).toMatchObject({ iss: env.IDP_ISSUER, aud: env.IDP_AUDIENCE });
  });

  it.each([
    ['no --sub', []],
    ['an empty --sub', ['--sub', ' ']],
    ['an unknown option', ['--sub', 'x', '--admin']],
    ['a bad e-mail', ['--sub', 'x', '--email', 'nope']],
    ['a bad --ttl', ['--sub', 'x', '--ttl', '-5']],
  ])('refuses %s with the usage and exit code 2', async (_label, argv) => {
    const { exitCode, stdout, stderr } = await run(argv);
    expect(exitCode).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/dev:token: /);
  });

  it('refuses when the app uses a remote identity provider', async () => {
    const env = { APP_ENV: 'development', IDP_JWKS_URI: 'https://idp.example.test/jwks', IDP_ISSUER: 'https://idp.example.test', IDP_AUDIENCE: 'app' };
    const { exitCode, stdout, stderr } = await run(['--sub', 'x'], env);
    expect(exitCode).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/IDP_JWKS_URI/);
    expect(existsSync(path.join(appRoot, DEV_IDP_KEY_DIRECTORY))).toBe(false);
  });

  it('prints the usage for --help', async () => {
    const { exitCode, stdout, stderr } = await run(['--help']);
    expect({ exitCode, stdout }).toEqual({ exitCode: 0, stdout: '' });
    expect(stderr).toMatch(/--sub/);
  });
});

const compiledScript = path.resolve(__dirname, '../../../dist/scripts/dev-token.js');

describe.skipIf(!existsSync(compiledScript))('the compiled script (after npm run build)', () => {
  it('reads local.settings.json like the local host, the environment winning', () => {
    writeFileSync(
      path.join(appRoot, 'local.settings.json'),
      JSON.stringify({ IsEncrypted: false, Values: { APP_ENV: 'development', IDP_AUDIENCE: 'from-file', IDP_ISSUER: 'http://localhost:7071/file' } }),
    );
    const env = { PATH: process.env.PATH ?? '', IDP_ISSUER: 'http://localhost:7071/from-env' };
    const result = spawnSync(process.execPath, [compiledScript, '--sub', 'dev-carol'], { cwd: appRoot, env, encoding: 'utf8', timeout: 20_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const [, payload] = result.stdout.trim().split('.');
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString())).toMatchObject({
      iss: 'http://localhost:7071/from-env',
      aud: 'from-file',
      sub: 'dev-carol',
    });
  });

  it('prints a token the development verifier accepts', async () => {
    const env = { PATH: process.env.PATH ?? '', APP_ENV: 'development' };
    const result = spawnSync(process.execPath, [compiledScript, '--sub', 'dev-dave'], { cwd: appRoot, env, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(0);
    expect(await appVerifier(systemClock).verify(result.stdout.trim())).toMatchObject({ ok: true, claims: { subject: 'dev-dave' } });
  });
});
