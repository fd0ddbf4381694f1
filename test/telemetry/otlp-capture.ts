import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One OTLP/HTTP export request as it arrived. */
export interface CapturedExport {
  method: string;
  path: string;
  contentType: string;
  /** The request body, decompressed, as text. */
  text: string;
  /** The body parsed as OTLP/JSON (undefined when it was not JSON). */
  json: unknown;
}

/**
 * A local stand-in for an OpenTelemetry collector's OTLP/HTTP receiver: plain HTTP on 127.0.0.1,
 * answering every export with an empty success, keeping each request for the test to read.
 */
export interface OtlpCapture {
  /** `http://127.0.0.1:<port>`: the base endpoint, as `OTEL_EXPORTER_OTLP_ENDPOINT` would hold it. */
  endpoint: string;
  exports: CapturedExport[];
  /** The parsed bodies of the exports to one path (`/v1/logs`, `/v1/metrics`, `/v1/traces`). */
  bodiesOf(path: string): unknown[];
  close(): Promise<void>;
}

export async function startOtlpCapture(): Promise<OtlpCapture> {
  const exports: CapturedExport[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      exports.push({ method: request.method ?? '', path: request.url ?? '', contentType: request.headers['content-type'] ?? '', text, json });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    bodiesOf(path) {
      return exports.filter((item) => item.path === path).map((item) => item.json);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
