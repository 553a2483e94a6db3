/**
 * A request timeout on a connection that is not stuck fails that request only: a long poll the peer holds
 * (POP_MESSAGE) or a request a busy peer answers late while other answers keep arriving leaves the socket
 * open for the requests sharing it, and its late answer is dropped. The stuck-connection protection stays
 * (connection-recovery.test.ts covers silence, a stalled frame and an unwritten oneway): a long poll on a
 * silent socket closes it after MAX_QUIET_TIMEOUTS timeouts in a row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PopClient } from '../../../src/client/pop-client.js';
import { Connection, type ConnectionCloseEvent } from '../../../src/network/connection.js';
import { MAX_QUIET_TIMEOUTS } from '../../../src/network/connection-options.js';
import { ConnectionClosedError, RequestTimeoutError } from '../../../src/network/errors.js';
import { PopInitMode } from '../../../src/protocol/pop-headers.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { echo, FakeServer, rejectionOf, waitFor } from './fake-server.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(onCommand: (command: RemotingCommand, peer: FakeServer['lastPeer']) => void) {
  const server = await FakeServer.start({ onCommand });
  cleanups.push(() => server.close());
  return server;
}

function connect(address: string, closes: ConnectionCloseEvent[]): Connection {
  const connection = new Connection({ address, onClose: (event) => closes.push(event) });
  cleanups.push(() => connection.close());
  return connection;
}

/** Answers everything but the codes in `held`, which it keeps without a word (a broker holding a poll). */
function holding(held: readonly number[]) {
  const kept: RemotingCommand[] = [];
  const onCommand = (command: RemotingCommand, peer: FakeServer['lastPeer']) => {
    if (held.includes(command.code)) kept.push(command);
    else echo(command, peer);
  };
  return { kept, onCommand };
}

describe('a request timeout on a connection that is not stuck', () => {
  it('a POP long poll that times out on a silent socket leaves it open; a later request on it succeeds', async () => {
    const { kept, onCommand } = holding([RequestCode.POP_MESSAGE]);
    const server = await startServer(onCommand);
    const closes: ConnectionCloseEvent[] = [];
    const connection = connect(server.address, closes);
    // Through the POP client, as the consumer sends it (pollTime > 0 marks it a long poll).
    const pop = new PopClient({
      transport: { request: (_a, r, t) => connection.request(r, t), oneway: (_a, r) => connection.oneway(r) },
    });
    const header = {
      consumerGroup: 'G',
      topic: 'T',
      queueId: -1,
      maxMsgNums: 32,
      invisibleTime: 60_000,
      pollTime: 100,
      bornTime: Date.now(),
      initMode: PopInitMode.MIN,
    };
    const timedOut = await rejectionOf(
      pop.popMessage(server.address, 'broker-a', header, { timeoutMs: 200 }),
    );
    expect(timedOut).toBeInstanceOf(RequestTimeoutError);
    expect(kept).toHaveLength(1);
    expect(connection.isOpen).toBe(true);

    // The broker's late answer to the poll is dropped; the next request is answered on the same socket.
    server.lastPeer.reply(kept[0] as RemotingCommand);
    await expect(connection.request({ code: RequestCode.HEART_BEAT }, 2000)).resolves.toMatchObject({
      code: 0,
    });
    expect(server.peers).toHaveLength(1);
    expect(closes).toEqual([]);
  });

  it('an ordinary request a busy peer answers late leaves the socket open while other answers arrive', async () => {
    const { kept, onCommand } = holding([11]);
    const server = await startServer(onCommand);
    const closes: ConnectionCloseEvent[] = [];
    const connection = connect(server.address, closes);
    const late = rejectionOf(connection.request({ code: 11 }, 300));
    await waitFor(() => kept.length === 1);
    // Another caller's request is answered meanwhile: the peer and the socket work.
    await expect(connection.request({ code: 12 }, 2000)).resolves.toMatchObject({ code: 0 });
    const other = connection.request({ code: 13 }, 5000);
    expect(await late).toBeInstanceOf(RequestTimeoutError);
    // The request in flight on the same socket is not failed by the timeout.
    await expect(other).resolves.toMatchObject({ code: 0 });
    await expect(connection.request({ code: 14 }, 2000)).resolves.toMatchObject({ code: 0 });
    expect(server.peers).toHaveLength(1);
    expect(closes).toEqual([]);
  });

  it(`long polls timing out ${MAX_QUIET_TIMEOUTS} times in a row on a silent socket close it; the next request reconnects`, async () => {
    const { onCommand } = holding([RequestCode.POP_MESSAGE]);
    const server = await startServer(onCommand);
    const closes: ConnectionCloseEvent[] = [];
    const connection = connect(server.address, closes);
    const poll = { code: RequestCode.POP_MESSAGE, longPoll: true };
    for (let i = 1; i < MAX_QUIET_TIMEOUTS; i++) {
      expect(await rejectionOf(connection.request(poll, 100))).toBeInstanceOf(RequestTimeoutError);
      expect(closes).toHaveLength(0);
    }
    const inFlight = rejectionOf(
      connection.request({ code: RequestCode.POP_MESSAGE, longPoll: true }, 60_000),
    );
    expect(await rejectionOf(connection.request(poll, 100))).toBeInstanceOf(RequestTimeoutError);
    const failed = await inFlight;
    expect(failed).toBeInstanceOf(ConnectionClosedError);
    expect((failed as Error).message).toContain(`${MAX_QUIET_TIMEOUTS} requests in a row timed out`);
    expect(closes).toHaveLength(1);

    await expect(connection.request({ code: RequestCode.HEART_BEAT }, 2000)).resolves.toMatchObject({
      code: 0,
    });
    expect(server.peers).toHaveLength(2);
  });

  it('a response between long-poll timeouts starts the count again', async () => {
    const { onCommand } = holding([RequestCode.POP_MESSAGE]);
    const server = await startServer(onCommand);
    const closes: ConnectionCloseEvent[] = [];
    const connection = connect(server.address, closes);
    const poll = { code: RequestCode.POP_MESSAGE, longPoll: true };
    for (let round = 0; round < 3; round++) {
      for (let i = 1; i < MAX_QUIET_TIMEOUTS; i++) {
        expect(await rejectionOf(connection.request(poll, 100))).toBeInstanceOf(RequestTimeoutError);
      }
      await expect(connection.request({ code: 12 }, 2000)).resolves.toMatchObject({ code: 0 });
    }
    expect(closes).toEqual([]);
    expect(server.peers).toHaveLength(1);
  });
});
