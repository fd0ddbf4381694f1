import type { RequestScope } from '../http/http-endpoint';
import type { AuthDeps } from './auth-deps';
import { authenticateSession, type SessionAuthentication } from './authenticate-session';

/**
 * The authentication check of protected endpoints: the bearer session from `Authorization`
 * (anything in the query, body or cookies is ignored). On success every later log line of the
 * request carries the user's id.
 */
export async function requireSession(scope: RequestScope<unknown>, deps: AuthDeps): Promise<SessionAuthentication> {
  const result = await authenticateSession(scope.request.headers.get('authorization'), deps);
  if (result.ok) scope.setUserId(result.user.id);
  return result;
}
