import { Agent, request as httpRequest } from 'node:http';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface BenchResponse {
  status: number;
  body: string;
  /** Client-side time from sending the request to the last byte of the answer. */
  ms: number;
}

/** An HTTP client for one base URL with a pool of at most `maxSockets` keep-alive connections. */
export interface BenchClient {
  send(request: BenchRequest): Promise<BenchResponse>;
  close(): void;
}

/**
 * Node's `http` rather than `fetch`: on a two-core machine the client shares the CPU with the
 * host it measures, and `http` costs the client far less per request.
 */
export function createClient(baseUrl: string, maxSockets: number): BenchClient {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const base = new URL(baseUrl);
  return {
    send: ({ method, path, headers = {}, body }) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const started = performance.now();
        const req = httpRequest(
          {
            agent,
            host: base.hostname,
            port: base.port,
            method,
            path,
            headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) } : headers,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - started }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      }),
    close: () => agent.destroy(),
  };
}

export interface LoadResult {
  /** Per-request latencies in ms, in completion order. */
  latencies: number[];
  wallMs: number;
  /** Answers whose status was not the expected one. */
  unexpected: number;
}

/**
 * Sends `count` requests, `concurrency` at a time (each worker sends its next as soon as its
 * previous one is answered), and times every one of them.
 * @param makeRequest the i-th request (0-based).
 * @param expectedStatus answers with another status are counted in `unexpected`.
 */
export async function runLoad(
  client: BenchClient,
  options: { count: number; concurrency: number; expectedStatus: number },
  makeRequest: (index: number) => BenchRequest,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let unexpected = 0;
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < options.count) {
      const index = next++;
      const response = await client.send(makeRequest(index));
      latencies.push(response.ms);
      if (response.status !== options.expectedStatus) unexpected += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker));
  return { latencies, wallMs: performance.now() - started, unexpected };
}
