import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../../../test/helpers/auth-test-host';
import { CanaryTracker } from '../../../test/helpers/canaries';
import { checkedAnswers } from '../../../test/helpers/live-api-hosts';
import { ApiProblem, createApiClient, unwrap, type ApiClient } from '../src/index';

/**
 * The client against the real local host (a JWKS server on 127.0.0.1 as the identity provider):
 * the README's walk-through and the error cases, each answer also checked against the OpenAPI
 * document by the test setup (test/setup/validate-api-responses.ts), headers included.
 */
const canaries = new CanaryTracker();
let env: AuthTestHost;
/** Stands for the app's secure storage (SecureStore, the Keychain): the client only asks it. */
const secureStore = new Map<string, string>();
/** Every request the client sent, as fetch saw it. */
const sent: Request[] = [];
let traceparent: string | undefined;
let api: ApiClient;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  env = await startAuthTestHost('api-client', canaries, {
    TRUST_PROXY_HOPS: '1',
    CHILD_SECRET_PEPPER: 'e2e-pepper-api-client-0123456789abcdef',
  });
  api = newClient();
});

afterAll(async () => {
  await env?.stop();
});

function newClient(extraHeaders: Record<string, string> = {}): ApiClient {
  return createApiClient({
    baseUrl: env.host.baseUrl,
    getToken: async () => secureStore.get('session'),
    getTraceparent: () => traceparent,
    fetch: (request) => {
      for (const [name, value] of Object.entries(extraHeaders)) request.headers.set(name, value);
      sent.push(request.clone());
      // The global fetch, which the test setup watches to check each answer against the document.
      return fetch(request);
    },
  });
}

/** The ApiProblem a call is refused with. */
async function refusal(pending: Promise<unknown>): Promise<ApiProblem> {
  const error: unknown = await pending.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiProblem);
  return error as ApiProblem;
}

async function signInParent(sub: string): Promise<string> {
  const idToken = env.idToken(sub, { email: `${sub}@example.com` });
  canaries.add(idToken, `${sub}@example.com`);
  const session = await unwrap(api.POST('/api/v1/auth/session', { body: { idToken } }));
  canaries.add(session.token);
  return session.token;
}

describe("the README's walk-through through the client", () => {
  it('probes, signs a parent in, creates a child, signs the child in, and both out', async () => {
    expect(await unwrap(api.GET('/api/health'))).toEqual({ status: 'ok' });
    expect((await api.GET('/api/ready')).response.status).toBe(200);
    const allowed = await api.OPTIONS('/api/v1/auth/session');
    expect([allowed.response.status, allowed.response.headers.get('allow')]).toEqual([204, 'POST, DELETE, OPTIONS']);

    secureStore.set('session', await signInParent('walk-parent'));
    const parent = await unwrap(api.GET('/api/v1/me'));
    expect(parent).toMatchObject({ accountType: 'adult', role: 'member' });

    canaries.add('river-walk', '408215');
    const child = await unwrap(api.POST('/api/v1/children', { body: { username: 'river-walk', pin: '408215', scopes: ['announcements'] } }));
    expect(child).toMatchObject({ username: 'river-walk', scopes: ['announcements'] });
    const consents = await unwrap(api.GET('/api/v1/children/{id}/consents', { params: { path: { id: child.id } } }));
    expect(consents.items).toHaveLength(1);

    const childSession = await unwrap(api.POST('/api/v1/auth/child-session', { body: { username: 'river-walk', pin: '408215' } }));
    canaries.add(childSession.token);
    const parentToken = secureStore.get('session') ?? '';
    secureStore.set('session', childSession.token);
    expect(await unwrap(api.GET('/api/v1/me'))).toMatchObject({ accountType: 'child', scopes: ['announcements'] });

    expect(await unwrap(api.DELETE('/api/v1/auth/session'))).toBeUndefined();
    secureStore.set('session', parentToken);
    await unwrap(api.DELETE('/api/v1/auth/session'));
    for (const token of [childSession.token, parentToken]) {
      secureStore.set('session', token);
      const signedOut = await refusal(unwrap(api.GET('/api/v1/me')));
      expect([signedOut.status, signedOut.code]).toEqual([401, 'unauthenticated']);
    }
    secureStore.delete('session');
  });

  it('sends the bearer token the app gives and the traceparent when there is one, nothing when there is none', async () => {
    secureStore.delete('session');
    const before = sent.length;
    await unwrap(api.GET('/api/health'));
    secureStore.set('session', 'a-token-of-the-app');
    traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const answer = await refusal(unwrap(api.GET('/api/v1/me')));
    const [plain, signed] = sent.slice(before);
    expect([plain?.headers.get('authorization'), plain?.headers.get('traceparent')]).toEqual([null, null]);
    expect([signed?.headers.get('authorization'), signed?.headers.get('traceparent')]).toEqual(['Bearer a-token-of-the-app', traceparent]);
    // The API continued the app's trace: the problem names its trace id.
    expect(answer.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    traceparent = undefined;
    secureStore.delete('session');
  });
});

describe('the error cases as ApiProblem', () => {
  it('an ID token that is not valid: 401 invalid_token, with the answer\'s X-Request-Id', async () => {
    const problem = await refusal(unwrap(api.POST('/api/v1/auth/session', { body: { idToken: 'not-a-jwt' } })));
    expect([problem.status, problem.code]).toEqual([401, 'invalid_token']);
    expect(problem.requestId).toMatch(UUID);
    expect(problem.detail).not.toContain('not-a-jwt');
    expect(problem.retryAfter).toBeUndefined();
  });

  it('a weak PIN: 400 weak_secret pointing at /pin; a username taken: 409; another family\'s child: 404', async () => {
    secureStore.set('session', await signInParent('errors-parent'));
    canaries.add('errors-kid', '123456', '730582');
    const weak = await refusal(unwrap(api.POST('/api/v1/children', { body: { username: 'errors-kid', pin: '123456', scopes: [] } })));
    expect([weak.status, weak.code, weak.errors[0]?.pointer]).toEqual([400, 'weak_secret', '/pin']);

    const child = await unwrap(api.POST('/api/v1/children', { body: { username: 'errors-kid', pin: '730582', scopes: [] } }));
    const taken = await refusal(unwrap(api.POST('/api/v1/children', { body: { username: 'errors-kid', pin: '730582', scopes: [] } })));
    expect([taken.status, taken.code]).toEqual([409, 'username_taken']);

    secureStore.set('session', await signInParent('errors-stranger'));
    const foreign = await refusal(unwrap(api.PATCH('/api/v1/children/{id}', { params: { path: { id: child.id } }, body: { scopes: ['media'] } })));
    expect([foreign.status, foreign.code]).toEqual([404, 'not_found']);
    const erased = await refusal(unwrap(api.DELETE('/api/v1/children/{id}', { params: { path: { id: child.id }, query: { erase: true } } })));
    expect([erased.status, erased.code]).toEqual([404, 'not_found']);
    secureStore.delete('session');
  });

  it('a throttled sign-in: 429 with retryAfter, each attempt sent exactly once (no retry)', async () => {
    // One client address of its own (TRUST_PROXY_HOPS=1), so only this username's limit applies.
    const throttled = newClient({ 'x-forwarded-for': '198.51.100.36' });
    canaries.add('throttled-kid', '135792');
    const before = sent.length;
    const codes: string[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const problem = await refusal(unwrap(throttled.POST('/api/v1/auth/child-session', { body: { username: 'throttled-kid', pin: '135792' } })));
      codes.push(`${problem.status} ${problem.code}`);
      if (problem.status === 429) expect(problem.retryAfter).toBeGreaterThanOrEqual(1);
    }
    expect(codes).toEqual(['401 invalid_credentials', '401 invalid_credentials', '401 invalid_credentials', '429 too_many_attempts']);
    expect(sent.slice(before).map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual(
      Array.from({ length: 4 }, () => 'POST /api/v1/auth/child-session'),
    );
  });

  it('a wrong method: 405 with Allow; a path the document does not list: 404 (neither a call the types allow)', async () => {
    const unknown = await fetch(`${env.host.baseUrl}/api/nope`);
    expect(new ApiProblem(unknown, await unknown.json())).toMatchObject({ status: 404, code: 'not_found' });
    const response = await fetch(`${env.host.baseUrl}/api/v1/auth/session`);
    const problem = new ApiProblem(response, await response.json());
    expect([problem.status, problem.code, response.headers.get('allow')]).toEqual([405, 'method_not_allowed', 'POST, DELETE, OPTIONS']);
    expect(problem.requestId).toMatch(UUID);
  });

  it('an answer that is no problem body still becomes an ApiProblem, with its status', () => {
    const problem = new ApiProblem(new Response('<html>Bad gateway</html>', { status: 502, headers: { 'retry-after': '7' } }), undefined);
    expect([problem.status, problem.code, problem.retryAfter, problem.requestId]).toEqual([502, 'unreadable_answer', 7, undefined]);
  });

  it('had every answer checked against the document: each request the client sent, the 405 and the 404', () => {
    // The setup checks a test's answers after it, so these are those of the tests above.
    expect(sent.length).toBe(27);
    expect(checkedAnswers.count).toBe(sent.length + 2);
  });

  it('left no token, PIN, username or e-mail address in the host\'s output', () => {
    expect(env.host.invalidLines).toEqual([]);
    expect(canaries.findIn(env.host.stdout.join('\n'))).toEqual([]);
  });
});
