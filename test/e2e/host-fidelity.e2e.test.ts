import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';

/**
 * Requests as the Functions host hands them to the app (the local host mirrors
 * it, see devhost/http-host.test.ts), answered so the client knows what to change. The host copies
 * a body only when `Content-Length` is above 0, and joins the values of a repeated query key with ",".
 */
const canaries = new CanaryTracker();
let env: AuthTestHost;
let adultToken: string;

beforeAll(async () => {
  env = await startAuthTestHost('host-fidelity', canaries);
  const signedIn = await env.api.signInAdult(env.idToken('fidelity-adult'));
  expect(signedIn.response.status).toBe(200);
  adultToken = signedIn.token;
});

afterAll(async () => {
  await env?.stop();
  expect(env.host.invalidLines).toEqual([]);
  expect(canaries.findIn(env.host.stdout.join('\n'))).toEqual([]);
});

/** A POST whose body goes out chunked (no Content-Length), which fetch cannot be made to send. */
function postChunked(pathname: string, body: string): Promise<{ status: number; contentType: string | undefined; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${env.host.baseUrl}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], json: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.write(body);
    req.end();
  });
}

describe('a body sent without Content-Length', () => {
  it('gets 400 invalid_request saying to send a Content-Length, where the same body with one signs in', async () => {
    const idToken = env.idToken('fidelity-chunked');
    canaries.add(idToken);
    const chunked = await postChunked('/api/v1/auth/session', JSON.stringify({ idToken }));
    expect(chunked.status).toBe(400);
    expect(chunked.contentType).toBe('application/problem+json');
    expect(chunked.json).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining('Content-Length') });
    const announced = await env.api.signInAdult(idToken);
    expect(announced.response.status).toBe(200);
  });
});

describe('a repeated query key', () => {
  it('gets 400 invalid_request naming the key, however its spelling repeats it', async () => {
    for (const query of ['limit=5&limit=7', 'limit=5&LIMIT=7']) {
      const response = await env.api.request('GET', `/api/v1/children?${query}`, { token: adultToken });
      expect(response.status, query).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', detail: 'Query parameter "limit" is given more than once; give it once.' });
    }
    expect((await env.api.request('GET', '/api/v1/children?limit=5', { token: adultToken })).status).toBe(200);
  });

  it('is named only when it looks like a parameter name (the key is submitted text)', async () => {
    const response = await env.api.request('GET', `/api/v1/children?${encodeURIComponent('<b>x</b>')}=1&${encodeURIComponent('<b>x</b>')}=2`, { token: adultToken });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('A query parameter is given more than once; give each once.');
  });

  it('is checked after authentication: an anonymous caller still gets 401', async () => {
    expect((await env.api.request('GET', '/api/v1/children?limit=5&limit=7')).status).toBe(401);
  });
});
