import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The floor under every HTTP figure of the bench: plain `node:http`, in a process of its own as the
 * local host is, answering every `GET` with `{}` as `application/json` over keep-alive (Node's
 * defaults, the same as the local host's server). Nothing else: no routing, no logging, no app.
 *
 * Usage: node dist/bench/raw-http/server.js; prints `{"port":<n>}` once listening on 127.0.0.1.
 */
const BODY = Buffer.from('{}');
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) };

const server = createServer((req, res) => {
  if (req.method !== 'GET') {
    res.writeHead(405, { 'content-length': '0' }).end();
    return;
  }
  res.writeHead(200, HEADERS).end(BODY);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
