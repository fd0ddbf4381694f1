/**
 * A small client for end-to-end tests: JSON requests against a running host, remembering every
 * secret it handled so the suite can search the app's output for them afterwards.
 */
import type { CanaryTracker } from './canaries';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly canaries: CanaryTracker,
  ) {}

  async request(method: string, pathname: string, options: { body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${this.baseUrl}${pathname}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    });
    const text = await response.text();
    const body = text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (typeof body.token === 'string') this.canaries.add(body.token);
    return { status: response.status, headers: response.headers, body };
  }

  /** Adult sign-in with an identity-provider token; resolves with the session token. */
  async signInAdult(idToken: string): Promise<{ token: string; userId: string; response: ApiResponse }> {
    this.canaries.add(idToken);
    const response = await this.request('POST', '/api/v1/auth/session', { body: { idToken } });
    return { token: String(response.body.token), userId: String((response.body.user as { id?: string } | undefined)?.id), response };
  }

  /** Child sign-in with a PIN (or a password when `kind` says so). */
  async signInChild(username: string, secret: string, options: { kind?: 'pin' | 'password'; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    this.canaries.add(username, secret);
    return this.request('POST', '/api/v1/auth/child-session', {
      body: { username, [options.kind ?? 'pin']: secret },
      ...(options.headers ? { headers: options.headers } : {}),
    });
  }

  /** A parent creates a child; resolves with the created child's id. */
  async createChild(parentToken: string, child: { username: string; pin?: string; password?: string; scopes: string[] }): Promise<ApiResponse> {
    this.canaries.add(child.username, ...(child.pin ? [child.pin] : []), ...(child.password ? [child.password] : []));
    return this.request('POST', '/api/v1/children', { body: child, token: parentToken });
  }
}
