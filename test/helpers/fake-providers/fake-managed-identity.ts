import { randomBytes, randomUUID } from 'node:crypto';
import { startFakeHttpServer, type FakeRequest, type FakeResponse } from './fake-http';

/**
 * A local stand-in for the managed identity endpoint of App Service and Container Apps (the
 * `IDENTITY_ENDPOINT` / `IDENTITY_HEADER` protocol, api-version 2019-08-01), as `@azure/identity`
 * calls it: `GET ?api-version=2019-08-01&resource=…&client_id=…` with the `X-IDENTITY-HEADER`
 * secret. It issues opaque random tokens for one user-assigned identity and the resources asked
 * for, and remembers them so a fake provider can check the bearer token it is shown.
 */
export interface FakeManagedIdentity {
  /** `IDENTITY_ENDPOINT`, `IDENTITY_HEADER` and `AZURE_CLIENT_ID` for the process under test. */
  env: Record<string, string>;
  clientId: string;
  /** Tokens issued for `resource` (normalized without a trailing slash). */
  tokensFor(resource: string): ReadonlySet<string>;
  readonly requests: { token: number; refused: number };
  close(): Promise<void>;
}

export async function startFakeManagedIdentity(): Promise<FakeManagedIdentity> {
  const secret = randomBytes(16).toString('hex');
  const clientId = randomUUID();
  const issued = new Map<string, Set<string>>();
  const requests = { token: 0, refused: 0 };
  const normalize = (resource: string) => resource.replace(/\/+$/, '');

  const handle = (request: FakeRequest): FakeResponse => {
    const url = new URL(request.url, 'http://fake');
    const refuse = (status: number, error: string): FakeResponse => {
      requests.refused += 1;
      return { status, json: { error, error_description: `The request was refused: ${error}.` } };
    };
    if (request.method !== 'GET' || url.pathname !== '/msi/token') return refuse(404, 'not_found');
    if (request.headers['x-identity-header'] !== secret) return refuse(401, 'invalid_identity_header');
    if (url.searchParams.get('api-version') !== '2019-08-01') return refuse(400, 'invalid_api_version');
    const resource = url.searchParams.get('resource');
    if (!resource) return refuse(400, 'invalid_resource');
    if (url.searchParams.get('client_id') !== clientId) return refuse(400, 'unknown_identity');
    requests.token += 1;
    const token = randomBytes(24).toString('base64url');
    const tokens = issued.get(normalize(resource)) ?? new Set<string>();
    tokens.add(token);
    issued.set(normalize(resource), tokens);
    return {
      status: 200,
      json: {
        access_token: token,
        expires_on: String(Math.floor(Date.now() / 1000) + 3600),
        resource,
        token_type: 'Bearer',
        client_id: clientId,
      },
    };
  };

  const server = await startFakeHttpServer(handle, () => 0);
  return {
    env: { IDENTITY_ENDPOINT: `${server.origin}/msi/token`, IDENTITY_HEADER: secret, AZURE_CLIENT_ID: clientId },
    clientId,
    tokensFor: (resource) => issued.get(normalize(resource)) ?? new Set(),
    requests,
    close: server.close,
  };
}
