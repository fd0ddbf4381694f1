import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { HttpAnswer, HttpClient } from './provider-http';

/**
 * How long an idle kept-alive connection is kept: below the few seconds servers commonly keep one
 * (undici, behind `fetch`, keeps 4 s), so a request rarely goes out on a socket the server is closing.
 */
const IDLE_SOCKET_MS = 4_000;

/** The most an answer may hold, as sent and decoded: Expo's are a few kilobytes; a larger one is refused, not read into memory. */
const MAX_DECODED_BYTES = 8 * 1024 * 1024;

type Decoder = (data: Buffer) => Buffer;

/**
 * An `HttpClient` on `node:http` / `node:https` with kept-alive connections, for the adapters'
 * own requests (Expo). `fetch` (undici behind web streams) costs a push fan-out about three times
 * the CPU per request, and loading it on the first request is tens of milliseconds more. The
 * answer is decoded as `fetch` would (`gzip`, `deflate`, `br`), so the adapters may ask for
 * compressed answers: synchronously, as answers are small (the asynchronous call's stream and
 * thread-pool round trip cost more than the decoding), and refused beyond `MAX_DECODED_BYTES`.
 * An encoding it does not know is handed on as it came, which no JSON reader takes for an answer.
 */
export function nodeHttpClient(): HttpClient {
  let agents: { 'http:': HttpAgent; 'https:': HttpsAgent } | undefined;
  let decoders: Record<string, Decoder> | undefined;
  // Required at the first request: an instance that never sends (an API instance) does not load them.
  const load = () => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const http = require('node:http') as typeof import('node:http');
    const https = require('node:https') as typeof import('node:https');
    const zlib = require('node:zlib') as typeof import('node:zlib');
    /* eslint-enable @typescript-eslint/no-require-imports */
    agents = {
      'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
      'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    };
    const limit = { maxOutputLength: MAX_DECODED_BYTES };
    const gunzip: Decoder = (data) => zlib.gunzipSync(data, limit);
    decoders = { gzip: gunzip, 'x-gzip': gunzip, deflate: (data) => zlib.inflateSync(data, limit), br: (data) => zlib.brotliDecompressSync(data, limit) };
    return { http, https };
  };
  let modules: ReturnType<typeof load> | undefined;
  return (url, request, signal) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      modules ??= load();
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') throw new TypeError(`not an HTTP URL: ${target.protocol}`);
      const body = request.body ?? '';
      const headers = { ...request.headers, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) };
      const options = { method: request.method, headers, signal, agent: agents?.[secure ? 'https:' : 'http:'] };
      const sent = (secure ? modules.https : modules.http).request(target, options, (response) => readAnswer(response, decoders ?? {}).then(resolve, reject));
      sent.on('error', reject);
      sent.end(body);
    });
}

async function readAnswer(response: IncomingMessage, decoders: Record<string, Decoder>): Promise<HttpAnswer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  await new Promise<void>((done, fail) => {
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_DECODED_BYTES) response.destroy(new RangeError('the answer is larger than any the adapters read'));
      else chunks.push(chunk);
    });
    response.on('end', done);
    response.on('error', fail);
    // Cut off before its end (the request aborted, the connection lost): not an answer.
    response.on('close', () => (response.complete ? done() : fail(new Error('the answer was cut off'))));
  });
  const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decode = encoding === '' || encoding === 'identity' ? undefined : decoders[encoding];
  const text = (raw.length > 0 && decode ? decode(raw) : raw).toString('utf8');
  const fields = response.headers;
  return {
    status: response.statusCode ?? 0,
    headers: {
      get: (name) => {
        const value = fields[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : (value ?? null);
      },
    },
    text,
  };
}
