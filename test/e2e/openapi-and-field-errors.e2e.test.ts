import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiClient, ApiResponse } from '../helpers/api-client';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { PROJECT_ROOT } from '../helpers/local-host';
import { SECRET_RULE_SENTENCES } from '../../shared/family/credential-rules';

/**
 * The OpenAPI document as served (`GET /api/openapi.json`, the checked-in copy) and the `errors`
 * member of 400 answers over real HTTP: one entry per failing field, a JSON Pointer into the body,
 * never the submitted value. (Every answer here is also checked against the document by the setup.)
 */

const canaries = new CanaryTracker();
let env: AuthTestHost;
let api: ApiClient;
let parentToken: string;
const answers: ApiResponse[] = [];

beforeAll(async () => {
  env = await startAuthTestHost('field-errors', canaries, { CHILD_SECRET_PEPPER: 'e2e-pepper-field-errors-0123456789abcdef' });
  ({ api } = env);
  const signedIn = await api.signInAdult(env.idToken('field-errors-parent'));
  expect(signedIn.response.status).toBe(200);
  parentToken = signedIn.token;
});

afterAll(async () => {
  await env?.stop();
});

async function send(method: string, pathname: string, body: unknown): Promise<ApiResponse> {
  const answer = await api.request(method, pathname, { body, token: parentToken });
  answers.push(answer);
  return answer;
}

describe('GET /api/openapi.json', () => {
  it('serves the checked-in document, without a session', async () => {
    const answer = await api.request('GET', '/api/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'docs/openapi.json'), 'utf8')));
    expect(answer.body.openapi).toBe('3.1.0');
  });
});

describe('errors that point at the field', () => {
  const username = 'field_errors_kid';
  const secret = '730582';

  beforeAll(() => {
    canaries.add(username, secret);
  });

  it('a PIN sent as a number, and no scopes', async () => {
    const answer = await send('POST', '/api/v1/children', { username, pin: Number(secret) });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.body).toMatchObject({
      code: 'invalid_request',
      detail: 'Invalid body: /pin: Expected a string. /scopes: Required.',
      errors: [
        { pointer: '/pin', code: 'invalid_type', detail: 'Expected a string.' },
        { pointer: '/scopes', code: 'required', detail: 'Required.' },
      ],
    });
  });

  it('an unknown member points at itself (RFC 6901), one entry each', async () => {
    const answer = await send('POST', '/api/v1/children', { username, pin: secret, scopes: ['announcements'], nickname: 'Sammy' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'invalid_request',
      detail: 'Invalid body: /nickname: Unknown field; remove it.',
      errors: [{ pointer: '/nickname', code: 'unknown_field', detail: 'Unknown field; remove it.' }],
    });
    const two = await send('PATCH', '/api/v1/me/notification-preferences', { push: true, nickname: 1, colour: 2 });
    expect(two.body.errors).toEqual([
      { pointer: '/nickname', code: 'unknown_field', detail: 'Unknown field; remove it.' },
      { pointer: '/colour', code: 'unknown_field', detail: 'Unknown field; remove it.' },
    ]);
  });

  it('every failing field in one answer, whichever rule finds it: a one-character username too', async () => {
    const answer = await send('POST', '/api/v1/children', { username: 'k', pin: Number(secret), scopes: 'announcements' });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_request');
    expect((answer.body.errors as { pointer: string; code: string }[]).map(({ pointer, code }) => ({ pointer, code }))).toEqual([
      { pointer: '/username', code: 'too_small' },
      { pointer: '/pin', code: 'invalid_type' },
      { pointer: '/scopes', code: 'invalid_type' },
    ]);
    const alone = await send('POST', '/api/v1/children', { username: 'k..k', pin: secret, scopes: ['announcements'] });
    expect(alone.status).toBe(400);
    expect(alone.body).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/username', code: 'invalid_format' }] });
    expect(alone.body.detail).toMatch(/^Invalid body: \/username: 3 to 32 characters/);
  });

  it('both pin and password; an unknown scope', async () => {
    const both = await send('POST', '/api/v1/children', { username, pin: secret, password: secret, scopes: [] });
    expect(both.body.errors).toEqual([{ pointer: '', code: 'invalid', detail: 'Send either pin or password, not both.' }]);
    const unknown = await send('POST', '/api/v1/children', { username, pin: secret, scopes: ['announcements', 'casino'] });
    expect(unknown.body.errors).toEqual([{ pointer: '/scopes/1', code: 'invalid_value', detail: 'One of: announcements, events, groups, media.' }]);
  });

  it('duplicate channels and an empty PATCH', async () => {
    const channels = await send('POST', '/api/v1/announcements', { title: 'T', body: 'B', channels: ['push', 'push'] });
    // A member may not write announcements, but the body is checked first.
    expect(channels.status).toBe(400);
    expect(channels.body.errors).toEqual([{ pointer: '/channels', code: 'invalid', detail: 'Channels must be unique.' }]);
    const empty = await send('PATCH', '/api/v1/me/notification-preferences', {});
    expect(empty.body).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '', code: 'invalid', detail: 'Nothing to change.' }] });
  });

  it('a weak PIN: weak_secret naming the rule, at /pin', async () => {
    const answer = await send('POST', '/api/v1/children', { username, pin: '123456', scopes: ['announcements'] });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'weak_secret',
      errors: [{ pointer: '/pin', code: 'sequence', detail: SECRET_RULE_SENTENCES.pin }],
    });
    const password = await send('POST', '/api/v1/children', { username, password: username, scopes: ['announcements'] });
    expect(password.body).toMatchObject({ code: 'weak_secret', errors: [{ pointer: '/password', code: 'matches_username' }] });
  });

  it('a lone surrogate in any string (I-JSON, RFC 7493): 400 naming the field, before anything is stored or hashed', async () => {
    canaries.add('canary-lone-title', 'canary-lone-secret', 'canary-lone-name');
    const title = await send('POST', '/api/v1/announcements', { title: 'canary-lone-title\ud800', body: 'B', channels: ['push'] });
    expect(title.status).toBe(400);
    expect(title.body).toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^Invalid body: \/title: Not well-formed Unicode/) as unknown,
      errors: [{ pointer: '/title', code: 'lone_surrogate' }],
    });
    // `a\ud800b` and `a\udbffb` would both reach Argon2 as `a\ufffdb`: the password is refused instead.
    for (const password of ['canary-lone-secret\ud800b', 'canary-lone-secret\udbffb']) {
      const signIn = await api.request('POST', '/api/v1/auth/child-session', { body: { username, password } });
      answers.push(signIn);
      expect(signIn.status).toBe(400);
      expect(signIn.body).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/password', code: 'lone_surrogate' }] });
    }
    // The strings are checked on the validated body: one the schema refuses anyway (not a section) gets the
    // schema's code at its pointer, and a member name the schema does not know is refused at its object,
    // never repeated.
    const nested = await send('POST', '/api/v1/children', { username, pin: secret, scopes: ['announcements', 'x\udc00'] });
    expect(nested.status).toBe(400);
    expect(nested.body).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/scopes/1' }] });
    const name = await send('POST', '/api/v1/children', `{"username":"${username}","pin":"${secret}","scopes":[],"canary-lone-name\\ud800":1}`);
    expect(name.status).toBe(400);
    expect(name.body).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '', code: 'unknown_field' }] });
  });

  it('never echoes a submitted value, nor an unknown member\'s name that is not a plain name', () => {
    canaries.add('casino');
    expect(answers.length).toBeGreaterThan(5);
    expect(canaries.findIn(JSON.stringify(answers.map((answer) => answer.body)))).toEqual([]);
  });
});
