import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  STALE_HOLDER_MS,
  statusJson,
  statusTable,
  totalLag,
} from '../../../src/cli/status-render.js';
import { terminalStyle } from '../../../src/cli/terminal-style.js';
import type { MappingPositions as MappingOffsets } from '../../../src/operations/queue-position.js';
import type { TargetMapping } from '../../../src/operations/target.js';

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
  it('prints one row per queue, holders with released/stale marks', () => {
    const text = statusTable([snapshot], NOW, terminalStyle({ isTTY: false }, {}));
    const lines = text.split('\n');
    expect(lines[0]).toBe('orders  topic Orders  group orders-lambda  (dynamodb)  lag 24');
    expect(lines[1]).toMatch(/^ {2}QUEUE\s+MIN\s+MAX\s+COMMITTED\s+LAG\s+OLDEST\s+HOLDER\s+LAST COMMIT$/);
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
