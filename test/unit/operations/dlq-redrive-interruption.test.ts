/**
 * A redrive stopped at every possible point: by its signal (SIGINT/SIGTERM: the send in flight is
 * finished and saved) and by a crash (SIGKILL: the process dies between any two steps, before or after a
 * send reached the broker, before or after a save), then run again; every dead letter reaches the target
 * exactly once. The target is a fake broker's queues searched by the real redriven-copy.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ProducerMessage } from '../../../src/client/producer.js';
import type { QueueReadResult } from '../../../src/client/queue-reader.js';
import type { DeadLetterPage } from '../../../src/operations/dead-letter-queue.js';
import {
  type RedriveEvent,
  type RedriveQueueOptions,
  redriveQueue,
} from '../../../src/operations/dead-letter-redrive.js';
import {
  COPY_SEARCH_MAX_MESSAGES,
  CopySearchLimitError,
  type CopySearchReader,
  findRedrivenCopy,
  REDRIVEN_FROM_PROPERTY,
  redrivenFromValue,
} from '../../../src/operations/redriven-copy.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';
import { deadLetter } from '../cli/dlq-fixtures.js';

const DLQ: MessageQueue = { topic: '%DLQ%G', brokerName: 'broker-a', queueId: 0 };
const RETRY = '%RETRY%G';

/** A promise that never settles: what the rest of a killed process does. */
const never = new Promise<never>(() => {
  // Never settles.
});

/** A broker holding a DLQ of `count` dead letters, the redrive position and a two-queue target topic. */
class FakeBroker {
  position: number | undefined;
  readonly target: MessageExt[][] = [[], []];
  #step = 0;
  #next = 0;
  #die: () => void = () => undefined;
  /** Resolves when the process "dies" (the run is abandoned where it was). */
  readonly died = new Promise<void>((resolve) => {
    this.#die = resolve;
  });

  constructor(
    readonly count: number,
    /** The step (1-based) at which the process dies; 0: never. */
    readonly crashAt = 0,
  ) {}

  /** True when the process dies at this step (the caller then waits forever). */
  #dies(): boolean {
    if (++this.#step !== this.crashAt) return false;
    this.#die();
    return true;
  }

  readonly dlq: RedriveQueueOptions['dlq'] = {
    consumerGroup: 'G',
    pages: (_queue, fromOffset, limit) => this.#pages(fromOffset, limit),
    saveRedrivePosition: async (_queue, offset) => {
      if (this.#dies()) await never; // before the save
      this.position = offset;
      if (this.#dies()) await never; // after the broker stored it, before the answer
    },
  };

  async *#pages(fromOffset: number, limit: number): AsyncGenerator<DeadLetterPage> {
    let offset = fromOffset;
    while (offset < this.count && offset - fromOffset < limit) {
      const size = Math.min(3, this.count - offset);
      const messages = Array.from({ length: size }, (_, i) => deadLetter(offset + i));
      offset += size;
      yield { messages, tooLarge: new Map(), nextOffset: offset, minOffset: 0, maxOffset: this.count };
    }
  }

  readonly send = async (message: ProducerMessage & { topic: string }): Promise<{ msgId: string }> => {
    if (this.#dies()) await never; // before the send left
    const queue = this.target[this.#next++ % this.target.length] as MessageExt[];
    const msgId = `COPY${this.#next}`;
    queue.push({
      ...deadLetter(0),
      topic: message.topic,
      queueOffset: queue.length,
      reconsumeTimes: 0,
      storeTimestamp: Date.now(),
      body: Buffer.from(message.body),
      properties: { ...(message.properties ?? {}), UNIQ_KEY: msgId },
      msgId,
    });
    if (this.#dies()) await never; // after the broker stored it, before the answer
    return { msgId };
  };

  readonly reader: CopySearchReader = {
    queues: async (topic) =>
      this.target.map((_, queueId) => ({
        queue: { topic, brokerName: 'broker-a', queueId },
        readable: true,
      })),
    read: async (queue, offset, { maxMessages = 32 } = {}): Promise<QueueReadResult> => {
      const messages = this.target[queue.queueId] ?? [];
      const found = messages.slice(offset, offset + maxMessages);
      return {
        status: offset >= messages.length ? 'NO_NEW_MSG' : 'FOUND',
        messages: found,
        nextOffset: offset + found.length,
        minOffset: 0,
        maxOffset: messages.length,
      };
    },
  };

  /** A run that the crash ends: resolves with 'died', or with the result when it finished first. */
  async runUntilDeath(options: { search?: boolean } = {}) {
    return Promise.race([this.died.then(() => 'died' as const), this.run(options)]);
  }

  /** A run as the command does it: from the stored position (the oldest when none). */
  run(options: { search?: boolean; signal?: AbortSignal; onEvent?: (event: RedriveEvent) => void } = {}) {
    return redriveQueue({
      dlq: this.dlq,
      queue: DLQ,
      fromOffset: this.position ?? 0,
      position: this.position,
      limit: Number.MAX_SAFE_INTEGER,
      to: 'retry',
      fallbackTopic: 'Orders',
      send: this.send,
      findCopy:
        options.search === false
          ? undefined
          : (topic, queue, offset, at) => findRedrivenCopy(this.reader, topic, queue, offset, at),
      signal: options.signal,
      onEvent: options.onEvent ?? (() => undefined),
    });
  }

  /** How often each dead letter's body reached the target. */
  ledger(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const message of this.target.flat()) {
      const body = message.body.toString();
      counts.set(body, (counts.get(body) ?? 0) + 1);
    }
    return counts;
  }
}

const ALL = (count: number) => new Map(Array.from({ length: count }, (_, i) => [`{"order":${i}}`, 1]));

describe('redrive interrupted', () => {
  it('a crash at any step, then a second run: every dead letter arrives exactly once', async () => {
    const count = 7;
    // 1 start save (2 steps) + per message: send (2 steps) + save (2 steps).
    const steps = 2 + count * 4;
    for (let crashAt = 1; crashAt <= steps; crashAt++) {
      const broker = new FakeBroker(count, crashAt);
      expect(await broker.runUntilDeath(), `crash at ${crashAt}`).toBe('died');
      const again = await broker.run();
      expect(broker.ledger(), `crash at ${crashAt}`).toEqual(ALL(count));
      expect(again.position).toBe(count);
    }
  });

  it('two crashes in a row at the same message still send it once', async () => {
    const broker = new FakeBroker(4, 2 + 4 + 2); // dies after the second send reached the broker
    expect(await broker.runUntilDeath()).toBe('died');
    const events: RedriveEvent[] = [];
    await broker.run({ onEvent: (e) => events.push(e) });
    expect(events[0]).toMatchObject({ kind: 'already-sent', newMsgId: 'COPY2', topic: RETRY });
    expect(events.slice(1).map((e) => e.kind)).toEqual(['sent', 'sent']);
    expect(broker.ledger()).toEqual(ALL(4));
  });

  it('without the search, a kill between a send and its save sends that message twice', async () => {
    const broker = new FakeBroker(4, 2 + 2); // the first send stored, its answer lost
    expect(await broker.runUntilDeath({ search: false })).toBe('died');
    await broker.run({ search: false });
    expect(broker.ledger().get('{"order":0}')).toBe(2);
  });

  it('a stop signal finishes the send in flight, saves past it and says where it stopped', async () => {
    const broker = new FakeBroker(6);
    const stop = new AbortController();
    const send = broker.send;
    let sends = 0;
    const result = await redriveQueue({
      dlq: broker.dlq,
      queue: DLQ,
      fromOffset: 0,
      limit: Number.MAX_SAFE_INTEGER,
      to: 'retry',
      fallbackTopic: 'Orders',
      send: async (message) => {
        if (++sends === 3) stop.abort(); // Ctrl-C while the third is in flight
        return send(message);
      },
      signal: stop.signal,
      onEvent: () => undefined,
    });
    expect(result).toMatchObject({ sent: 3, stoppedAt: 3, position: 3 });
    expect(broker.position).toBe(3);
    await broker.run();
    expect(broker.ledger()).toEqual(ALL(6));
  });
});

describe('findRedrivenCopy', () => {
  function reader(messages: MessageExt[]): CopySearchReader {
    const broker = new FakeBroker(0);
    broker.target.splice(0, 2, messages);
    return broker.reader;
  }
  const copy = (offset: number, overrides: Partial<MessageExt> = {}): MessageExt => ({
    ...deadLetter(0),
    reconsumeTimes: 0,
    storeTimestamp: 2_000_000_000_000,
    properties: { [REDRIVEN_FROM_PROPERTY]: redrivenFromValue(DLQ, offset) },
    msgId: `COPY-OF-${offset}`,
    ...overrides,
  });
  const other = (overrides: Partial<MessageExt> = {}): MessageExt => ({
    ...deadLetter(0),
    storeTimestamp: 2_000_000_000_000,
    properties: {},
    ...overrides,
  });
  const withOffsets = (messages: MessageExt[]) => messages.map((m, i) => ({ ...m, queueOffset: i }));

  it('finds the copy behind newer messages of others', async () => {
    const found = await findRedrivenCopy(
      reader(withOffsets([copy(4), copy(5), other(), other()])),
      RETRY,
      DLQ,
      5,
      0,
    );
    expect(found).toMatchObject({ msgId: 'COPY-OF-5', queueOffset: 1 });
  });

  it('stops at the copy of an earlier dead letter: the one looked for would be after it', async () => {
    const messages = withOffsets([copy(5), copy(3), other()]);
    expect(await findRedrivenCopy(reader(messages), RETRY, DLQ, 5, 0)).toBeUndefined();
  });

  it("reads past a consumer's send-back of a copy (it keeps the mark) and other DLQ queues' copies", async () => {
    const sendBack = copy(2, { reconsumeTimes: 1 });
    const otherQueue = other({ properties: { [REDRIVEN_FROM_PROPERTY]: '%DLQ%G/broker-b/0/1' } });
    const messages = withOffsets([copy(5), sendBack, otherQueue]);
    expect(await findRedrivenCopy(reader(messages), RETRY, DLQ, 5, 0)).toMatchObject({ msgId: 'COPY-OF-5' });
  });

  it('stops at messages stored before the dead letter (less the clock skew allowance)', async () => {
    const messages = withOffsets([copy(5, { storeTimestamp: 1_000 }), other({ storeTimestamp: 1_000 })]);
    expect(await findRedrivenCopy(reader(messages), RETRY, DLQ, 5, 2_000_000_000_000)).toBeUndefined();
  });

  it('gives up loudly after reading its limit', async () => {
    const messages = withOffsets([copy(5), ...Array.from({ length: 20 }, () => other())]);
    await expect(findRedrivenCopy(reader(messages), RETRY, DLQ, 5, 0, 10)).rejects.toBeInstanceOf(
      CopySearchLimitError,
    );
    expect(COPY_SEARCH_MAX_MESSAGES).toBeGreaterThan(1000);
  });
});
