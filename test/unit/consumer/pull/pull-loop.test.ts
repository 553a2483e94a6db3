import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrokerError } from '../../../../src/client/broker-error.js';
import { NoBrokerAddressError } from '../../../../src/client/no-broker-address-error.js';
import { PullFrameTemplate } from '../../../../src/client/pull-frame-template.js';
import type { PullResult } from '../../../../src/client/pull-result.js';
import { newConsumerCounters } from '../../../../src/consumer/consumer-counters.js';
import type { ConsumerOptions } from '../../../../src/consumer/consumer-options.js';
import { choosePullTarget } from '../../../../src/consumer/membership/topic-route-table.js';
import { ProcessQueue } from '../../../../src/consumer/pull/process-queue.js';
import {
  offsetAfterIllegal,
  PullLoop,
  type PullLoopOptions,
} from '../../../../src/consumer/pull/pull-loop.js';
import { ConnectError } from '../../../../src/network/errors.js';
import { MemoryOffsetStore } from '../../../../src/offsets/memory-offset-store.js';
import type { PullMessageRequestHeader } from '../../../../src/protocol/headers.js';
import { MessageDecodeError } from '../../../../src/protocol/message-decoder.js';
import { ResponseCode } from '../../../../src/protocol/response-code.js';
import { buildSubscriptionData } from '../../../../src/protocol/subscription.js';
import { rootLogger } from '../../../../src/util/logger.js';
import { msg, options, queueA } from '../fakes.js';

type Step = PullResult | Error;
const bounds = { minOffset: 0, maxOffset: 100, suggestWhichBrokerId: 0 };

function setup(
  steps: Step[],
  overrides: Partial<ConsumerOptions> = {},
  expression = '*',
  deadLetterUndecodable?: PullLoopOptions['deadLetterUndecodable'],
  startOffsetFromBroker = false,
  brokerAddrs: Map<number, string> = new Map([
    [0, 'master:10911'],
    [1, 'slave:10911'],
  ]),
) {
  let routeRefreshes = 0;
  const pulls: {
    address: string;
    header: PullMessageRequestHeader;
    template?: PullFrameTemplate | undefined;
  }[] = [];
  const pending: Step[] = [...steps];
  const processQueue = new ProcessQueue(queueA);
  const offsetStore = new MemoryOffsetStore();
  const submitted: number[][] = [];
  /** The arrays submit() was given, as given. */
  const handedOver: (readonly unknown[])[] = [];
  const illegal: number[] = [];
  let rebalanceNeeded = 0;
  const counters = newConsumerCounters();
  const carried: number[] = [];
  const loop = new PullLoop(
    {
      processQueue,
      broker: {
        pullMessage: (address, header, pullOptions) => {
          pulls.push({ address, header, template: pullOptions?.template });
          const step = pending.shift();
          if (step === undefined) return new Promise<PullResult>(() => undefined); // a long poll that never ends
          return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
        },
      },
      routes: {
        pullTarget: (_name, id) => choosePullTarget(brokerAddrs, id ?? 0),
        refreshSoon: async () => {
          routeRefreshes++;
          return undefined;
        },
      },
      offsetStore,
      consumeService: {
        submit: (messages) => {
          handedOver.push(messages);
          submitted.push(messages.map((m) => m.queueOffset));
        },
      },
      subscription: buildSubscriptionData('T', expression),
      options: options(overrides),
      counters,
      log: rootLogger,
      onOffsetIllegal: (_queue, offset) => illegal.push(offset),
      onNeedsRebalance: () => {
        rebalanceNeeded++;
      },
      resolveStartOffset: async () => 99,
      deadLetterUndecodable,
      offsetCarried: (queue, offset) => {
        expect(queue).toBe(queueA);
        carried.push(offset);
      },
    },
    10,
    startOffsetFromBroker,
  );
  return {
    loop,
    pulls,
    carried,
    processQueue,
    offsetStore,
    submitted,
    handedOver,
    illegal,
    counters,
    rebalanceNeeded: () => rebalanceNeeded,
    routeRefreshes: () => routeRefreshes,
  };
}

describe('PullLoop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('FOUND: re-checks tags, puts messages in the ProcessQueue, submits them and pulls on from nextBeginOffset', async () => {
    const found: PullResult = {
      status: 'FOUND',
      messages: [msg(10, { tags: 'A' }), msg(11, { tags: 'B' }), msg(12, { tags: 'A' })],
      nextBeginOffset: 13,
      ...bounds,
    };
    const t = setup([found], {}, 'A');
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.submitted).toEqual([[10, 12]]);
    expect(t.processQueue.messageCount).toBe(2);
    expect(t.counters.filteredMessages).toBe(1);
    expect(t.pulls.map((p) => p.header.queueOffset)).toEqual([10, 13]);
    expect(t.pulls[0]?.header).toMatchObject({
      suspendTimeoutMillis: 15000,
      maxMsgNums: 32,
      sysFlag: 2,
      bname: 'b',
    });
    await t.loop.stop();
  });

  it('sends no pull once stopped while it read the offset to commit (the pull would be left unhandled)', async () => {
    // A stop right after start: the loop is inside the commit-offset read when stop() comes. The pull
    // must not go out; before, it did and its rejection at the client's close went unhandled (a
    // Ctrl-C during `npm run demo` start crashed the demo with ConnectionClosedError).
    const t = setup([new Error('connection closed by the client')]);
    let release: (offset: number) => void = () => undefined;
    await t.offsetStore.updateOffset(queueA, 5, false);
    vi.spyOn(t.offsetStore, 'readOffset').mockImplementationOnce(
      () => new Promise<number>((resolve) => (release = resolve)),
    );
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    const stopped = t.loop.stop();
    release(5);
    await stopped;
    expect(t.pulls).toEqual([]);
    expect(t.loop.active).toBe(false);
  });

  it("empties a pull's arrays once the ProcessQueue and the consume service have its messages", async () => {
    const messages = [msg(10), msg(11, { tags: 'B' }), msg(12)];
    const found: PullResult = { status: 'FOUND', messages, nextBeginOffset: 13, ...bounds };
    const t = setup([found], {}, 'A || B');
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.submitted).toEqual([[11]]);
    expect(t.processQueue.messageCount).toBe(1);
    expect(messages).toHaveLength(0);
    expect(t.handedOver[0]).toHaveLength(0);
    await t.loop.stop();
  });

  it('encodes its pulls from one frame template that every header it sends fits', async () => {
    const found = (from: number): PullResult => ({
      status: 'FOUND',
      messages: [msg(from)],
      nextBeginOffset: from + 1,
      ...bounds,
    });
    const t = setup([found(10), found(11)]);
    t.offsetStore.updateOffset(queueA, 5, true);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.pulls.map((p) => [p.header.queueOffset, p.header.sysFlag])).toEqual([
      [10, 3],
      [11, 3],
      [12, 3],
    ]);
    const template = t.pulls[0]?.template;
    expect(template).toBeInstanceOf(PullFrameTemplate);
    for (const pull of t.pulls) {
      expect(pull.template).toBe(template);
      expect(template?.fits(pull.header)).toBe(true);
    }
    await t.loop.stop();
  });

  it('NO_NEW_MSG with an empty ProcessQueue stores the next offset (increase-only)', async () => {
    const t = setup([{ status: 'NO_NEW_MSG', nextBeginOffset: 15, ...bounds }]);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(await t.offsetStore.readOffset(queueA, 'MEMORY')).toBe(15);
    expect(t.loop.nextOffset).toBe(15);
    await t.loop.stop();
  });

  it('OFFSET_ILLEGAL backwards: drops the queue, stores and persists the offset, counts the backwards move', async () => {
    const t = setup([{ status: 'OFFSET_ILLEGAL', nextBeginOffset: 3, ...bounds }]);
    t.offsetStore.updateOffset(queueA, 10, true);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.processQueue.dropped).toBe(true);
    expect(await t.offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(t.offsetStore.isDirty(queueA)).toBe(false);
    expect(t.illegal).toEqual([3]);
    expect(t.counters).toMatchObject({ offsetIllegal: 1, offsetMovedBackwards: 1 });
    expect(t.pulls).toHaveLength(1);
    await t.loop.stop();
  });

  it('OFFSET_ILLEGAL beyond the end of a recreated queue: restarts at its first message, as a correction', async () => {
    // Stored 10, the broker lost its store: the queue now holds 0..4 and 5.x suggests its end (5).
    const t = setup([
      { status: 'OFFSET_ILLEGAL', nextBeginOffset: 5, minOffset: 0, maxOffset: 5, suggestWhichBrokerId: 0 },
    ]);
    t.offsetStore.updateOffset(queueA, 10, true);
    await t.offsetStore.persist(queueA);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.illegal).toEqual([0]);
    expect(await t.offsetStore.readRecord(queueA)).toMatchObject({ offset: 0, generation: 1 });
    await t.loop.stop();
  });

  it('OFFSET_ILLEGAL from a slave moves nothing: the next pull asks the master', async () => {
    const t = setup([
      { status: 'NO_NEW_MSG', nextBeginOffset: 10, ...bounds, suggestWhichBrokerId: 1 },
      { status: 'OFFSET_ILLEGAL', nextBeginOffset: 2, minOffset: 0, maxOffset: 8, suggestWhichBrokerId: 0 },
    ]);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.pulls.map((p) => p.address)).toEqual(['master:10911', 'slave:10911', 'master:10911']);
    expect(t.illegal).toEqual([]);
    expect(t.loop.nextOffset).toBe(10);
    expect(t.processQueue.dropped).toBe(false);
    await t.loop.stop();
  });

  it('offsetAfterIllegal: the first message when beyond the end, else what the broker says', () => {
    expect(offsetAfterIllegal(1500, { nextBeginOffset: 250, minOffset: 0, maxOffset: 250 })).toBe(0);
    expect(offsetAfterIllegal(1500, { nextBeginOffset: 250, minOffset: 40, maxOffset: 250 })).toBe(40);
    expect(offsetAfterIllegal(10, { nextBeginOffset: 500, minOffset: 500, maxOffset: 900 })).toBe(500);
    expect(offsetAfterIllegal(0, { nextBeginOffset: 0, minOffset: 0, maxOffset: 0 })).toBe(0);
  });

  it('pauses (50 ms) while the ProcessQueue holds more than pullThresholdForQueue messages', async () => {
    const t = setup([], { pullThresholdForQueue: 1 });
    t.processQueue.putMessages([msg(0), msg(1)]);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(120);
    expect(t.pulls).toHaveLength(0);
    expect(t.counters.flowControlCountPauses).toBe(3);
    t.processQueue.removeMessages([msg(0)]);
    await vi.advanceTimersByTimeAsync(50);
    expect(t.pulls).toHaveLength(1);
    await t.loop.stop();
  });

  it('pauses on bytes and on span', async () => {
    const bytes = setup([], { pullThresholdSizeForQueue: 5 });
    bytes.processQueue.putMessages([msg(0, { bodyBytes: 6 })]);
    bytes.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(bytes.counters.flowControlBytesPauses).toBe(1);
    await bytes.loop.stop();
    const span = setup([], { consumeConcurrentlyMaxSpan: 5 });
    span.processQueue.putMessages([msg(0), msg(6)]);
    span.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(span.counters.flowControlSpanPauses).toBe(1);
    expect(span.pulls).toHaveLength(0);
    await span.loop.stop();
  });

  it('backs off 3000 ms after an error and asks for a heartbeat when the broker does not know the subscription', async () => {
    const notLatest = new BrokerError({
      code: ResponseCode.SUBSCRIPTION_NOT_LATEST,
      requestCode: 11,
      address: 'x',
    });
    const t = setup([notLatest]);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(2999);
    expect(t.pulls).toHaveLength(1);
    expect(t.rebalanceNeeded()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.pulls).toHaveLength(2);
    await t.loop.stop();
  });

  it('retries after 20 ms on broker FLOW_CONTROL', async () => {
    const t = setup([new BrokerError({ code: ResponseCode.FLOW_CONTROL, requestCode: 11, address: 'x' })]);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(20);
    expect(t.pulls).toHaveLength(2);
    await t.loop.stop();
  });

  it('honours suggestWhichBrokerId and leaves COMMIT_OFFSET clear when pulling from a replica', async () => {
    const t = setup([
      { status: 'NO_NEW_MSG', nextBeginOffset: 10, minOffset: 0, maxOffset: 10, suggestWhichBrokerId: 1 },
    ]);
    t.offsetStore.updateOffset(queueA, 10, true);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.pulls.map((p) => p.address)).toEqual(['master:10911', 'slave:10911']);
    expect(t.pulls[0]?.header).toMatchObject({ commitOffset: 10, sysFlag: 3 });
    expect(t.pulls[1]?.header).toMatchObject({ commitOffset: 0, sysFlag: 2 });
    // Only the pull to the master took the offset there (the broker offset sync skips it).
    expect(t.carried).toEqual([10]);
    await t.loop.stop();
  });

  it('keeps the offset before an undecodable record and retries later', async () => {
    const found: PullResult = {
      status: 'FOUND',
      messages: [msg(10)],
      nextBeginOffset: 20,
      ...bounds,
      decodeError: new BrokerError({ code: 1, requestCode: 11, address: 'x' }),
    };
    const t = setup([found]);
    t.loop.start();
    await vi.advanceTimersByTimeAsync(3000);
    expect(t.pulls.map((p) => p.header.queueOffset)).toEqual([10, 11]);
    expect(t.counters.decodeErrors).toBe(1);
    await t.loop.stop();
  });

  it('hands an undecodable record with a known position to the DLQ and pulls on after it', async () => {
    const bad = new MessageDecodeError('zlib body does not inflate', {
      byteOffset: 120,
      queueOffset: 11,
      physicalOffset: 987_654,
    });
    const found: PullResult = {
      status: 'FOUND',
      messages: [msg(10)],
      nextBeginOffset: 20,
      ...bounds,
      decodeError: bad,
    };
    const handedOver: { queueId: number; physicalOffset: number }[] = [];
    const t = setup([found], {}, '*', async (queue, physicalOffset) => {
      handedOver.push({ queueId: queue.queueId, physicalOffset });
    });
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(handedOver).toEqual([{ queueId: queueA.queueId, physicalOffset: 987_654 }]);
    expect(t.pulls.map((p) => p.header.queueOffset)).toEqual([10, 12]);
    expect(t.counters.decodeErrors).toBe(1);
    expect(t.counters.undecodableDeadLettered).toBe(1);
    await t.loop.stop();
  });

  it('stays before an undecodable record when the DLQ hand-off fails', async () => {
    const bad = new MessageDecodeError('bad', { byteOffset: 0, queueOffset: 11, physicalOffset: 5 });
    const found: PullResult = {
      status: 'FOUND',
      messages: [msg(10)],
      nextBeginOffset: 20,
      ...bounds,
      decodeError: bad,
    };
    const t = setup([found], {}, '*', async () => {
      throw new BrokerError({ code: 1, requestCode: 36, address: 'x' });
    });
    t.loop.start();
    await vi.advanceTimersByTimeAsync(3000);
    expect(t.pulls.map((p) => p.header.queueOffset)).toEqual([10, 11]);
    expect(t.counters.undecodableDeadLettered).toBe(0);
    await t.loop.stop();
  });

  it('orderly: the first pull after locking restarts from the stored offset', async () => {
    const t = setup([], { orderly: true });
    t.processQueue.locked = true;
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.pulls.map((p) => p.header.queueOffset)).toEqual([99]);
    await t.loop.stop();
  });

  it("orderly: a loop restarted at the broker's OFFSET_ILLEGAL correction keeps that offset", async () => {
    const t = setup([], { orderly: true }, '*', undefined, true);
    t.processQueue.locked = true;
    t.loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.pulls.map((p) => p.header.queueOffset)).toEqual([10]);
    await t.loop.stop();
  });

  it('stop() returns promptly while a long poll is in flight', async () => {
    vi.useRealTimers();
    const t = setup([]);
    t.loop.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(t.pulls).toHaveLength(1);
    const started = Date.now();
    await t.loop.stop();
    expect(Date.now() - started).toBeLessThan(100);
    expect(t.loop.active).toBe(false);
  });
  describe('broker choice in a master/slave group', () => {
    const slaveOnly = new Map([[1, 'slave:10911']]);

    it('pulls from the slave while the master is gone from the route, without COMMIT_OFFSET', async () => {
      const found: PullResult = {
        status: 'FOUND',
        messages: [msg(10), msg(11)],
        nextBeginOffset: 12,
        ...bounds,
      };
      const t = setup([found], {}, '*', undefined, false, slaveOnly);
      t.offsetStore.updateOffset(queueA, 10, true);
      t.loop.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(t.pulls.map((p) => p.address)).toEqual(['slave:10911', 'slave:10911']);
      expect(t.pulls[0]?.header).toMatchObject({ queueOffset: 10, commitOffset: 0, sysFlag: 2 });
      expect(t.submitted).toEqual([[10, 11]]);
      expect(t.pulls[1]?.header.queueOffset).toBe(12);
      await t.loop.stop();
    });

    it('an empty answer of a slave never moves the offset backwards', async () => {
      const t = setup([
        { status: 'NO_NEW_MSG', nextBeginOffset: 10, ...bounds, suggestWhichBrokerId: 1 },
        { status: 'NO_MATCHED_MSG', nextBeginOffset: 4, ...bounds },
      ]);
      t.loop.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(t.pulls.map((p) => p.address)).toEqual(['master:10911', 'slave:10911', 'master:10911']);
      expect(t.loop.nextOffset).toBe(10);
      expect(t.counters.offsetMovedBackwards).toBe(0);
      await t.loop.stop();
    });

    it('OFFSET_ILLEGAL from a stand-in slave keeps the queue and waits for the master', async () => {
      const t = setup(
        [
          {
            status: 'OFFSET_ILLEGAL',
            nextBeginOffset: 2,
            minOffset: 0,
            maxOffset: 8,
            suggestWhichBrokerId: 0,
          },
        ],
        { pullDelayOnErrorMs: 500 },
        '*',
        undefined,
        false,
        slaveOnly,
      );
      t.loop.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(t.pulls).toHaveLength(1);
      expect(t.illegal).toEqual([]);
      expect(t.processQueue.dropped).toBe(false);
      await vi.advanceTimersByTimeAsync(500);
      expect(t.pulls).toHaveLength(2);
      expect(t.loop.nextOffset).toBe(10);
      await t.loop.stop();
    });

    it('refreshes the route when the broker cannot be reached or the group has no address', async () => {
      const refused = new ConnectError('connect ECONNREFUSED', { address: 'master:10911' });
      const t = setup([refused], { pullDelayOnErrorMs: 100 });
      t.loop.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(t.routeRefreshes()).toBe(1);
      const gone = setup([], { pullDelayOnErrorMs: 100 }, '*', undefined, false, new Map());
      gone.loop.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(gone.pulls).toHaveLength(0);
      expect(gone.routeRefreshes()).toBe(1);
      expect(gone.loop.progress.lastError).toBeInstanceOf(NoBrokerAddressError);
      await Promise.all([t.loop.stop(), gone.loop.stop()]);
    });
  });
});
