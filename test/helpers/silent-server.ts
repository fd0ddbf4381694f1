import { createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP endpoint that accepts connections and never answers: a telemetry backend that hangs. */
export interface SilentServer {
  port: number;
  /** Connections it holds open now. */
  openConnections(): number;
  /** Drops every connection, then stops listening. */
  close(): Promise<void>;
}

/** Listens on a free loopback port. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    openConnections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
