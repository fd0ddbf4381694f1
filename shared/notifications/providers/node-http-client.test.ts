import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpClient } from './node-http-client';
import { sendHttpRequest, shutdownOutcome } from './provider-http';

/** What the server saw of each request: method, path, headers, the (gunzipped) body and the client's port. */
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string; port: number | undefined }[] = [];
const replies = new Map<string, (response: ServerResponse) => void>();
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body, port: request.socket.remotePort });
      (replies.get(request.url ?? '') ?? ((answer) => answer.writeHead(404).end()))(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (body: string | Uint8Array, headers: Record<string, string> = {}) => ({ method: 'POST' as const, headers, body });

describe('nodeHttpClient', () => {
  it('sends the method, headers and body, and reads a gzipped answer with its status and headers', async () => {
    replies.set('/gzip', (response) =>
      response.writeHead(201, { 'content-encoding': 'gzip', 'retry-after': '7', 'set-cookie': ['a=1', 'b=2'] }).end(gzipSync('{"ok":true}')),
    );
    const client = nodeHttpClient();
    const answer = await client(`${base}/gzip`, post(gzipSync('{"hello":"world"}'), { 'content-encoding': 'gzip', 'x-test': 'yes' }), new AbortController().signal);
    expect(answer.status).toBe(201);
    expect(answer.text).toBe('{"ok":true}');
    expect(answer.headers.get('Retry-After')).toBe('7');
    expect(answer.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(answer.headers.get('x-absent')).toBeNull();
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/gzip', body: '{"hello":"world"}', headers: { 'x-test': 'yes' } });
  });

  it('keeps the connection for the next request', async () => {
    replies.set('/plain', (response) => response.writeHead(200).end('plain'));
    const client = nodeHttpClient();
    for (let index = 0; index < 3; index += 1) expect((await client(`${base}/plain`, post(`n${index}`), new AbortController().signal)).text).toBe('plain');
    const ports = new Set(seen.slice(-3).map((request) => request.port));
    expect(ports.size).toBe(1);
  });

  it('turns a missed deadline into a transient timeout, a refused connection into a network error', async () => {
    replies.set('/hang', () => undefined);
    const client = nodeHttpClient();
    expect(await sendHttpRequest(client, `${base}/hang`, post('x'), 100)).toEqual({ ok: false, outcome: { result: 'provider_error', code: 'timeout', transient: true } });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await sendHttpRequest(client, `http://127.0.0.1:${port}/`, post('x'), 1000)).toEqual({
      ok: false,
      outcome: { result: 'provider_error', code: 'network_error', transient: true },
    });
  });

  it('refuses an answer that decodes to more than any the adapters read', async () => {
    replies.set('/bomb', (response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(9 * 1024 * 1024))));
    const attempt = await sendHttpRequest(nodeHttpClient(), `${base}/bomb`, post('x'), 5_000);
    expect(attempt).toMatchObject({ ok: false, outcome: { result: 'provider_error' } });
  });

  it('ends an answer cut short by the shutdown deadline as a shutdown outcome', async () => {
    // Headers and the first bytes, then nothing: the reading of the answer is what hangs.
    replies.set('/half', (response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"data":');
    });
    const deadline = new AbortController();
    const sending = sendHttpRequest(nodeHttpClient(), `${base}/half`, post('x'), 60_000, deadline.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    deadline.abort();
    expect(await sending).toEqual({ ok: false, outcome: shutdownOutcome() });
  });
});
