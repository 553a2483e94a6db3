/**
 * A peer that spoils every connection we open (garbage, a frame that stops half-way, a refused connect)
 * makes the same lines at every reconnect: they are throttled per address, each line standing for
 * itself and its `suppressed`, so N reconnects give a few lines whose counts add up to N.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/network/connection.js';
import { ConnectionPool } from '../../../src/network/connection-pool.js';
import { ConnectError, ConnectionClosedError } from '../../../src/network/errors.js';
import { flushPeerLines } from '../../../src/network/peer-lines.js';
import { startRawServer, unusedPort } from './fake-server.js';

interface Line {
  level: number;
  msg: string;
  address?: string;
  suppressed?: number;
}

const RECONNECTS = 40;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function capturingLogger(): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** The lines saying `message`, after writing every held-back count. */
function linesSaying(lines: Line[], message: string): Line[] {
  return lines.filter((line) => line.msg === message);
}

/** How many occurrences `lines` stand for: each itself plus what it says was held back. */
function occurrences(lines: Line[]): number {
  return lines.reduce((sum, line) => sum + 1 + (line.suppressed ?? 0), 0);
}

async function reconnectTimes(
  connection: Connection,
  times: number,
  firstLines: () => void,
): Promise<unknown[]> {
  const errors: unknown[] = [];
  for (let i = 0; i < times; i++) {
    errors.push(await connection.request({ code: 105 }, 5000).catch((error: unknown) => error));
    if (i === 0) firstLines();
  }
  return errors;
}

describe('lines a peer can repeat at every reconnect', () => {
  it('a peer answering every connection with garbage: a few lines, counts adding up to the reconnects', async () => {
    // "garb" read as a frame length is about 1.7 GB: malformed at once.
    const address = await startRawServer((socket) => socket.write('garbage, not a remoting frame'));
    const { logger, lines } = capturingLogger();
    const connection = new Connection({ address, logger });
    cleanups.push(() => connection.close());

    const errors = await reconnectTimes(connection, RECONNECTS, () => {
      // The first occurrence is logged at once.
      expect(linesSaying(lines, 'malformed frame, closing connection')).toHaveLength(1);
      expect(linesSaying(lines, 'connection closed')).toHaveLength(1);
    });
    flushPeerLines(logger);

    expect(errors.every((error) => error instanceof ConnectionClosedError)).toBe(true);
    for (const message of ['malformed frame, closing connection', 'connection closed', 'connected']) {
      const said = linesSaying(lines, message);
      expect(said.length, message).toBeLessThanOrEqual(3);
      expect(occurrences(said), message).toBe(RECONNECTS);
      expect(said.every((line) => line.address === address)).toBe(true);
    }
  });

  it('a peer whose every frame stops half-way: stalled-frame lines throttled the same', async () => {
    const half = Buffer.alloc(8);
    half.writeInt32BE(100, 0); // a 100-byte frame, of which 4 bytes come
    const address = await startRawServer((socket) => socket.write(half));
    const { logger, lines } = capturingLogger();
    const connection = new Connection({ address, logger, partialFrameTimeoutMs: 20 });
    cleanups.push(() => connection.close());

    await reconnectTimes(connection, RECONNECTS, () => undefined);
    flushPeerLines(logger);

    const said = linesSaying(lines, 'frame stalled, closing connection');
    expect(said.length).toBeLessThanOrEqual(3);
    expect(occurrences(said)).toBe(RECONNECTS);
  });

  it('a refused connect, where the pool replaces the connection each time, keeps one count per address', async () => {
    // Nothing listens there, so every connect is refused.
    const address = `127.0.0.1:${await unusedPort()}`;
    const { logger, lines } = capturingLogger();
    const pool = new ConnectionPool({ logger });
    cleanups.push(() => pool.close());

    for (let i = 0; i < RECONNECTS; i++) {
      const error = await pool.request(address, { code: 105 }, 5000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectError);
    }
    flushPeerLines(logger);

    const said = linesSaying(lines, 'connection closed');
    expect(said.length).toBeLessThanOrEqual(3);
    expect(occurrences(said)).toBe(RECONNECTS);
  });
});
