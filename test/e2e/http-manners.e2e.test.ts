import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanaryTracker } from '../helpers/canaries';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';

/**
 * HTTP manners over real HTTP through the local host: the bearer scheme in any case, 405 with
 * `Allow` on known paths, HEAD on the probes, and CORS for the origins of CORS_ALLOWED_ORIGINS only.
 */
const canaries = new CanaryTracker();
const CONSOLE = 'https://admin.example.test';
let env: AuthTestHost;
let base: string;

beforeAll(async () => {
  env = await startAuthTestHost('http-manners', canaries, { CORS_ALLOWED_ORIGINS: `${CONSOLE}, http://localhost:5173` });
  base = env.host.baseUrl;
});

afterAll(async () => {
  await env?.stop();
});

describe('the bearer scheme', () => {
  it('is matched case-insensitively, with one or more spaces (RFC 9110 §11.1)', async () => {
    const { token } = await env.api.signInAdult(env.idToken('scheme-1'));
    for (const header of [`bearer ${token}`, `BEARER ${token}`, `BeArEr  ${token}`]) {
      canaries.add(header);
      expect((await fetch(`${base}/api/v1/me`, { headers: { authorization: header } })).status).toBe(200);
    }
    for (const header of [`Basic ${token}`, `Bearer${token}`, `Bearer\t${token}`]) {
      expect((await fetch(`${base}/api/v1/me`, { headers: { authorization: header } })).status).toBe(401);
    }
  });
});

describe('a wrong method on a known path', () => {
  it('answers 405 method_not_allowed with Allow, and an unknown path still 404', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/v1/auth/session', 'POST, DELETE, OPTIONS'],
      ['PUT', '/api/health', 'GET, HEAD, OPTIONS'],
      ['POST', '/api/v1/Children/3f1c2b5e-0000-4000-8000-000000000001', 'PATCH, DELETE, OPTIONS'],
      ['DELETE', '/api/v1/announcements', 'GET, POST, OPTIONS'],
    ];
    for (const [method, pathname, allow] of cases) {
      const response = await fetch(`${base}${pathname}`, { method });
      expect(response.status, `${method} ${pathname}`).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
    }
    const unknown = await fetch(`${base}/api/v1/nothing-here`, { method: 'PATCH' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
  });

  it('answers OPTIONS (not a preflight) with 204 and Allow', async () => {
    const response = await fetch(`${base}/api/v1/me`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, DELETE, OPTIONS');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('HEAD on the probes', () => {
  it('answers /api/health and /api/ready like GET, without a body', async () => {
    for (const probe of ['/api/health', '/api/ready']) {
      const get = await fetch(`${base}${probe}`);
      const head = await fetch(`${base}${probe}`, { method: 'HEAD' });
      expect(head.status, probe).toBe(get.status);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('cache-control')).toBe('no-store');
      expect(await head.text()).toBe('');
    }
  });
});

describe('CORS', () => {
  it('answers a preflight from a listed origin with the route methods and the headers the API reads', async () => {
    const response = await fetch(`${base}/api/v1/children`, {
      method: 'OPTIONS',
      headers: { origin: CONSOLE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, traceparent');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toMatch(/Origin/);
  });

  it('refuses a preflight from an origin not on the list (403), and on an unknown path (404)', async () => {
    const preflight = { 'access-control-request-method': 'GET' };
    const foreign = await fetch(`${base}/api/v1/me`, { method: 'OPTIONS', headers: { origin: 'https://evil.example.test', ...preflight } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const unknown = await fetch(`${base}/api/v1/nope`, { method: 'OPTIONS', headers: { origin: CONSOLE, ...preflight } });
    expect(unknown.status).toBe(404);
  });

  it('lets a listed origin read answers, problems included, and no other origin', async () => {
    const ok = await fetch(`${base}/api/health`, { headers: { origin: 'http://localhost:5173' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(ok.headers.get('vary')).toBe('Origin');
    const problem = await fetch(`${base}/api/v1/me`, { headers: { origin: CONSOLE } });
    expect(problem.status).toBe(401);
    expect(problem.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    const other = await fetch(`${base}/api/health`, { headers: { origin: 'https://evil.example.test' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toBe('Origin');
  });

  it('keeps every line valid and no token in the output', () => {
    expect(env.host.invalidLines).toEqual([]);
    expect(canaries.findIn(env.host.stdout.join('\n'))).toEqual([]);
  });
});
