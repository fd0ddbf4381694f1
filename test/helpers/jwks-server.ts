import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * How the fake identity provider answers `GET /jwks`:
 * - `ok`: 200 with the current key set;
 * - `status_500`: 500 with a JSON error body;
 * - `redirect`: 302 to another path on the same server (which would serve the keys);
 * - `not_json`: 200 with an HTML page;
 * - `invalid_jwks`: 200 with JSON that is not a key set;
 * - `oversized`: 200 with a 1 MiB key set, chunked (no Content-Length);
 * - `hang`: accepts the request and never answers;
 * - `closed`: nothing listens on the port any more (connections are refused).
 */
export type JwksServerMode = 'ok' | 'status_500' | 'redirect' | 'not_json' | 'invalid_jwks' | 'oversized' | 'hang' | 'closed';

export interface JwksServer {
  /** The JWKS URL, stable across mode changes (also across `closed`). */
  readonly url: string;
  /**
   * Its OIDC discovery document's URL (`/.well-known/openid-configuration`, naming `issuer` and
   * `jwks_uri`), served with the JWKS in every mode, so an outage fails both.
   */
  readonly discoveryUrl: string;
  readonly mode: JwksServerMode;
  /** Requests received (on any path, the redirect target included) since start or the last `resetCount`. */
  readonly requestCount: number;
  setMode(mode: JwksServerMode): Promise<void>;
  setKeys(jwks: { keys: readonly object[] }): void;
  resetCount(): void;
  close(): Promise<void>;
}

/**
 * Starts a JWKS endpoint on 127.0.0.1 with a free port, in mode `ok`.
 * @param options.issuer the `issuer` its discovery document names (default `https://issuer.invalid/`).
 */
export async function startJwksServer(
  jwks: { keys: readonly object[] } = { keys: [] },
  options: { issuer?: string } = {},
): Promise<JwksServer> {
  let keySet = jwks;
  let mode: JwksServerMode = 'ok';
  let requestCount = 0;
  let port = 0;
  const sockets = new Set<Socket>();

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    requestCount += 1;
    if (request.url === '/moved-jwks') {
      respond(response, 200, 'application/json', JSON.stringify(keySet));
      return;
    }
    const discovery = request.url === '/.well-known/openid-configuration';
    if (request.url !== '/jwks' && !discovery) {
      respond(response, 404, 'text/plain', 'not found');
      return;
    }
    switch (mode) {
      case 'ok': {
        const document = { issuer: options.issuer ?? 'https://issuer.invalid/', jwks_uri: `http://127.0.0.1:${port}/jwks` };
        respond(response, 200, 'application/json', JSON.stringify(discovery ? document : keySet));
        return;
      }
      case 'status_500':
        respond(response, 500, 'application/json', '{"error":"internal"}');
        return;
      case 'redirect':
        response.writeHead(302, { location: '/moved-jwks', 'content-length': '0' });
        response.end();
        return;
      case 'not_json':
        respond(response, 200, 'text/html', '<html><body>Service maintenance</body></html>');
        return;
      case 'invalid_jwks':
        respond(response, 200, 'application/json', '{"keys":"none today"}');
        return;
      case 'oversized': {
        // Chunked, without a Content-Length, so the client has to count while it reads.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(`{"keys":[{"kty":"oct","pad":"${'x'.repeat(512 * 1024)}`);
        response.end(`${'x'.repeat(512 * 1024)}"}]}`);
        return;
      }
      case 'hang':
      case 'closed':
        return; // never answered; the socket is destroyed on close
    }
  };

  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await listen(server, 0);
  port = (server.address() as AddressInfo).port;

  const stopListening = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    url: `http://127.0.0.1:${port}/jwks`,
    discoveryUrl: `http://127.0.0.1:${port}/.well-known/openid-configuration`,
    get mode() {
      return mode;
    },
    get requestCount() {
      return requestCount;
    },
    async setMode(next) {
      if (next === 'closed' && mode !== 'closed') await stopListening();
      if (next !== 'closed' && mode === 'closed') await listen(server, port);
      mode = next;
    },
    setKeys(next) {
      keySet = next;
    },
    resetCount() {
      requestCount = 0;
    },
    close: stopListening,
  };
}

function respond(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
