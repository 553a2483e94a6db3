/**
 * A TCP forwarder in front of a server that a test can shut (connections refused, open ones cut) and
 * open again on the same port: a network outage without losing the server's state.
 */
import type { AddressInfo, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

export interface TcpGate {
  /** `http://127.0.0.1:<gate port>`. */
  endpoint: string;
  /** Refuses new connections and cuts open ones. */
  shut(): Promise<void>;
  /** Accepts connections again on the same port. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a gate forwarding 127.0.0.1:<free port> to `target` (`http://host:port`).
 *
 * @example
 * ```ts
 * const gate = await startTcpGate(db.endpoint);
 * await gate.shut(); // requests now fail with ECONNREFUSED
 * await gate.open();
 * ```
 */
export async function startTcpGate(target: string): Promise<TcpGate> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(targetPort), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const shut = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    shut,
    open: () => listen(port),
    close: () => (server.listening ? shut() : Promise.resolve()),
  };
}
