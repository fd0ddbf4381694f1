import { createServer } from 'node:net';

/**
 * Who holds a TCP port on the loopback interface, asked before `npm start` starts anything: a second
 * `npm start` on a port already served must stop at once, not after starting Azurite and failing to listen.
 * - `free`: nothing listens (a listener on 0.0.0.0 counts, as it would refuse ours).
 * - `app`: this app listens there: its liveness endpoint answers 200 `{"status":"ok"}`.
 * - `other`: something else does.
 */
export type PortHolder = 'free' | 'app' | 'other';

/** Whether binding 127.0.0.1:`port` works right now (the probe's own listener is closed again). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Whether GET /api/health on the port answers as this app's liveness endpoint does (functions/health.ts). */
async function answersAsThisApp(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as unknown;
    return response.status === 200 && typeof body === 'object' && body !== null && (body as { status?: unknown }).status === 'ok';
  } catch {
    return false;
  }
}

/** Who holds `port` on 127.0.0.1. */
export async function portHolder(port: number): Promise<PortHolder> {
  if (await canListen(port)) return 'free';
  return (await answersAsThisApp(port)) ? 'app' : 'other';
}

/** The one line for a port that is taken, naming the port and who listens there. */
export function portTakenMessage(port: number, holder: Exclude<PortHolder, 'free'>): string {
  const who = holder === 'app' ? 'this app already listens there (another npm start?)' : 'something else already listens there (not this app)';
  return `port ${port} is in use: ${who}; nothing was started. Stop it, or set PORT to another port.`;
}
