import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createTestCertificate } from '../helpers/test-certificate';

/** One Application Insights envelope as the exporter posts it. */
export interface CapturedEnvelope {
  name: string;
  iKey?: string;
  tags?: Record<string, string>;
  data?: { baseType?: string; baseData?: Record<string, unknown> & { properties?: Record<string, string> } };
}

export interface CapturedRequest {
  method: string;
  path: string;
}

/**
 * A local stand-in for the Application Insights ingestion endpoint: HTTPS on 127.0.0.1 with a
 * self-signed certificate made at start, accepting every `track` post. The process under test must
 * trust `certPath` through `NODE_EXTRA_CA_CERTS` (read by Node only at start, so: a child process).
 */
export interface IngestionCapture {
  /** `https://127.0.0.1:<port>/` */
  url: string;
  certPath: string;
  connectionString: string;
  envelopes: CapturedEnvelope[];
  /** Every request received, `track` or not (live metrics, redirects...). */
  requests: CapturedRequest[];
  close(): Promise<void>;
}

export async function startIngestionCapture(): Promise<IngestionCapture> {
  const certificate = createTestCertificate();
  const { certPath } = certificate;

  const envelopes: CapturedEnvelope[] = [];
  const requests: CapturedRequest[] = [];
  const server: Server = createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      requests.push({ method: request.method ?? '', path });
      if (request.method !== 'POST' || !/\/track$/.test(path.split('?')[0] ?? '')) {
        response.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const text = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const received = parseEnvelopes(text);
      envelopes.push(...received);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ itemsReceived: received.length, itemsAccepted: received.length, errors: [] }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `https://127.0.0.1:${port}/`;
  return {
    url,
    certPath,
    connectionString: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${url};LiveEndpoint=${url}`,
    envelopes,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      certificate.dispose();
    },
  };
}

/** The exporter posts a JSON array; the classic SDK posted newline-delimited JSON. Accept both. */
function parseEnvelopes(text: string): CapturedEnvelope[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    return JSON.parse(trimmed) as CapturedEnvelope[];
  }
  return trimmed
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CapturedEnvelope);
}
