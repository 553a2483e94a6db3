/**
 * The pull loop and messages too large to inflate (decoded apart by the decoder): each is handed off before
 * anything after it can be submitted, a hand-off the DLQ refuses keeps the queue there, a pull the
 * inflation budget cut short resumes where it stopped, broadcasting skips them, and every one settled is
 * named in one line per pull. And the share of `pullThresholdSizeForTopic` a queue may hold, which also
 * bounds what its next pull may inflate.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PullResult } from '../../../../src/client/pull-result.js';
import { newConsumerCounters } from '../../../../src/consumer/consumer-counters.js';
import { choosePullTarget } from '../../../../src/consumer/membership/topic-route-table.js';
import { ProcessQueue } from '../../../../src/consumer/pull/process-queue.js';
import { PullLoop, type TooLargeOutcome } from '../../../../src/consumer/pull/pull-loop.js';
import { MemoryOffsetStore } from '../../../../src/offsets/memory-offset-store.js';
import type { PullMessageRequestHeader } from '../../../../src/protocol/headers.js';
import type { TooLargeMessage } from '../../../../src/protocol/message-decoder.js';
import { buildSubscriptionData } from '../../../../src/protocol/subscription.js';
import { msg, options, queueA } from '../fakes.js';

const BOUNDS = { minOffset: 0, maxOffset: 1000, suggestWhichBrokerId: 0 };

function tooLarge(queueOffset: number): TooLargeMessage {
  return {
    message: msg(queueOffset),
    index: 0,
    reason: `body inflates past 6291456 bytes (${queueOffset} bytes of zlib as stored)`,
    storedBody: Buffer.alloc(1),
  };
}

interface Line {
  msg: string;
  msgIds?: string[];
  count?: number;
}

/**
 * A loop of queueA whose broker gives `answers` in turn, then holds the next pull for ever; `handOff`
 * is the consumer's too-large hand-off (absent: none).
 */
function run(
  answers: ((header: PullMessageRequestHeader) => PullResult)[],
  handOff?: (queueOffset: number) => Promise<TooLargeOutcome>,
  tags = '*',
  flow: { overrides?: Parameters<typeof options>[0]; heldQueueCount?: number } = {},
) {
  const lines: Line[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const asked: number[] = [];
  const submitted: number[] = [];
  const handedOff: number[] = [];
  const inflationBudgets: (number | undefined)[] = [];
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const counters = newConsumerCounters();
  const loop = new PullLoop(
    {
      processQueue: new ProcessQueue(queueA),
      broker: {
        pullMessage: (_address, header, callOptions) => {
          asked.push(header.queueOffset);
          inflationBudgets.push(callOptions?.decode?.maxInflatedBytes);
          const answer = answers.shift();
          if (answer === undefined) {
            finished();
            return new Promise<PullResult>(() => undefined);
          }
          return Promise.resolve(answer(header));
        },
      },
      routes: {
        pullTarget: (_name, id) => choosePullTarget(new Map([[0, 'master:10911']]), id ?? 0),
        refreshSoon: async () => undefined,
      },
      offsetStore: new MemoryOffsetStore(),
      consumeService: {
        submit: (messages) => {
          submitted.push(...messages.map((m) => m.queueOffset));
        },
      },
      subscription: buildSubscriptionData('T', tags),
      options: options({ pullDelayOnErrorMs: 1, ...flow.overrides }),
      heldQueueCount: () => flow.heldQueueCount ?? 1,
      counters,
      log,
      onOffsetIllegal: () => undefined,
      onNeedsRebalance: () => undefined,
      resolveStartOffset: async () => 0,
      deadLetterTooLarge:
        handOff === undefined
          ? undefined
          : async (consumed) => {
              const outcome = await handOff(consumed.message.queueOffset);
              handedOff.push(consumed.message.queueOffset);
              return outcome;
            },
    },
    0,
  );
  loop.start();
  return { loop, done, asked, submitted, handedOff, lines, counters, inflationBudgets };
}

const SENT = 'messages too large to inflate: sent to the DLQ';

describe('messages too large to inflate in a pull', () => {
  it('are handed off, the rest submitted, and all of them named in one line', async () => {
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 5,
          ...BOUNDS,
          messages: [msg(0), msg(2), msg(4)],
          tooLarge: [tooLarge(1), tooLarge(3)],
        }),
      ],
      async () => 'dead-lettered',
    );
    await r.done;
    await r.loop.stop();
    expect(r.asked).toEqual([0, 5]);
    expect(r.handedOff).toEqual([1, 3]);
    expect(r.submitted).toEqual([0, 2, 4]);
    expect(r.counters.tooLargeDeadLettered).toBe(2);
    const named = r.lines.filter((line) => line.msg === SENT);
    expect(named.map((line) => [line.count, line.msgIds])).toEqual([[2, ['m1', 'm3']]]);
  });

  it('a hand-off the DLQ refuses keeps the queue at that message: nothing after it is submitted', async () => {
    let refuse = true;
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 5,
          ...BOUNDS,
          messages: [msg(0), msg(2), msg(4)],
          tooLarge: [tooLarge(1), tooLarge(3)],
        }),
        () => ({
          status: 'FOUND',
          nextBeginOffset: 5,
          ...BOUNDS,
          messages: [msg(4)],
          tooLarge: [tooLarge(3)],
        }),
      ],
      async (queueOffset) => {
        if (queueOffset === 3 && refuse) {
          refuse = false;
          throw new Error('the DLQ is down');
        }
        return 'dead-lettered';
      },
    );
    await r.done;
    await r.loop.stop();
    // The second pull starts at the refused message; 4 is submitted only after 3 was taken.
    expect(r.asked).toEqual([0, 3, 5]);
    expect(r.submitted).toEqual([0, 2, 4]);
    expect(r.handedOff).toEqual([1, 3]);
    expect(r.counters.tooLargeDeadLettered).toBe(2);
  });

  it('a pull the inflation budget cut short is followed by one from where it stopped', async () => {
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 32,
          ...BOUNDS,
          messages: [msg(0), msg(1)],
          deferredFrom: 2,
        }),
        () => ({ status: 'FOUND', nextBeginOffset: 32, ...BOUNDS, messages: [msg(2)] }),
      ],
      async () => 'dead-lettered',
    );
    await r.done;
    await r.loop.stop();
    expect(r.asked).toEqual([0, 2, 32]);
    expect(r.submitted).toEqual([0, 1, 2]);
  });

  it('broadcasting skips them, counted and named', async () => {
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 3,
          ...BOUNDS,
          messages: [],
          tooLarge: [0, 1, 2].map(tooLarge),
        }),
      ],
      async () => 'skipped',
    );
    await r.done;
    await r.loop.stop();
    expect(r.counters.tooLargeSkipped).toBe(3);
    expect(r.counters.tooLargeDeadLettered).toBe(0);
    const line = r.lines.find((l) => /skipped \(broadcasting/.test(l.msg));
    expect(line?.msgIds).toEqual(['m0', 'm1', 'm2']);
  });

  it('one whose tags do not match is filtered, not dead-lettered', async () => {
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 2,
          ...BOUNDS,
          messages: [],
          tooLarge: [tooLarge(0), tooLarge(1)],
        }),
      ],
      async () => 'dead-lettered',
      'NoSuchTag',
    );
    await r.done;
    await r.loop.stop();
    expect(r.handedOff).toEqual([]);
    expect(r.counters.filteredMessages).toBe(2);
    expect(r.asked).toEqual([0, 2]);
  });
});

describe("a queue's share of pullThresholdSizeForTopic", () => {
  const KiB = 1024;
  const MiB = 1024 * KiB;
  // 4 queues held and 8 MiB for the topic: 2 MiB each, well under pullThresholdSizeForQueue.
  const flow = {
    overrides: {
      pullThresholdSizeForTopic: 8 * MiB,
      maxDecompressedBodyBytes: 256 * KiB,
      maxDecompressedPullBytes: 32 * MiB,
    },
    heldQueueCount: 4,
  };

  it('bounds what the next pull may inflate to what the share leaves, but never below one body', async () => {
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 1,
          ...BOUNDS,
          messages: [msg(0, { bodyBytes: 1536 * KiB })],
        }),
        () => ({
          status: 'FOUND',
          nextBeginOffset: 2,
          ...BOUNDS,
          messages: [msg(1, { bodyBytes: 400 * KiB })],
        }),
      ],
      undefined,
      '*',
      flow,
    );
    await r.done;
    await r.loop.stop();
    // Empty: the whole share; 1.5 MiB held: 512 KiB left; 1.9 MiB held: one body's limit.
    expect(r.inflationBudgets).toEqual([2 * MiB, 512 * KiB, 256 * KiB]);
  });

  it('pauses the queue while it holds more than its share', async () => {
    const r = run(
      [
        () => ({
          status: 'FOUND',
          nextBeginOffset: 1,
          ...BOUNDS,
          messages: [msg(0, { bodyBytes: 3 * MiB })],
        }),
      ],
      undefined,
      '*',
      flow,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await r.loop.stop();
    expect(r.asked).toEqual([0]);
    expect(r.counters.flowControlBytesPauses).toBeGreaterThan(0);
  });
});
