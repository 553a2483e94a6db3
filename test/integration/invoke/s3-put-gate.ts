/**
 * An HTTP forwarder in front of moto's S3 that can hold object puts: while held, a `PUT` is received
 * (and counted) but not forwarded until {@link S3PutGate.release}; every other request passes. A test
 * sees what the poller does while its failure object is on the way, without a timed sleep.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3PutGate {
  /** `http://127.0.0.1:<port>`, the endpoint to give the poller. */
  readonly endpoint: string;
  /** Paths (`/<bucket>/<key>`, decoded) of the puts received so far, held or not. */
  readonly putPaths: string[];
  /** Holds puts from now on. */
  hold(): void;
  /** Forwards the held puts and every later one. */
  release(): void;
  close(): Promise<void>;
}

/** Starts a gate forwarding to `target` (moto's `http://127.0.0.1:<port>`), puts passing. */
export async function startS3PutGate(target: string): Promise<S3PutGate> {
  const upstream = new URL(target);
  let holding = false;
  let held: (() => void)[] = [];
  const putPaths: string[] = [];
  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method !== 'PUT') {
        forward(req, body, res);
        return;
      }
      putPaths.push(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      if (holding) held.push(() => forward(req, body, res));
      else forward(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    putPaths,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      const waiting = held;
      held = [];
      for (const send of waiting) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
