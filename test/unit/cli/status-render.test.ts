import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { reportUnreachable } from '../../../src/cli/status-command.js';
import {
  formatDuration,
  STALE_HOLDER_MS,
  type StatusSnapshot,
  statusJson,
  statusTable,
  totalLag,
} from '../../../src/cli/status-render.js';
import { terminalStyle } from '../../../src/cli/terminal-style.js';
import type { LiveClient, LiveGroup } from '../../../src/operations/live-group.js';
import type { MappingPositions as MappingOffsets } from '../../../src/operations/queue-position.js';
import type { TargetMapping } from '../../../src/operations/target.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

const NOW = Date.UTC(2026, 11, 1, 13, 0, 0);
const mapping: TargetMapping = {
  name: 'orders',
  topic: 'Orders',
  consumerGroup: 'orders-lambda',
  messageModel: 'CLUSTERING',
  startingPosition: 'TRIM_HORIZON',
  startingPositionTimestampMs: undefined,
  offsetStoreKind: 'dynamodb',
  consumeMode: 'PUSH',
};
const q = (queueId: number) => ({ topic: 'Orders', brokerName: 'broker-a', queueId });

const snapshot: MappingOffsets = {
  mapping,
  brokerError: undefined,
  storeError: undefined,
  queues: [
    {
      queue: q(0),
      minOffset: 0,
      maxOffset: 30,
      committed: { offset: 28, generation: 0, holder: 'p1', released: false, updatedAtMs: NOW - 3000 },
      resumeOffset: 28,
      lag: 2,
      oldestUnconsumedAtMs: NOW - 4100,
    },
    {
      queue: q(1),
      minOffset: 0,
      maxOffset: 12,
      committed: { offset: 12, generation: 2, holder: 'p1', released: true, updatedAtMs: NOW - 61_000 },
      resumeOffset: 12,
      lag: 0,
      oldestUnconsumedAtMs: undefined,
    },
    {
      queue: q(2),
      minOffset: 0,
      maxOffset: 9,
      committed: undefined,
      resumeOffset: 0,
      lag: 9,
      oldestUnconsumedAtMs: NOW - 192_000,
    },
    {
      queue: q(3),
      minOffset: 0,
      maxOffset: 50,
      committed: {
        offset: 40,
        generation: 0,
        holder: 'p2',
        released: false,
        updatedAtMs: NOW - STALE_HOLDER_MS - 1,
      },
      resumeOffset: 40,
      lag: 10,
      oldestUnconsumedAtMs: NOW - 7_200_000,
    },
    {
      // Messages sent back for a later retry wait in the group's retry topic.
      queue: { topic: '%RETRY%orders-lambda', brokerName: 'broker-a', queueId: 0 },
      minOffset: 0,
      maxOffset: 3,
      committed: undefined,
      resumeOffset: 0,
      lag: 3,
      oldestUnconsumedAtMs: NOW - 60_000,
    },
  ],
};

describe('statusJson', () => {
  it('has the documented shape', () => {
    const json = statusJson('poller.yaml', [snapshot], NOW);
    expect(json.at).toBe('2026-12-01T13:00:00.000Z');
    expect(json.source).toBe('poller.yaml');
    expect(json.mappings[0]).toMatchObject({
      name: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-lambda',
      offsetStore: 'dynamodb',
      lag: 24,
      brokerError: null,
      storeError: null,
    });
    expect(json.mappings[0]?.queues[0]).toEqual({
      topic: 'Orders',
      broker: 'broker-a',
      queueId: 0,
      minOffset: 0,
      maxOffset: 30,
      committedOffset: 28,
      resumeOffset: 28,
      generation: 0,
      lag: 2,
      oldestUnconsumedAgeMs: 4100,
      liveHolders: null,
      lastWriter: 'p1',
      lastWrite: 'commit',
      holder: 'p1',
      released: false,
      lastCommitAt: '2026-12-01T12:59:57.000Z',
    });
    expect(json.mappings[0]?.queues[2]).toMatchObject({
      committedOffset: null,
      generation: null,
      holder: null,
      released: null,
      lastCommitAt: null,
      resumeOffset: 0,
      lag: 9,
    });
    expect(json.mappings[0]?.queues[4]).toMatchObject({ topic: '%RETRY%orders-lambda', lag: 3 });
    // Round-trips through JSON unchanged (no undefined, no Dates).
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('says null lag and the errors when nothing could be read', () => {
    const broken: MappingOffsets = {
      mapping,
      queues: [],
      brokerError: 'connect ECONNREFUSED',
      storeError: 'no table',
    };
    expect(statusJson('x', [broken], NOW).mappings[0]).toMatchObject({
      lag: null,
      brokerError: 'connect ECONNREFUSED',
      storeError: 'no table',
    });
  });
});

describe('statusTable', () => {
  it('prints one row per queue, last writers with released/stale marks', () => {
    const text = statusTable([snapshot], NOW, terminalStyle({ isTTY: false }, {}));
    const lines = text.split('\n');
    expect(lines[0]).toBe('orders  topic Orders  group orders-lambda  (dynamodb)  lag 24');
    expect(lines[1]).toMatch(/^ {2}QUEUE\s+MIN\s+MAX\s+COMMITTED\s+LAG\s+OLDEST\s+LAST WRITER\s+LAST WRITE$/);
    expect(lines[2]).toMatch(/^ {2}broker-a:0\s+0\s+30\s+28\s+2\s+4s\s+p1\s+3s ago$/);
    expect(lines[3]).toMatch(/^ {2}broker-a:1\s+0\s+12\s+12 g2\s+0\s+-\s+p1 \(released\)\s+1m01s ago$/);
    expect(lines[4]).toMatch(/^ {2}broker-a:2\s+0\s+9\s+- \(starts at 0\)\s+9\s+3m12s\s+-\s+-$/);
    expect(lines[5]).toMatch(/^ {2}broker-a:3\s+0\s+50\s+40\s+10\s+2h00m\s+p2 \(stale\)\s+1m00s ago$/);
    expect(lines[6]).toMatch(/^ {2}retry broker-a:0\s+0\s+3\s+- \(starts at 0\)\s+3\s+1m00s\s+-\s+-$/);
    expect(text).not.toContain('\u001b[');
  });

  it('colours lag yellow and stale holders and errors red on a terminal', () => {
    const style = terminalStyle({ isTTY: true }, { FORCE_COLOR: '1' });
    const text = statusTable([{ ...snapshot, brokerError: 'timeout' }], NOW, style);
    expect(text).toContain(style.yellow('lag 24'));
    expect(text).toContain(style.red('  broker unreachable: timeout'));
    const red = style.red('|').split('|')[0] ?? '';
    const yellow = style.yellow('|').split('|')[0] ?? '';
    expect(red).not.toBe('');
    expect(text).toContain(`${red}p2 (stale)`);
    expect(text).toContain(`${yellow}2 `);
    expect(text).not.toContain(`${yellow}0 `); // a queue without lag stays plain
  });
});

describe('helpers', () => {
  it('formatDuration', () => {
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(4100)).toBe('4s');
    expect(formatDuration(192_000)).toBe('3m12s');
    expect(formatDuration(7_500_000)).toBe('2h05m');
    expect(formatDuration(273_600_000)).toBe('3d04h');
    expect(formatDuration(-5)).toBe('0ms');
  });

  it('totalLag sums the known lags', () => {
    expect(totalLag(snapshot.queues)).toBe(24);
    expect(totalLag([])).toBeUndefined();
  });
});

describe('the live group beside the stored offsets', () => {
  const client = (clientId: string, runningInfo: LiveClient['runningInfo']): LiveClient => ({
    clientId,
    clientAddr: `${clientId}:4000`,
    language: 'JAVA',
    version: 401,
    versionName: 'V4_9_4',
    brokers: ['10.0.0.1:10911'],
    runningInfo,
  });
  const answered = (queues: ReturnType<typeof q>[], filteredOut?: number): LiveClient['runningInfo'] => ({
    state: 'answered',
    queues,
    runtime: 'rocketmq-lambda on Node.js v20',
    startedAtMs: NOW - 60_000,
    filteredOut,
  });
  const live: LiveGroup = {
    consumerGroup: 'orders-lambda',
    consumeType: 'CONSUME_PASSIVELY',
    messageModel: 'CLUSTERING',
    subscriptions: [{ topic: 'Orders', expression: '*' }],
    brokersAsked: 1,
    brokersAnswered: 1,
    problem: undefined,
    clients: [
      client('p1', answered([q(0), q(1)])),
      client('p3', answered([])),
      client('p4', { state: 'no-answer', reason: 'request code 307 timed out after 3000 ms' }),
    ],
  };
  const withLive: StatusSnapshot = {
    mapping,
    brokerError: undefined,
    storeError: undefined,
    queues: [
      {
        queue: q(0),
        minOffset: 0,
        maxOffset: 30,
        // An operator's reset (released, next generation, the command's own client id) not yet adopted.
        committed: { offset: 0, generation: 1, holder: 'cli-9', released: true, updatedAtMs: NOW - 1000 },
        resumeOffset: 0,
        lag: 30,
        oldestUnconsumedAtMs: NOW - 4000,
      },
      {
        queue: q(1),
        minOffset: 0,
        maxOffset: 12,
        committed: { offset: 12, generation: 0, holder: 'p1', released: false, updatedAtMs: NOW - 2000 },
        resumeOffset: 12,
        lag: 0,
        oldestUnconsumedAtMs: undefined,
      },
      {
        queue: q(2),
        minOffset: 0,
        maxOffset: 5,
        // Its writer crashed: it never handed the queue over, and is no longer connected.
        committed: { offset: 5, generation: 0, holder: 'p2', released: false, updatedAtMs: NOW - 9000 },
        resumeOffset: 5,
        lag: 0,
        oldestUnconsumedAtMs: undefined,
      },
    ],
    live,
    deadLetters: { topic: '%DLQ%orders-lambda', depth: 7, queues: 1 },
  };

  it('JSON: the clients, what each holds, the live holders and what the last write was', () => {
    const [json] = statusJson('poller.yaml', [withLive], NOW).mappings;
    expect(json?.liveGroup).toEqual({
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      subscriptions: [{ topic: 'Orders', expression: '*' }],
      brokersAsked: 1,
      brokersAnswered: 1,
      error: null,
      errorKind: null,
      clients: [
        {
          clientId: 'p1',
          clientAddr: 'p1:4000',
          language: 'JAVA',
          version: 401,
          versionName: 'V4_9_4',
          runtime: 'rocketmq-lambda on Node.js v20',
          startedAt: '2026-12-01T12:59:00.000Z',
          runningInfo: 'answered',
          runningInfoError: null,
          filteredOut: null,
          queues: [
            { topic: 'Orders', broker: 'broker-a', queueId: 0 },
            { topic: 'Orders', broker: 'broker-a', queueId: 1 },
          ],
          holdsNothing: false,
        },
        expect.objectContaining({ clientId: 'p3', queues: [], holdsNothing: true }),
        expect.objectContaining({
          clientId: 'p4',
          runningInfo: 'no-answer',
          runningInfoError: 'request code 307 timed out after 3000 ms',
          runtime: null,
          queues: null,
          holdsNothing: false,
        }),
      ],
    });
    expect(json?.deadLetters).toEqual({ topic: '%DLQ%orders-lambda', depth: 7, queues: 1, error: null });
    const rows = json?.consumeMode === 'PUSH' ? json.queues : [];
    expect(rows.map((r) => [r.liveHolders, r.lastWriter, r.lastWrite])).toEqual([
      [['p1'], 'cli-9', 'reset'],
      [['p1'], 'p1', 'commit'],
      // p4 did not answer: it may hold queue 2.
      [null, 'p2', 'commit'],
    ]);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("table and JSON: the messages the clients' filters dropped, summed under the clients", () => {
    const filtering: StatusSnapshot = {
      ...withLive,
      live: {
        ...live,
        clients: [client('p1', answered([q(0), q(1)], 5)), client('p3', answered([], 2))],
      },
    };
    const text = statusTable([filtering], NOW, terminalStyle({ isTTY: false }, {}));
    expect(text.split('\n')[5]).toBe(
      '  filtered out (filters): 7 messages dropped before the invoke since these clients started',
    );
    const [json] = statusJson('poller.yaml', [filtering], NOW).mappings;
    expect(json?.liveGroup?.clients.map((c) => c.filteredOut)).toEqual([5, 2]);
    expect(statusTable([withLive], NOW, terminalStyle({ isTTY: false }, {}))).not.toContain('filtered out');
  });

  it('table: numbered clients, running but holding nothing, no answer, the reset shown as a reset', () => {
    const text = statusTable([withLive], NOW, terminalStyle({ isTTY: false }, {}));
    const lines = text.split('\n');
    expect(lines[0]).toBe('orders  topic Orders  group orders-lambda  (dynamodb)  lag 30  dead letters 7');
    expect(lines[1]).toBe(
      '  clients 3 (CLUSTERING, CONSUME_PASSIVELY), connected to 1 of 1 broker answering:',
    );
    expect(lines[2]).toMatch(/^ {4}#\s+CLIENT\s+ADDRESS\s+VERSION\s+LANGUAGE\s+RUNTIME\s+HOLDS$/);
    expect(lines[3]).toMatch(
      /^ {4}1\s+p1\s+p1:4000\s+V4_9_4\s+JAVA\s+rocketmq-lambda on Node.js v20\s+2 queues$/,
    );
    expect(lines[4]).toMatch(/^ {4}2\s+p3\s+.*\s+nothing: running but holding no queue$/);
    expect(lines[5]).toMatch(
      /^ {4}3\s+p4\s+p4:4000\s+V4_9_4\s+JAVA\s+-\s+\? no answer to running info: request code 307 timed out after 3000 ms$/,
    );
    expect(lines[6]).toMatch(
      /^ {2}QUEUE\s+MIN\s+MAX\s+COMMITTED\s+LAG\s+OLDEST\s+LIVE HOLDER\s+LAST WRITER\s+LAST WRITE$/,
    );
    expect(lines[7]).toMatch(/^ {2}broker-a:0\s+0\s+30\s+0 g1\s+30\s+4s\s+#1\s+reset g1\s+1s ago$/);
    expect(lines[8]).toMatch(/^ {2}broker-a:1\s+0\s+12\s+12\s+0\s+-\s+#1\s+#1\s+2s ago$/);
    expect(lines[9]).toMatch(/^ {2}broker-a:2\s+0\s+5\s+5\s+0\s+-\s+\?\s+p2 \(not connected\)\s+9s ago$/);
    expect(text).not.toContain('cli-9');
  });

  it('table: a group without clients, and a live group that could not be read', () => {
    const empty = { ...live, clients: [] };
    const none = statusTable([{ ...withLive, live: empty }], NOW, terminalStyle({ isTTY: false }, {}));
    expect(none).toContain('  no client of group orders-lambda is connected (1 of 1 broker answered)');
    // Nobody holds the lagging queue.
    expect(none).toMatch(/broker-a:0\s+0\s+30\s+0 g1\s+30\s+4s\s+none\s+cli-9 \(released\)/);
    const broken: LiveGroup = {
      ...empty,
      brokersAsked: 0,
      brokersAnswered: 0,
      problem: { kind: 'topic-missing', message: 'topic Orders does not exist' },
    };
    const text = statusTable([{ ...withLive, live: broken }], NOW, terminalStyle({ isTTY: false }, {}));
    expect(text).toContain('  live group: topic Orders does not exist');
    expect(text).not.toContain('no client of group');
  });
});

describe('reportUnreachable', () => {
  it('names a missing topic as such, once, and the live group and dead letters that could not be read', () => {
    const io = fakeCliIo();
    const missing: StatusSnapshot = {
      mapping,
      queues: [],
      brokerError: 'topic Orders does not exist (said 10.0.0.1:9876)',
      brokerErrorKind: 'topic-missing',
      live: {
        consumerGroup: 'orders-lambda',
        clients: [],
        consumeType: undefined,
        messageModel: undefined,
        subscriptions: [],
        brokersAsked: 0,
        brokersAnswered: 0,
        problem: { kind: 'topic-missing', message: 'topic Orders does not exist (said 10.0.0.1:9876)' },
      },
      deadLetters: { topic: '%DLQ%orders-lambda', error: 'connect ECONNREFUSED' },
    };
    expect(reportUnreachable(new Command('status'), [missing], io)).toBe(1);
    expect(io.err()).toBe(
      'status: orders: topic Orders does not exist (said 10.0.0.1:9876)\n' +
        'status: orders: dead letters of %DLQ%orders-lambda: connect ECONNREFUSED\n',
    );
  });
});
