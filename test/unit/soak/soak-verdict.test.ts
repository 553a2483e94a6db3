import { describe, expect, it } from 'vitest';
import type { SoakHandling } from '../../support/soak/soak-functions.js';
import {
  activeFaults,
  formatVerdict,
  orderlySegments,
  type SoakAppliedFault,
  type SoakRecord,
  type SoakSent,
  slope,
  soakVerdict,
} from '../../support/soak/soak-verdict.js';

const T0 = 1_000_000;

function sent(id: string, over: Partial<SoakSent> = {}): SoakSent {
  return {
    id,
    topic: 'conc',
    mappings: ['concurrent'],
    role: 'ok',
    brokerName: 'broker-a',
    queueId: 0,
    sentAtMs: T0,
    ...over,
  };
}

function handled(messageId: string, over: Partial<SoakHandling> = {}): SoakHandling {
  return {
    mapping: 'concurrent',
    messageId,
    topic: 'conc',
    brokerName: 'broker-a',
    queueId: 0,
    queueOffset: 0,
    reconsumeTimes: 0,
    shardKey: undefined,
    seq: undefined,
    tag: undefined,
    atMs: T0 + 100,
    poller: 'p1',
    batch: 1,
    succeeded: true,
    ...over,
  };
}

function record(over: Partial<SoakRecord>): SoakRecord {
  return {
    seed: 1,
    minutes: 1,
    runStartedAtMs: T0,
    runEndedAtMs: T0 + 60_000,
    sent: [],
    handlings: [],
    dlqIds: new Map(),
    faults: [],
    memory: new Map(),
    exits: [],
    ...over,
  };
}

describe('soakVerdict', () => {
  it('counts a message only failed as lost, a fail-always one in the DLQ as not, and one outside it', () => {
    const v = soakVerdict(
      record({
        sent: [sent('a'), sent('b'), sent('c', { role: 'fail-always' }), sent('d', { role: 'fail-always' })],
        handlings: [handled('a'), handled('b', { succeeded: false }), handled('c', { succeeded: false })],
        dlqIds: new Map([['concurrent', new Set(['c'])]]),
      }),
    );
    expect(v).toMatchObject({ sent: 4, expected: 2, delivered: 1, lost: 1, failAlwaysSent: 2 });
    expect(v.pastRetryLimitOutsideDlq).toBe(1);
    expect(v.lostExamples).toEqual(['concurrent b broker-a:0']);
    expect(v.pass).toBe(false);
  });

  it('charges a duplicate to the fault active at the first handling, else at the duplicate (30 s tail), else none', () => {
    const faults: SoakAppliedFault[] = [
      { index: 1, kind: 'poller-sigkill', target: 'p1', startedAtMs: T0 + 1_000, endedAtMs: T0 + 2_000 },
    ];
    const v = soakVerdict(
      record({
        sent: [sent('a'), sent('b')],
        handlings: [
          handled('a'),
          handled('a', { atMs: T0 + 20_000 }),
          handled('b'),
          handled('b', { atMs: T0 + 40_000 }),
        ],
        faults,
      }),
    );
    expect(v.duplicatesByFault).toEqual({ 'poller-sigkill': 1, none: 1 });
    // First handled during a Lambda timeout burst, redelivered after it and during a later fault.
    const burst = soakVerdict(
      record({
        sent: [sent('t')],
        handlings: [handled('t', { atMs: T0 + 500 }), handled('t', { atMs: T0 + 20_000 })],
        faults: [
          { index: 1, kind: 'lambda-timeouts', target: 'all', startedAtMs: T0, endedAtMs: T0 + 1_000 },
          {
            index: 2,
            kind: 'slave-sigkill',
            target: 'broker-a-1',
            startedAtMs: T0 + 15_000,
            endedAtMs: T0 + 25_000,
          },
        ],
      }),
    );
    expect(burst.duplicatesByFault).toEqual({ 'lambda-timeouts': 1 });
    expect(v.perMapping.concurrent).toEqual({
      expected: 2,
      delivered: 2,
      deadLettered: 0,
      lost: 0,
      duplicates: 2,
    });
    expect(v.pass).toBe(true);
    expect(activeFaults(faults, T0 + 33_000, 30_000)).toEqual([]);
  });

  it('finds an orderly gap and counts filter leaks', () => {
    const order = [0, 1, 2].map((seq) =>
      sent(`o${seq}`, { topic: 'ord', mappings: ['orderly'], shardKey: 'k1', queueId: 1 }),
    );
    const v = soakVerdict(
      record({
        sent: [...order, sent('f', { mappings: ['concurrent', 'filter'] })],
        handlings: [
          handled('o0', { mapping: 'orderly', topic: 'ord', queueId: 1, queueOffset: 0, batch: 1 }),
          handled('o2', {
            mapping: 'orderly',
            topic: 'ord',
            queueId: 1,
            queueOffset: 2,
            batch: 2,
            atMs: T0 + 200,
          }),
          handled('o1', {
            mapping: 'orderly',
            topic: 'ord',
            queueId: 1,
            queueOffset: 1,
            batch: 3,
            atMs: T0 + 300,
          }),
          handled('f'),
          handled('f', { mapping: 'filter', tag: 'keep' }),
          handled('x', { mapping: 'filter', tag: 'other' }),
        ],
      }),
    );
    expect(v.orderViolations).toBeGreaterThan(0);
    expect(v.filterLeaks).toBe(1);
    expect(v.lost).toBe(0);
  });

  it('counts an orderly message in the DLQ as dead-lettered, and its skip as no violation', () => {
    const order = [0, 1, 2].map((seq) =>
      sent(`o${seq}`, { topic: 'ord', mappings: ['orderly'], shardKey: 'k1', queueId: 1, queueOffset: seq }),
    );
    const v = soakVerdict(
      record({
        sent: order,
        handlings: [
          handled('o0', { mapping: 'orderly', topic: 'ord', queueId: 1, queueOffset: 0, batch: 1 }),
          handled('o2', {
            mapping: 'orderly',
            topic: 'ord',
            queueId: 1,
            queueOffset: 2,
            batch: 2,
            atMs: T0 + 200,
          }),
        ],
        dlqIds: new Map([['orderly', new Set(['o1'])]]),
      }),
    );
    expect(v).toMatchObject({ lost: 0, deadLettered: 1, orderViolations: 0, pass: true });
  });

  it('keeps a stored message the ledger does not know (its send failed on our side) in its queue, not in a key', () => {
    const order = [0, 1, 2].map((seq) =>
      sent(`o${seq}`, {
        topic: 'ord',
        mappings: ['orderly'],
        shardKey: 'k1',
        queueId: 1,
        queueOffset: seq + 1,
      }),
    );
    const inBatch = (messageId: string, queueOffset: number, batch: number) =>
      handled(messageId, { mapping: 'orderly', topic: 'ord', queueId: 1, queueOffset, batch });
    // Offset 0 is 'x': stored, but its send timed out, and o0 is its resend at offset 1.
    const known = soakVerdict(
      record({ sent: order, handlings: ['x', 'o0', 'o1', 'o2'].map((id, offset) => inBatch(id, offset, 1)) }),
    );
    expect(known).toMatchObject({ lost: 0, orderViolations: 0, pass: true });
    // A batch that skips a known message still fails, phantom or not: its queue and its key.
    const skipping = soakVerdict(
      record({ sent: order, handlings: [inBatch('x', 0, 1), inBatch('o0', 1, 1), inBatch('o2', 3, 1)] }),
    );
    expect(skipping.orderViolations).toBe(2);
    expect(skipping.orderViolationExamples.join('\n')).toMatch(/batch \[0,1,3\]: not consecutive/);
  });

  it("cuts a key's sequence where its queue changes (the producer moved it)", () => {
    const segments = orderlySegments([
      sent('1', { shardKey: 'k', queueId: 1 }),
      sent('2', { shardKey: 'k', queueId: 1 }),
      sent('3', { shardKey: 'k', brokerName: 'broker-b', queueId: 1 }),
    ]);
    expect([...segments.values()]).toEqual([
      { shardKey: 'k@broker-a:1#0', seq: 0 },
      { shardKey: 'k@broker-a:1#0', seq: 1 },
      { shardKey: 'k@broker-b:1#1', seq: 0 },
    ]);
  });

  it('reports the longest stall of a queue with work and the faults during it', () => {
    const v = soakVerdict(
      record({
        sent: [sent('a'), sent('b', { sentAtMs: T0 + 1_000 })],
        handlings: [handled('a', { atMs: T0 + 500 }), handled('b', { atMs: T0 + 21_000 })],
        faults: [
          {
            index: 2,
            kind: 'master-sigkill',
            target: 'broker-a-0',
            startedAtMs: T0 + 2_000,
            endedAtMs: T0 + 15_000,
          },
        ],
      }),
    );
    expect(v.longestStall).toEqual({
      mapping: 'concurrent',
      queue: 'broker-a:0',
      seconds: 20,
      fromS: 1,
      faults: ['#2 master-sigkill broker-a-0'],
    });
    expect(formatVerdict(v)).toContain(
      'longest stall: 20 s on concurrent broker-a:0 from +1 s during #2 master-sigkill',
    );
  });

  it('fits the RSS slope in MiB per minute', () => {
    expect(
      slope([
        [0, 100],
        [1, 102],
        [2, 104],
      ]),
    ).toBeCloseTo(2);
    expect(slope([[0, 5]])).toBe(0);
    const v = soakVerdict(
      record({
        memory: new Map([
          [
            'p1',
            [0, 1, 2].map((m) => ({
              atMs: m * 60_000,
              rssBytes: (100 + m) * 1024 * 1024,
              heapBytes: (50 - m) * 1024 * 1024,
            })),
          ],
        ]),
      }),
    );
    expect(v.memory.p1).toEqual({
      samples: 3,
      spanMin: 2,
      firstMiB: 100,
      lastMiB: 102,
      rssSlopeMiBPerMin: 1,
      heapSlopeMiBPerMin: -1,
    });
  });
});
