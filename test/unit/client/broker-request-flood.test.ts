/**
 * A broker (a fake one on loopback) floods a client with requests it may send at any time:
 * NOTIFY_CONSUMER_IDS_CHANGED, GET_CONSUMER_RUNNING_INFO without a group (the handler fails) and a code
 * nobody knows. Before, every NOTIFY logged an info line (2,025 lines in 10 s in the probe of issue 29)
 * and every failing request a warning. Now each kind logs one line per interval and every occurrence is
 * accounted for: logged, or counted in the `suppressed` of a later line. The rebalance the notifications
 * ask for still runs, debounced.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientRequestHandler } from '../../../src/client/client-request-handler.js';
import { REBALANCE_DEBOUNCE_MS, Rebalancer } from '../../../src/consumer/rebalance/rebalancer.js';
import { Connection } from '../../../src/network/connection.js';
import { inboundLinesOf } from '../../../src/network/inbound-request.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { encodeFrame, FLAG_ONEWAY, type RemotingCommand } from '../../../src/protocol/remoting-command.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { options } from '../consumer/fakes.js';
import { FakeServer, waitFor } from '../network/fake-server.js';

const FLOOD = 5000;
const LOG_INTERVAL_MS = 300;
const UNKNOWN_CODE = 987_654;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Line {
  level: number;
  msg: string;
  suppressed?: number;
  [field: string]: unknown;
}

function capturingLogger() {
  const lines: Line[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as Line) });
  return { logger, lines };
}

/** Occurrences a set of lines stands for: each line once, plus what it says it held back. */
function occurrences(lines: readonly Line[]): number {
  return lines.reduce((sum, line) => sum + 1 + (line.suppressed ?? 0), 0);
}

function brokerRequest(code: number, extFields: Record<string, string>, flag = 0): RemotingCommand {
  return { code, language: 'JAVA', version: 479, opaque: 1, flag, extFields };
}

describe('a broker flooding the client with requests', () => {
  it('logs a bounded number of lines with the counts held back, and rebalances debounced', async () => {
    const { logger, lines } = capturingLogger();
    const linesOf = (msg: string) => lines.filter((line) => line.msg === msg);

    // The consumer side: a group this client runs, a rebalancer the notifications wake up, and a broker
    // whose consumer list does not name us (a warning per rebalance before).
    const handler = new ClientRequestHandler({ logger, logIntervalMs: LOG_INTERVAL_MS });
    const listCalls: number[] = [];
    const members = Array.from({ length: 1000 }, (_, i) => `10.0.0.${i}@1`);
    const rebalancer = new Rebalancer({
      clientId: 'me',
      broker: {
        getConsumerListByGroup: async () => {
          listCalls.push(Date.now());
          return members;
        },
      },
      routes: {
        readableQueues: (topic) => [{ topic, brokerName: 'b', queueId: 0 }],
        anyBrokerAddress: () => 'b:10911',
      },
      options: options(),
      offsetStore: new MemoryOffsetStore(),
      startOffsets: { startOffset: async () => 0 },
      createPullLoop: () => {
        throw new Error('no queue is ever ours here');
      },
      log: logger,
    });
    cleanups.push(() => rebalancer.stopPulling());
    handler.setRunningInfoProvider('G', () => ({ properties: {}, subscriptionSet: [], mqTable: [] }));
    let notified = 0;
    handler.onConsumerIdsChanged((group) => {
      notified++;
      if (group === 'G') rebalancer.requestRebalance();
    });

    const server = await FakeServer.start();
    cleanups.push(() => server.close());
    const connection = new Connection({ address: server.address, requestHandler: handler.handle, logger });
    cleanups.push(() => connection.close());
    await connection.request({ code: RequestCode.HEART_BEAT }, 2000);
    const peer = server.lastPeer;

    const frames = [
      encodeFrame(
        brokerRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { consumerGroup: 'G' }, FLAG_ONEWAY),
      ),
      // The handler fails: GET_CONSUMER_RUNNING_INFO names no group.
      encodeFrame(brokerRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { clientId: 'me' })),
      encodeFrame(brokerRequest(UNKNOWN_CODE, {})),
    ];
    const startMs = Date.now();
    const before = peer.received.length;
    for (let i = 0; i < FLOOD; i++) peer.sendRaw(Buffer.concat(frames));
    // Every request but the oneway NOTIFY gets a reply; the notifications reach the listener.
    await waitFor(() => peer.received.length - before === 2 * FLOOD && notified === FLOOD, 30_000);
    const floodMs = Date.now() - startMs;
    // The rebalance asked for by the last notification.
    await waitFor(() => (listCalls.at(-1) ?? 0) >= startMs + floodMs, 5000);

    // Bounded while it lasts: the first line at once, then at most one per interval.
    const perKind = 2 + Math.ceil(floodMs / LOG_INTERVAL_MS);
    expect(linesOf('consumer ids changed').length).toBeLessThanOrEqual(perKind);
    expect(linesOf('consumer ids changed')[0]).toMatchObject({ consumerGroup: 'G' });
    // The network layer's lines are throttled per connection, 30 s apart: only the first so far.
    expect(linesOf('request handler failed')).toHaveLength(1);
    expect(linesOf('request code not supported')).toHaveLength(1);
    expect(linesOf('request code not supported')[0]).toMatchObject({ code: UNKNOWN_CODE });

    // Nothing lost from the counts: the held-back count comes within an interval once the flood stops
    // (client lines), or when the connection's lines are flushed.
    await waitFor(() => occurrences(linesOf('consumer ids changed')) === FLOOD, 5 * LOG_INTERVAL_MS);
    expect(linesOf('consumer ids changed').at(-1)?.suppressed).toBeGreaterThan(0);
    inboundLinesOf(connection, logger).flush();
    expect(occurrences(linesOf('request handler failed'))).toBe(FLOOD);
    expect(occurrences(linesOf('request code not supported'))).toBe(FLOOD);

    // The rebalance is debounced: a few runs for 5,000 notifications (two list calls each: the topic and
    // its retry topic), and its warning about the list is throttled and names 20 of its 1,000 members.
    expect(listCalls.length).toBeGreaterThanOrEqual(2);
    expect(listCalls.length / 2).toBeLessThanOrEqual(2 + Math.ceil(floodMs / REBALANCE_DEBOUNCE_MS));
    const notListed = linesOf('this client is not (yet) in the group list');
    expect(notListed.length).toBeGreaterThanOrEqual(1);
    expect(notListed.length).toBeLessThanOrEqual(2); // one per topic
    expect(notListed[0]).toMatchObject({ members: 1000 });
    expect(notListed[0]?.clientIds).toHaveLength(20);
  }, 60_000);

  it('keys the lines of groups the client does not run under one key', async () => {
    const { logger, lines } = capturingLogger();
    const handler = new ClientRequestHandler({ logger, logIntervalMs: 60_000 });
    for (let i = 0; i < 1000; i++) {
      await handler.handle(
        brokerRequest(
          RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
          { consumerGroup: `made-up-${i}` },
          FLAG_ONEWAY,
        ),
      );
    }
    expect(lines.filter((line) => line.msg === 'consumer ids changed')).toHaveLength(1);
    handler.flushLogs();
    expect(lines.at(-1)).toMatchObject({
      msg: 'consumer ids changed',
      consumerGroup: 'made-up-999',
      suppressed: 998,
    });
  });
});
