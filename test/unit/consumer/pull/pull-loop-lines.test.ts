/**
 * A broker that answers every pull with an offset we must follow backwards, an OFFSET_ILLEGAL from a
 * slave, or an OFFSET_ILLEGAL from the master (which ends the loop: a queue reset starts a new one) makes
 * the same warning at every pull: throttled per queue, across the loops, each line standing for itself
 * and its `suppressed`; the counters stay exact.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PullResult } from '../../../../src/client/pull-result.js';
import { newConsumerCounters } from '../../../../src/consumer/consumer-counters.js';
import { choosePullTarget } from '../../../../src/consumer/membership/topic-route-table.js';
import { ProcessQueue } from '../../../../src/consumer/pull/process-queue.js';
import { PullLoop } from '../../../../src/consumer/pull/pull-loop.js';
import { MemoryOffsetStore } from '../../../../src/offsets/memory-offset-store.js';
import type { PullMessageRequestHeader } from '../../../../src/protocol/headers.js';
import { buildSubscriptionData } from '../../../../src/protocol/subscription.js';
import { sharedThrottledLog } from '../../../../src/util/shared-throttled-log.js';
import { options, queueA } from '../fakes.js';

interface Line {
  level: number;
  msg: string;
  suppressed?: number;
}

const PULLS = 200;

/** A logger that keeps its lines. */
function capturingLogger(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

/** How many occurrences the lines saying `message` stand for (after the held-back counts are written). */
function occurrences(lines: readonly Line[], message: string): { lines: number; occurrences: number } {
  const said = lines.filter((line) => line.msg === message);
  return { lines: said.length, occurrences: said.reduce((sum, line) => sum + 1 + (line.suppressed ?? 0), 0) };
}

/**
 * A loop of queueA whose broker answers the first `answers` pulls with `answer(address, header)`, then
 * holds the next one for ever; resolves once they were all answered.
 */
function runLoop(
  log: pino.Logger,
  counters: ReturnType<typeof newConsumerCounters>,
  startOffset: number,
  answers: number,
  answer: (address: string, header: PullMessageRequestHeader) => PullResult,
  offsetStore: PullLoopStore = new MemoryOffsetStore(),
): { loop: PullLoop; done: Promise<void>; illegal: number[] } {
  let answered = 0;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const illegal: number[] = [];
  const loop = new PullLoop(
    {
      processQueue: new ProcessQueue(queueA),
      broker: {
        pullMessage: (address, header) => {
          if (answered === answers) {
            finished();
            return new Promise<PullResult>(() => undefined);
          }
          answered++;
          return Promise.resolve(answer(address, header));
        },
      },
      routes: {
        pullTarget: (_name, id) =>
          choosePullTarget(
            new Map([
              [0, 'master:10911'],
              [1, 'slave:10911'],
            ]),
            id ?? 0,
          ),
        refreshSoon: async () => undefined,
      },
      offsetStore,
      consumeService: { submit: () => undefined },
      subscription: buildSubscriptionData('T', '*'),
      options: options(),
      counters,
      log,
      onOffsetIllegal: (_queue, offset) => {
        illegal.push(offset);
        finished();
      },
      onNeedsRebalance: () => undefined,
      resolveStartOffset: async () => startOffset,
    },
    startOffset,
  );
  loop.start();
  return { loop, done, illegal };
}

type PullLoopStore = ConstructorParameters<typeof PullLoop>[0]['offsetStore'];

const bounds = { minOffset: 0, maxOffset: 1_000_000, suggestWhichBrokerId: 0 };

describe('PullLoop lines a broker can repeat at every pull', () => {
  it('an offset moved backwards at every pull: a few lines, the counter exact', async () => {
    const { log, lines } = capturingLogger();
    const counters = newConsumerCounters();
    const { loop, done } = runLoop(log, counters, 100_000, PULLS, (_address, header) => ({
      status: 'NO_NEW_MSG',
      nextBeginOffset: header.queueOffset - 1,
      ...bounds,
    }));
    await done;
    await loop.stop();
    sharedThrottledLog(log).flush();

    expect(counters.offsetMovedBackwards).toBe(PULLS);
    const backwards = occurrences(
      lines,
      'broker moved the offset backwards: messages will be consumed again',
    );
    expect(backwards.lines).toBeLessThanOrEqual(3);
    expect(backwards.occurrences).toBe(PULLS);
  });

  it('OFFSET_ILLEGAL from a slave at every other pull: throttled the same', async () => {
    const { log, lines } = capturingLogger();
    const counters = newConsumerCounters();
    const { loop, done } = runLoop(log, counters, 10, PULLS * 2, (address, header) =>
      address === 'slave:10911'
        ? { status: 'OFFSET_ILLEGAL', nextBeginOffset: 2, ...bounds }
        : { status: 'NO_NEW_MSG', nextBeginOffset: header.queueOffset, ...bounds, suggestWhichBrokerId: 1 },
    );
    await done;
    await loop.stop();
    sharedThrottledLog(log).flush();

    expect(counters.offsetIllegal).toBe(PULLS);
    const slave = occurrences(lines, 'offset illegal on a slave: asking the master');
    expect(slave.lines).toBeLessThanOrEqual(3);
    expect(slave.occurrences).toBe(PULLS);
  });

  it('OFFSET_ILLEGAL from the master, each ending its loop and the next loop of the queue meeting it again', async () => {
    const { log, lines } = capturingLogger();
    const counters = newConsumerCounters();
    const store = new MemoryOffsetStore();
    const failingStore: PullLoopStore = {
      readOffset: (queue, type) => store.readOffset(queue, type),
      updateOffset: (queue, offset, increaseOnly) => store.updateOffset(queue, offset, increaseOnly),
      correctOffset: (queue, offset) => store.correctOffset(queue, offset),
      persist: async () => {
        throw new Error('table not writable');
      },
    };
    let offset = 100_000;
    for (let i = 0; i < PULLS; i++) {
      const { loop, done, illegal } = runLoop(
        log,
        counters,
        offset,
        1,
        (_address, header) => ({
          status: 'OFFSET_ILLEGAL',
          nextBeginOffset: header.queueOffset - 1,
          ...bounds,
        }),
        failingStore,
      );
      await done;
      await loop.stop();
      offset = illegal[0] as number;
    }
    sharedThrottledLog(log).flush();

    expect(counters).toMatchObject({ offsetIllegal: PULLS, offsetMovedBackwards: PULLS });
    for (const message of [
      'offset illegal: queue restarts at the broker-given offset',
      'broker moved the offset backwards: messages will be consumed again',
      'persisting the corrected offset failed',
    ]) {
      const said = occurrences(lines, message);
      expect(said.lines, message).toBeLessThanOrEqual(3);
      expect(said.occurrences, message).toBe(PULLS);
    }
  });
});
