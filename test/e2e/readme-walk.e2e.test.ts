import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanaryTracker } from '../helpers/canaries';
import { PROJECT_ROOT, startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * The README's quick-start probes and walk-through, run by bash as written in README.md, with the built-in
 * development identity provider: dev token → session → me → child account (and the consent recorded with it)
 * → child sign-in → sign-out. `.ci/run` runs the same blocks against `npm start` on a fresh clone first
 * (scripts/quick-start-check.js); this test adds what only the app's own files show (audit rows, canaries).
 */
const run = promisify(execFile);

let workDir: string;
let databaseFile: string;
let host: LocalHost;
const canaries = new CanaryTracker();

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'readme-walk-'));
  databaseFile = path.join(workDir, 'platform.sqlite');
  // No IDP_JWKS_URI outside production: the app trusts the development provider's key pair under .data/dev-idp.
  host = await startLocalHost({ APP_ENV: 'test', SQLITE_PATH: databaseFile });
});

afterAll(async () => {
  await host?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('the README walk-through', () => {
  it("runs the README's own probes and walk-through, as written, from a dev token to a child session and back out", async () => {
    // The blocks are read from README.md (scripts/readme-blocks.js), the same text the quick-start check runs in CI.
    canaries.add('parent@example.com');
    canaries.add('408215');
    // A plain-JS script of scripts/ (tsc does not compile it), loaded from the project root at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { readmeBlock } = require(path.join(PROJECT_ROOT, 'scripts', 'readme-blocks.js')) as { readmeBlock(name: string): string };
    const script = `set -euo pipefail\n${readmeBlock('probes')}\n${readmeBlock('walk-through')}`;
    const port = new URL(host.baseUrl).port;
    const walk = await run('bash', ['-c', script], {
      cwd: PROJECT_ROOT,
      // The README's API follows PORT; the dev token is signed as the host in this test expects it.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: port, APP_ENV: 'test', DEVHOST_SKIP_LOCAL_SETTINGS: 'true' },
    });
    const checked = walk.stderr.split('\n').filter((line) => /^[✓✗]/.test(line));
    expect(checked.filter((line) => line.startsWith('✗'))).toEqual([]);
    expect(checked.map((line) => line.replace(/^✓ (\w+) http:\/\/localhost:\d+(\S*): (\d+)$/, '$1 $2 $3'))).toEqual([
      'GET /api/health 200',
      'GET /api/ready 200',
      'GET /api/nope 404',
      'GET /api/v1/auth/session 405',
      'POST /api/v1/auth/session 200',
      'GET /api/v1/me 200',
      'POST /api/v1/children 201',
      expect.stringMatching(/^GET \/api\/v1\/children\/[0-9a-f-]{36}\/consents 200$/),
      'POST /api/v1/auth/child-session 200',
      'GET /api/v1/me 200',
      'DELETE /api/v1/auth/session 204',
      'DELETE /api/v1/auth/session 204',
      'GET /api/v1/me 401',
      'GET /api/v1/me 401',
    ]);
    // What the README's `me` calls printed: the parent's profile, then the child's with its one section.
    expect(walk.stdout).toContain('"accountType":"adult"');
    expect(walk.stdout).toMatch(/"accountType":"child"[^\n]*"scopes":\["announcements"\]/);

    // In the order written (rows of one transaction may share a millisecond).
    const events = readRows<{ eventType: string }>(databaseFile, 'SELECT eventType FROM AuditLog ORDER BY rowid').map((row) => row.eventType);
    expect(events).toEqual(['authn_login_success', 'child_created', 'consent_given', 'authn_login_success', 'session_logout', 'session_logout']);
  });

  it('left nothing secret in stdout or the audit log', () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
