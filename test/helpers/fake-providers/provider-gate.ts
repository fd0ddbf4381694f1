import { createServer, request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A gate between the app and a fake provider (Expo push or ACS), so a test can stop a fan-out at a
 * chosen step of each provider request: `plan` decides per request whether it passes at once
 * (forwarded, the fake's answer written back) or is held (neither forwarded nor answered: in
 * flight). A held request can later be forwarded, so the fake executes and counts it, with its
 * answer written back (`release(…, { answer: true })`: answered, say while the app is stopped) or
 * never (`answer: false`: executed, the answer lost). The fakes stay the only judges of what was
 * really sent; the gate only records what became of each request.
 *
 * In front of Azurite's queue service the same gate holds queue messages (`queue`): an enqueue
 * (POST, its recipients the decoded message texts) before the service takes it, or a dequeue
 * (GET, no recipients) whose answer, once forwarded, the host never reads (`answer: false`): the
 * messages are then invisible under the host's lease with nobody working on them.
 */

export type GateChannel = 'push' | 'sms' | 'email' | 'queue' | 'other';

export interface GatedRequest {
  channel: GateChannel;
  /** The request's path. */
  path: string;
  /** Who the request names: phone numbers, e-mail addresses or push tokens. */
  recipients: string[];
  /** The request's decoded body and headers, for a test's diagnostics (repeatability ids, say). */
  text: string;
  headers: IncomingHttpHeaders;
  arrivedAt: number;
  /**
   * `passed`: forwarded and answered at once; `held`: neither forwarded nor answered;
   * `answered_late`: held, then forwarded and answered; `executed_unanswered`: held, then forwarded,
   * its answer never written back.
   */
  fate: 'passed' | 'held' | 'answered_late' | 'executed_unanswered';
  /** When the fake answered it (it was forwarded), if it was. */
  forwardedAt?: number;
  /** The fake's answer body (a dequeue's messages), once forwarded. */
  answerText?: string;
}

export type GatePlan = (request: { channel: GateChannel; recipients: string[]; method: string }) => 'pass' | 'hold';

export interface ProviderGate {
  /** `http://127.0.0.1:<port>`: use it in place of the fake's origin. */
  origin: string;
  /** Every request, in arrival order. */
  readonly requests: GatedRequest[];
  setPlan(plan: GatePlan): void;
  /** The requests held now. */
  held(): GatedRequest[];
  /** Forwards a held request to the fake; with `answer`, resolves once its answer is written back to the app's socket. */
  release(request: GatedRequest, options: { answer: boolean }): Promise<void>;
  /** Drops every connection still open and stops. */
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Starts a gate on 127.0.0.1 and a free port in front of `upstreamOrigin` (`http://127.0.0.1:<port>`). */
export async function startProviderGate(upstreamOrigin: string, initialPlan: GatePlan = () => 'pass'): Promise<ProviderGate> {
  const upstream = new URL(upstreamOrigin);
  let plan = initialPlan;
  const requests: GatedRequest[] = [];
  const pending = new Map<GatedRequest, { req: IncomingMessage; res: ServerResponse; body: Buffer }>();

  const toFake = (req: IncomingMessage, body: Buffer): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      // The Host header is kept: ACS's signature covers the host the app signed for (this gate's).
      const outgoing = forward(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent: false },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
          answer.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const writeBack = (res: ServerResponse, answer: Upstream): Promise<void> =>
    new Promise((resolve) => {
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
      // 'finish': the last byte is handed to the operating system (the app need not be reading).
      res.end(answer.body, () => resolve());
    });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const { channel, recipients, text } = describe(req, body);
      const gated: GatedRequest = { channel, path: new URL(req.url ?? '/', 'http://gate').pathname, recipients, text, headers: req.headers, arrivedAt: Date.now(), fate: 'passed' };
      requests.push(gated);
      if (channel !== 'other' && plan({ channel, recipients, method: req.method ?? '' }) === 'hold') {
        gated.fate = 'held';
        pending.set(gated, { req, res, body });
        return;
      }
      toFake(req, body).then(
        async (answer) => {
          gated.forwardedAt = Date.now();
          gated.answerText = answer.body.toString('utf8');
          await writeBack(res, answer);
        },
        () => res.destroy(),
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    setPlan(next) {
      plan = next;
    },
    held: () => requests.filter((request) => request.fate === 'held'),
    async release(gated, { answer }) {
      const open = pending.get(gated);
      if (!open || gated.fate !== 'held') throw new Error('only a held request can be released');
      pending.delete(gated);
      const answered = await toFake(open.req, open.body);
      gated.forwardedAt = Date.now();
      gated.answerText = answered.body.toString('utf8');
      if (!answer) {
        gated.fate = 'executed_unanswered';
        return;
      }
      gated.fate = 'answered_late';
      await writeBack(open.res, answered);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The channel and recipients of a request, from its path and body (gzipped push bodies included). */
function describe(req: IncomingMessage, raw: Buffer): { channel: GateChannel; recipients: string[]; text: string } {
  const url = new URL(req.url ?? '/', 'http://gate');
  const path = url.pathname;
  // Azurite's `/<account>/<queue>/messages`: an enqueue, or a dequeue (a peek changes nothing and passes).
  if (/^\/[^/]+\/[^/]+\/messages$/.test(path) && (req.method === 'POST' || (req.method === 'GET' && url.searchParams.get('peekonly') !== 'true'))) {
    const text = raw.toString('utf8');
    return { channel: 'queue', recipients: req.method === 'POST' ? queueMessageTexts(text) : [], text };
  }
  const channel: GateChannel =
    req.method !== 'POST' ? 'other' : path.endsWith('/push/send') ? 'push' : path === '/sms' ? 'sms' : path === '/emails:send' ? 'email' : 'other';
  const text = (String(req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
  if (channel === 'other') return { channel, recipients: [], text };
  const body = JSON.parse(text) as unknown;
  const recipients =
    channel === 'push'
      ? (Array.isArray(body) ? body : [body]).map((message) => String((message as { to?: unknown }).to))
      : channel === 'sms'
        ? ((body as { smsRecipients?: { to?: unknown }[] }).smsRecipients ?? []).map((r) => String(r.to))
        : ((body as { recipients?: { to?: { address?: unknown }[] } }).recipients?.to ?? []).map((r) => String(r.address));
  return { channel, recipients, text };
}

/** The decoded texts of the messages in a queue service's XML (an enqueue's body, a dequeue's answer). */
export function queueMessageTexts(xml: string): string[] {
  return [...xml.matchAll(/<MessageText>([^<]*)<\/MessageText>/g)].map((match) => Buffer.from(match[1] ?? '', 'base64').toString('utf8'));
}
