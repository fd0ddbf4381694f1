/**
 * The README's walk-through and the error cases written against the client, for the compiler only
 * (test/type-check.test.ts runs tsc on it, strict, with noUncheckedIndexedAccess and
 * exactOptionalPropertyTypes): no cast anywhere, and a body the server refuses does not compile.
 */
import { ApiProblem, createApiClient, unwrap, type ProblemCode } from '../../src/index';

declare const secureStore: { getItemAsync(key: string): Promise<string | null> };

export async function walkThrough(idToken: string): Promise<string[]> {
  const api = createApiClient({ baseUrl: 'http://localhost:7071', getToken: () => secureStore.getItemAsync('session') });
  const session = await unwrap(api.POST('/api/v1/auth/session', { body: { idToken } }));
  const token: string = session.token;
  const me = await unwrap(api.GET('/api/v1/me'));
  const accountType: 'adult' | 'child' = me.accountType;
  const child = await unwrap(api.POST('/api/v1/children', { body: { username: 'river', pin: '408215', scopes: ['announcements'] } }));
  const consents = await unwrap(api.GET('/api/v1/children/{id}/consents', { params: { path: { id: child.id } } }));
  const firstConsent: string | undefined = consents.items[0]?.termsVersion;
  const childSession = await unwrap(api.POST('/api/v1/auth/child-session', { body: { username: 'river', pin: '408215' } }));
  await unwrap(api.DELETE('/api/v1/me/sessions', { params: { query: { includeCurrent: true } } }));
  await unwrap(api.DELETE('/api/v1/children/{id}', { params: { path: { id: child.id }, query: { erase: false } } }));
  await unwrap(api.DELETE('/api/v1/auth/session', { headers: { authorization: `Bearer ${childSession.token}` } }));
  return [token, accountType, firstConsent ?? '', childSession.token];
}

export async function errorCases(): Promise<ProblemCode | 'unreadable_answer' | undefined> {
  const api = createApiClient({ baseUrl: 'http://localhost:7071', getTraceparent: () => '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  try {
    await unwrap(api.POST('/api/v1/auth/child-session', { body: { username: 'river', password: 'a long passphrase' } }));
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    const wait: number | undefined = error.retryAfter;
    const requestId: string | undefined = error.requestId;
    if (error.code === 'too_many_attempts' && wait !== undefined && requestId !== undefined) return error.code;
    const pointer: string | undefined = error.errors[0]?.pointer;
    return pointer === undefined ? error.code : 'invalid_request';
  }
  return undefined;
}

export function refusedBodies(): void {
  const api = createApiClient({ baseUrl: 'http://localhost:7071' });
  // @ts-expect-error a child signs in with a PIN or a password, never both
  void api.POST('/api/v1/auth/child-session', { body: { username: 'river', pin: '408215', password: 'a long passphrase' } });
  // @ts-expect-error nor does a parent create a child with both
  void api.POST('/api/v1/children', { body: { username: 'river', pin: '408215', password: 'a long passphrase', scopes: ['announcements'] } });
  // @ts-expect-error the flag is a boolean, not the string it is spelled as on the wire
  void api.DELETE('/api/v1/me/sessions', { params: { query: { includeCurrent: 'true' } } });
}
