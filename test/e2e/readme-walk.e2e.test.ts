import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../helpers/api-client';
import { CanaryTracker } from '../helpers/canaries';
import { PROJECT_ROOT, startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * The README's walk-through, step by step, with the built-in development identity provider:
 * dev token → session → me → child account (and the consent recorded with it) → child sign-in → sign-out.
 */
const run = promisify(execFile);

let workDir: string;
let databaseFile: string;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'readme-walk-'));
  databaseFile = path.join(workDir, 'platform.sqlite');
  // No IDP_JWKS_URI outside production: the app trusts the development provider's key pair under .data/dev-idp.
  host = await startLocalHost({ APP_ENV: 'test', SQLITE_PATH: databaseFile });
  api = new ApiClient(host.baseUrl, canaries);
});

afterAll(async () => {
  await host?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('the README walk-through', () => {
  it('goes from a dev token to a child session and back out', async () => {
    const email = 'walk.parent@example.com';
    canaries.add(email);
    // npm run -s dev:token -- --sub parent-walk --email walk.parent@example.com
    const { stdout } = await run(process.execPath, ['dist/scripts/dev-token.js', '--sub', 'parent-walk', '--email', email], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', APP_ENV: 'test' },
    });
    const idToken = stdout.trim();
    expect(idToken.split('.')).toHaveLength(3);

    const adult = await api.signInAdult(idToken);
    expect(adult.response.status).toBe(200);
    const me = await api.request('GET', '/api/v1/me', { token: adult.token });
    expect(me.body).toMatchObject({ accountType: 'adult', role: 'member', email });

    const child = await api.createChild(adult.token, { username: 'river', pin: '408215', scopes: ['announcements'] });
    expect(child.status).toBe(201);
    // The parent's consent, recorded with the child under the development terms version.
    const consents = await api.request('GET', `/api/v1/children/${String(child.body.id)}/consents`, { token: adult.token });
    expect(consents.status).toBe(200);
    expect(consents.body).toMatchObject({
      items: [{ termsVersion: 'development', sections: ['announcements'], method: 'account_holder_confirmation', withdrawnAt: null }],
      nextCursor: null,
    });

    const childSession = await api.signInChild('river', '408215');
    expect(childSession.status).toBe(200);
    const childToken = String(childSession.body.token);
    const childMe = await api.request('GET', '/api/v1/me', { token: childToken });
    expect(childMe.body).toMatchObject({ accountType: 'child', scopes: ['announcements'], parentId: adult.userId });

    expect((await api.request('DELETE', '/api/v1/auth/session', { token: childToken })).status).toBe(204);
    expect((await api.request('DELETE', '/api/v1/auth/session', { token: adult.token })).status).toBe(204);
    expect((await api.request('GET', '/api/v1/me', { token: adult.token })).status).toBe(401);

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
