import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gunzipSync, gzipSync, inflateSync } from 'node:zlib';

/** What a fake's route handler gets: the raw request and its body (decompressed when sent gzipped). */
export interface FakeRequest {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  /** The body bytes as sent on the wire (what a signature covers). */
  rawBody: Buffer;
  /** The body after `Content-Encoding` was undone. */
  body: Buffer;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  /** The request was handled, but its connection drops before any answer (a lost response). */
  destroy?: boolean;
}

export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * An HTTP server on 127.0.0.1 and a free port that answers each request through `handle`, after
 * `delayMs()` milliseconds from its arrival (the benchmark's provider latency). Handler exceptions answer 500.
 */
export async function startFakeHttpServer(
  handle: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>,
  delayMs: () => number,
  options: { gzipResponses?: boolean; tls?: { key: Buffer; cert: Buffer } } = {},
): Promise<FakeHttpServer> {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void answer(req, res);
  };
  const server: Server = options.tls ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }, listener) : createServer(listener);
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    // The latency counts from the request's arrival: the fake's own reading and checking of it is
    // work a provider does inside its answer time, not time added to it by a fake on one thread.
    const arrived = performance.now();
    let response: FakeResponse;
    try {
      const rawBody = await readBody(req);
      const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
      const body = encoding === 'gzip' ? gunzipSync(rawBody) : encoding === 'deflate' ? inflateSync(rawBody) : rawBody;
      response = await handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, rawBody, body });
    } catch (error) {
      response = { status: 500, json: { error: { code: 'FakeServerError', message: (error as Error).message } } };
    }
    const wait = delayMs() - (performance.now() - arrived);
    if (wait > 0) await delay(wait);
    if (response.destroy) {
      req.socket.destroy();
      return;
    }
    const text = response.json === undefined ? '' : JSON.stringify(response.json);
    const gzip = options.gzipResponses === true && text.length > 0 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    res.writeHead(response.status, {
      ...(response.json === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      ...response.headers,
    });
    res.end(gzip ? gzipSync(text) : text);
  };
  // Keep-alive sockets would hold `close()` open; the benchmark still reuses connections meanwhile.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Per-recipient scripts: a recipient's behaviours are used one per request that names it, and the
 * last one stays (`script(to, { httpStatus: 500 }, 'ok')`: one failure, then success for good).
 */
export class RecipientScripts<B> {
  private readonly scripts = new Map<string, B[]>();

  constructor(private readonly fallback: B) {}

  set(recipient: string, behaviours: readonly B[]): void {
    if (behaviours.length === 0) throw new Error('a script needs at least one behaviour');
    this.scripts.set(recipient, [...behaviours]);
  }

  /** The behaviour the next request naming `recipient` gets, without using it up. */
  peek(recipient: string): B {
    return this.scripts.get(recipient)?.[0] ?? this.fallback;
  }

  /** Uses up the current behaviour of `recipient` (the last one is never used up). */
  advance(recipient: string): void {
    const script = this.scripts.get(recipient);
    if (script && script.length > 1) script.shift();
  }

  clear(): void {
    this.scripts.clear();
  }
}
