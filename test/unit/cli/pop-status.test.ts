/**
 * `status` for consumeMode POP mappings, with a fake broker: the group's consumer offsets at the
 * brokers and the lag from them (never a lag of 0 for a queue that could not be read), the pollers the
 * brokers know, and how the JSON and the table show them (no holder, generation or commit time).
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { reportUnreachable } from '../../../src/cli/status-command.js';
import { statusJson, statusTable } from '../../../src/cli/status-render.js';
import { terminalStyle } from '../../../src/cli/terminal-style.js';
import { BrokerError } from '../../../src/client/broker-error.js';
import {
  type PopPositionsClient as PopOffsetsClient,
  readPopQueuePositions as readPopMappingOffsets,
} from '../../../src/operations/pop-queue-positions.js';
import type { MappingPositions as PopMappingOffsets } from '../../../src/operations/queue-position.js';
import type { TargetMapping } from '../../../src/operations/target.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { PermName, type TopicRouteData } from '../../../src/protocol/route-data.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

const NOW = Date.UTC(2026, 11, 1, 13, 0, 0);
const MASTER = '10.0.0.5:10911';
const mapping: TargetMapping = {
  name: 'audit',
  topic: 'Audit',
  consumerGroup: 'audit-lambda',
  messageModel: 'CLUSTERING',
  startingPosition: 'TRIM_HORIZON',
  startingPositionTimestampMs: undefined,
  offsetStoreKind: 'dynamodb',
  consumeMode: 'POP',
};
const route: TopicRouteData = {
  brokerDatas: [{ cluster: 'c', brokerName: 'broker-a', brokerAddrs: new Map([[0, MASTER]]) }],
  queueDatas: [
    {
      brokerName: 'broker-a',
      readQueueNums: 3,
      writeQueueNums: 3,
      perm: PermName.READ | PermName.WRITE,
      topicSysFlag: 0,
    },
  ],
};

interface FakeBroker {
  /** queueId -> [min, max]. */
  readonly offsets: Record<number, [number, number]>;
  /** queueId -> the group's consumer offset (absent: QUERY_NOT_FOUND). */
  readonly consumed: Record<number, number>;
  /** queueIds whose max offset cannot be read. */
  readonly failing?: readonly number[];
  /** The group's members; a BrokerError code instead makes the member list fail with it. */
  readonly members: readonly string[] | number;
  /** POP retry topic -> [min, max, the group's consumer offset] of its queue 0 (absent: no such topic). */
  readonly retry?: Readonly<Record<string, [number, number, number]>>;
}

function fakeClient(broker: FakeBroker): PopOffsetsClient & { readonly queried: string[] } {
  const queried: string[] = [];
  const refuse = (code: number, requestCode: number) =>
    new BrokerError({ code, requestCode, address: MASTER, remark: 'refused' });
  return {
    queried,
    nameServer: { getRoute: async () => route },
    broker: {
      getMinOffset: async (_address, header) =>
        header.topic === 'Audit'
          ? (broker.offsets[header.queueId]?.[0] ?? 0)
          : (broker.retry?.[header.topic]?.[0] ?? 0),
      getMaxOffset: async (_address, header) => {
        if (header.topic !== 'Audit') return broker.retry?.[header.topic]?.[1] ?? 0;
        if (broker.failing?.includes(header.queueId)) throw new Error('read timed out');
        return broker.offsets[header.queueId]?.[1] ?? 0;
      },
      queryConsumerOffset: async (address, header) => {
        queried.push(
          `${address} ${header.consumerGroup} ${header.topic}:${header.queueId} zero=${header.setZeroIfNotFound}`,
        );
        if (header.topic !== 'Audit') return broker.retry?.[header.topic]?.[2];
        return broker.consumed[header.queueId];
      },
      getConsumerListByGroup: async () => {
        if (typeof broker.members === 'number')
          throw refuse(broker.members, RequestCode.GET_CONSUMER_LIST_BY_GROUP);
        return [...broker.members];
      },
      pullMessage: async () => {
        throw new Error('no pulls in this test');
      },
    },
  };
}

describe('readPopMappingOffsets', () => {
  it("reads the group's consumer offsets at the master, the lag from them and the registered pollers", async () => {
    const client = fakeClient({
      offsets: { 0: [0, 30], 1: [5, 12], 2: [0, 9] },
      consumed: { 0: 28, 1: 12 },
      members: ['p1', 'p2'],
    });
    const snapshot = await readPopMappingOffsets(client, mapping, { messageAges: false });
    expect(snapshot.brokerError).toBeUndefined();
    expect(snapshot.pollers).toBe(2);
    expect(
      snapshot.queues.map((q) => [
        q.queue.queueId,
        q.minOffset,
        q.maxOffset,
        q.consumerOffset,
        q.resumeOffset,
        q.lag,
      ]),
    ).toEqual([
      [0, 0, 30, 28, 28, 2],
      [1, 5, 12, 12, 12, 0],
      // Never popped: no consumer offset at the broker; a TRIM_HORIZON group starts at the min offset.
      [2, 0, 9, undefined, 0, 9],
    ]);
    expect(client.queried.sort()).toEqual(
      [
        ...[0, 1, 2].map((id) => `${MASTER} audit-lambda Audit:${id} zero=false`),
        // Whether the broker made a POP retry topic for the group (either naming): it has none.
        `${MASTER} audit-lambda %RETRY%audit-lambda_Audit:0 zero=false`,
        `${MASTER} audit-lambda %RETRY%audit-lambda+Audit:0 zero=false`,
      ].sort(),
    );
  });

  it("adds the group's POP retry queue where the broker made one, as retry backlog", async () => {
    const client = fakeClient({
      offsets: { 0: [0, 30], 1: [0, 12], 2: [0, 9] },
      consumed: { 0: 30, 1: 12, 2: 9 },
      members: ['p1'],
      retry: { '%RETRY%audit-lambda_Audit': [0, 7, 3] },
    });
    const snapshot = await readPopMappingOffsets(client, mapping, { messageAges: false });
    expect(snapshot.brokerError).toBeUndefined();
    expect(
      snapshot.queues.map((q) => [q.queue.topic, q.queue.queueId, q.retry, q.consumerOffset, q.lag]),
    ).toEqual([
      ['Audit', 0, false, 30, 0],
      ['Audit', 1, false, 12, 0],
      ['Audit', 2, false, 9, 0],
      ['%RETRY%audit-lambda_Audit', 0, true, 3, 4],
    ]);
    const json = statusJson('poller.yaml', [snapshot], NOW).mappings[0];
    expect(json).toMatchObject({ lag: 4, retryLag: 4 });
    const lines = statusTable([snapshot], NOW, terminalStyle({ isTTY: false }, {})).split('\n');
    expect(lines[0]).toBe(
      'audit  topic Audit  group audit-lambda  (POP, offsets at the broker)  pollers 1  lag 4 (retry 4)',
    );
    expect(lines[5]).toMatch(/^ {2}retry broker-a:0\s+0\s+7\s+3\s+4\s+-$/);
  });

  it('starts a never-popped queue of a LATEST group at its max offset (no lag)', async () => {
    const client = fakeClient({ offsets: { 0: [0, 30], 1: [0, 1], 2: [0, 2] }, consumed: {}, members: [] });
    const snapshot = await readPopMappingOffsets(
      client,
      { ...mapping, startingPosition: 'LATEST' },
      { messageAges: false },
    );
    expect(snapshot.queues.map((q) => [q.consumerOffset, q.resumeOffset, q.lag])).toEqual([
      [undefined, 30, 0],
      [undefined, 1, 0],
      [undefined, 2, 0],
    ]);
  });

  it('counts 0 pollers when the broker knows no consumer of the group (SYSTEM_ERROR)', async () => {
    const client = fakeClient({ offsets: {}, consumed: {}, members: ResponseCode.SYSTEM_ERROR });
    const snapshot = await readPopMappingOffsets(client, mapping, { messageAges: false });
    expect(snapshot.pollers).toBe(0);
    expect(snapshot.brokerError).toBeUndefined();
  });

  it('reports a queue it cannot read with an unknown lag, never 0, and pollers no broker told as unknown', async () => {
    const client = fakeClient({
      offsets: { 0: [0, 30], 1: [0, 12], 2: [0, 9] },
      consumed: { 0: 30 },
      failing: [1],
      members: ResponseCode.NO_PERMISSION,
    });
    const snapshot = await readPopMappingOffsets(client, mapping, { messageAges: false });
    expect(snapshot.queues.map((q) => q.lag)).toEqual([0, undefined, 9]);
    expect(snapshot.brokerError).toMatch(/^Audit#broker-a:1: read timed out/);
    expect(snapshot.pollers).toBeUndefined();
    expect(statusJson('poller.yaml', [snapshot], NOW).mappings[0]).toMatchObject({ lag: 9, pollers: null });
  });

  it('says why when the route cannot be read', async () => {
    const client = fakeClient({ offsets: {}, consumed: {}, members: [] });
    const snapshot = await readPopMappingOffsets(
      { ...client, nameServer: { getRoute: async () => Promise.reject(new Error('connect ECONNREFUSED')) } },
      mapping,
    );
    expect(snapshot).toEqual({
      mapping,
      queues: [],
      pollers: undefined,
      brokerError: 'the route of topic Audit: connect ECONNREFUSED',
      brokerErrorKind: 'unreachable',
    });
  });
});

const q = (queueId: number) => ({ topic: 'Audit', brokerName: 'broker-a', queueId });
const popSnapshot: PopMappingOffsets = {
  mapping,
  pollers: 2,
  brokerError: undefined,
  queues: [
    {
      queue: q(0),
      retry: false,
      minOffset: 0,
      maxOffset: 30,
      consumerOffset: 28,
      resumeOffset: 28,
      lag: 2,
      oldestUnconsumedAtMs: NOW - 4100,
    },
    {
      queue: q(1),
      retry: false,
      minOffset: 0,
      maxOffset: 9,
      consumerOffset: undefined,
      resumeOffset: 0,
      lag: 9,
      oldestUnconsumedAtMs: NOW - 192_000,
    },
    {
      queue: q(2),
      retry: false,
      minOffset: 0,
      maxOffset: 12,
      consumerOffset: 12,
      resumeOffset: 12,
      lag: 0,
      oldestUnconsumedAtMs: undefined,
    },
  ],
};

describe('statusJson of a POP mapping', () => {
  it('says POP, the broker keeps the offsets, the pollers; queues carry the consumer offset, no holder', () => {
    const json = statusJson('poller.yaml', [popSnapshot], NOW);
    expect(json.mappings[0]).toMatchObject({
      name: 'audit',
      topic: 'Audit',
      consumerGroup: 'audit-lambda',
      consumeMode: 'POP',
      offsetStore: 'broker',
      pollers: 2,
      lag: 11,
      retryLag: null,
      brokerError: null,
      storeError: null,
    });
    expect(json.mappings[0]?.queues).toEqual([
      {
        topic: 'Audit',
        retry: false,
        broker: 'broker-a',
        queueId: 0,
        minOffset: 0,
        maxOffset: 30,
        consumerOffset: 28,
        resumeOffset: 28,
        lag: 2,
        oldestUnconsumedAgeMs: 4100,
      },
      {
        topic: 'Audit',
        retry: false,
        broker: 'broker-a',
        queueId: 1,
        minOffset: 0,
        maxOffset: 9,
        consumerOffset: null,
        resumeOffset: 0,
        lag: 9,
        oldestUnconsumedAgeMs: 192_000,
      },
      {
        topic: 'Audit',
        retry: false,
        broker: 'broker-a',
        queueId: 2,
        minOffset: 0,
        maxOffset: 12,
        consumerOffset: 12,
        resumeOffset: 12,
        lag: 0,
        oldestUnconsumedAgeMs: null,
      },
    ]);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('marks PUSH mappings beside it as PUSH', () => {
    const push = { mapping: { ...mapping, name: 'orders', consumeMode: 'PUSH' as const }, queues: [] };
    const json = statusJson(
      'x',
      [{ ...push, brokerError: undefined, storeError: undefined }, popSnapshot],
      NOW,
    );
    expect(json.mappings.map((m) => [m.name, m.consumeMode, m.offsetStore])).toEqual([
      ['orders', 'PUSH', 'dynamodb'],
      ['audit', 'POP', 'broker'],
    ]);
  });
});

describe('statusTable of a POP mapping', () => {
  it('titles it POP with its pollers, and shows the consumer offset without holder or commit columns', () => {
    const lines = statusTable([popSnapshot], NOW, terminalStyle({ isTTY: false }, {})).split('\n');
    expect(lines[0]).toBe(
      'audit  topic Audit  group audit-lambda  (POP, offsets at the broker)  pollers 2  lag 11',
    );
    expect(lines[1]).toMatch(/^ {2}QUEUE\s+MIN\s+MAX\s+CONSUMER OFFSET\s+LAG\s+OLDEST$/);
    expect(lines[2]).toMatch(/^ {2}broker-a:0\s+0\s+30\s+28\s+2\s+4s$/);
    expect(lines[3]).toMatch(/^ {2}broker-a:1\s+0\s+9\s+- \(starts at 0\)\s+9\s+3m12s$/);
    expect(lines[4]).toMatch(/^ {2}broker-a:2\s+0\s+12\s+12\s+0\s+-$/);
  });

  it('shows unknown pollers and lag as ?, and the broker error', () => {
    const broken: PopMappingOffsets = {
      mapping,
      pollers: undefined,
      brokerError: 'connect ECONNREFUSED',
      queues: [],
    };
    const text = statusTable([broken], NOW, terminalStyle({ isTTY: false }, {}));
    expect(text.split('\n')[0]).toBe(
      'audit  topic Audit  group audit-lambda  (POP, offsets at the broker)  pollers ?  lag ?',
    );
    expect(text).toContain('  broker unreachable: connect ECONNREFUSED');
  });
});

describe('reportUnreachable', () => {
  it('exits 1 and names the mapping when a POP mapping could not be read', () => {
    const io = fakeCliIo();
    const code = reportUnreachable(
      new Command('status'),
      [{ ...popSnapshot, brokerError: 'Audit#broker-a:1: read timed out' }],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toBe('status: audit: broker unreachable: Audit#broker-a:1: read timed out\n');
    expect(reportUnreachable(new Command('status'), [popSnapshot], fakeCliIo())).toBe(0);
  });
});
