import { connect } from 'node:net';

/** One answer read off a bare socket. */
export interface RawAnswer {
  status: number;
  /** Names lower-cased. */
  headers: Record<string, string>;
  body: string;
  elapsedMs: number;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Writes `request` (raw HTTP/1.1 text) on a bare TCP socket, for what no HTTP client sends (bad
 * framing, huge headers, a body that stops), and reads one answer: until the server closes, the
 * answer is complete on a kept-alive connection, or `waitMs` passes.
 */
export function rawExchange(target: { host?: string; port: number }, request: string, options: { waitMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: target.host ?? '127.0.0.1', port: target.port });
    let received = '';
    let closed = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const length = Number(headers['content-length']);
      const body = rest.join('\r\n\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: headers['transfer-encoding'] === 'chunked' ? dechunk(body) : Number.isFinite(length) ? body.slice(0, length) : body,
        elapsedMs: Date.now() - started,
        closed,
      });
    };
    const timer = setTimeout(finish, options.waitMs ?? 3_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
      // A complete answer on a kept-alive connection: no need to wait for a close.
      if (length !== undefined && rest.join('\r\n\r\n').length >= Number(length) && !/\r\nconnection: *close/i.test(head)) finish();
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A server may reset a connection whose request it refused while bytes were still unread.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.write(request);
  });
}

/** The payload of a chunked body (as far as it arrived). */
function dechunk(body: string): string {
  let rest = body;
  let payload = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = lineEnd < 0 ? NaN : parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return payload;
    payload += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
