/**
 * Messages whose compressed body would inflate past `maxDecompressedBodyBytes` (the decompression bomb of
 * issue 29), produced to the real broker as any producer allowed to write the topic can: the body is
 * stored as sent, flagged zlib-compressed. PUSH and POP consumers must hand them to the DLQ without
 * inflating them (the way an oversize message goes, told to the listener as `too-large`), keep consuming
 * the messages around them, and lose nothing; the DLQ must hold them as they were sent.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import type {
  ConsumedMessage,
  FinalFailureCause,
  MessageListener,
} from '../../../src/consumer/message-listener.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { pullHeader } from '../client/helpers.js';
import {
  createTopic,
  Ledger,
  newClient,
  newProducer,
  newRuntime,
  produce,
  sendStoredBody,
  startPopConsumer,
  waitFor,
} from './helpers.js';

const MiB = 1024 * 1024;
/** What a bomb inflates to: well past the 6 MiB default, from about 16 KB as stored. */
const BOMB_BYTES = 16 * MiB;

/** The ids `count` bombs are sent with, in order. */
function bombIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `B0MB${String(i).padStart(28, '0')}`);
}

/** A listener that records deliveries in `ledger` and final failures (with their cause) in `finals`. */
function listenerOf(
  ledger: Ledger,
  finals: { id: string; cause: FinalFailureCause | undefined; reason: string }[],
): MessageListener {
  return {
    async consume(messages: readonly ConsumedMessage[]) {
      ledger.record(messages);
      return { status: 'SUCCESS' };
    },
    async notifyFinalFailure(messages, reason, cause) {
      for (const m of messages) finals.push({ id: m.message.msgId, cause, reason });
    },
  };
}

/** Everything in the group's DLQ (queue 0), decoded with a limit the bombs fit. */
async function readDlq(client: RocketMQClient, group: string, expected: number) {
  return waitFor(`${expected} messages in the DLQ`, 20_000, async () => {
    const result = await client.broker.pullMessage(
      testBroker().brokerAddr,
      pullHeader({ group: uniqueGroup('dlqreader'), topic: dlqTopicOf(group), queueId: 0, queueOffset: 0 }),
    );
    if (result.status !== 'FOUND' || result.messages.length + (result.tooLarge?.length ?? 0) < expected) {
      return undefined;
    }
    return result;
  });
}

describe('a message too large to inflate', () => {
  it('PUSH: goes to the DLQ uninflated, the listener is told, the messages around it flow', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('toolarge');
    const group = uniqueGroup('toolarge');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    const stored = deflateSync(Buffer.alloc(BOMB_BYTES), { level: 9 });
    const ids = bombIds(3);
    const before = await produce(producer, topic, 5);
    for (const id of ids) await sendStoredBody(client, topic, { id, stored });
    const after = await produce(producer, topic, 5);

    const ledger = new Ledger();
    const finals: { id: string; cause: FinalFailureCause | undefined; reason: string }[] = [];
    const { runtime } = newRuntime(
      { topic, consumerGroup: group, startingPosition: 'TRIM_HORIZON' },
      listenerOf(ledger, finals),
    );
    await runtime.start();
    await waitFor('the messages around the bombs and the bombs told', 30_000, async () =>
      ledger.missing([...before, ...after]).length === 0 && finals.length === ids.length ? true : undefined,
    );
    const { counters } = await runtime.status();
    expect(counters.tooLargeDeadLettered).toBe(ids.length);
    expect(counters.decodeErrors).toBe(0);
    expect(ledger.deliveries.map((d) => d.message.msgId).filter((id) => ids.includes(id))).toEqual([]);
    expect(finals.map((f) => f.id)).toEqual(ids);
    for (const f of finals) {
      expect(f.cause).toBe('too-large');
      expect(f.reason).toMatch(/^body inflates past 6291456 bytes \(\d+ bytes of zlib as stored\)$/);
    }

    // The DLQ has them exactly as they were sent: the default limit reports them too large again, a
    // larger one inflates them whole.
    const dlq = await readDlq(client, group, ids.length);
    expect(dlq.tooLarge?.map((t) => t.message.msgId)).toEqual(ids);
    const body = dlq.tooLarge?.[0]?.message;
    expect(body?.sysFlag !== undefined && (body.sysFlag & MessageSysFlag.COMPRESSED) !== 0).toBe(true);
    const raw = await client.broker.pullMessage(
      testBroker().brokerAddr,
      pullHeader({ group: uniqueGroup('dlqraw'), topic: dlqTopicOf(group), queueId: 0, queueOffset: 0 }),
      { decode: { maxBodyBytes: 2 * BOMB_BYTES, maxInflatedBytes: ids.length * BOMB_BYTES } },
    );
    expect(raw.status === 'FOUND' && raw.messages.map((m) => m.body.length)).toEqual(
      ids.map(() => BOMB_BYTES),
    );
  });

  it('PUSH: what one pull may inflate is bounded, and the rest comes with the next pulls, in order', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('inflatebudget');
    const group = uniqueGroup('inflatebudget');
    await createTopic(client, topic, 1);
    // Each inflates to 700 KiB: under the body limit, but only one fits a 1 MiB pull budget.
    const bodies = Array.from({ length: 6 }, (_, i) => Buffer.alloc(700 * 1024, 65 + i));
    const ids = bodies.map((_, i) => `FULL${String(i).padStart(28, '0')}`);
    for (const [i, body] of bodies.entries()) {
      await sendStoredBody(client, topic, { id: ids[i] as string, stored: deflateSync(body) });
    }
    const ledger = new Ledger();
    const bodiesSeen = new Map<string, Buffer>();
    const { runtime } = newRuntime(
      {
        topic,
        consumerGroup: group,
        startingPosition: 'TRIM_HORIZON',
        maxDecompressedBodyBytes: MiB,
        maxDecompressedPullBytes: MiB,
      },
      {
        async consume(messages) {
          ledger.record(messages);
          for (const m of messages) bodiesSeen.set(m.message.msgId, Buffer.from(m.message.body));
          return { status: 'SUCCESS' };
        },
      },
    );
    await runtime.start();
    await waitFor('every message', 30_000, async () => (ledger.missing(ids).length === 0 ? true : undefined));
    const { counters } = await runtime.status();
    expect(counters.tooLargeDeadLettered).toBe(0);
    // One message per pull at most: as many pulls that found messages as there are messages.
    expect(counters.pullRequests).toBeGreaterThanOrEqual(ids.length);
    expect([...bodiesSeen.keys()]).toEqual(ids);
    for (const [i, id] of ids.entries()) expect(bodiesSeen.get(id)?.equals(bodies[i] as Buffer)).toBe(true);
  });

  it('PUSH: bodies just under the limit fill no more than the topic threshold, one body per queue over', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('nearlimit');
    const group = uniqueGroup('nearlimit');
    const queues = 4;
    await createTopic(client, topic, queues);
    // 5.5 MiB each once inflated (under the 6 MiB body limit), 6 KB as stored: 44 of them would fill 242 MiB.
    const body = Buffer.alloc(5.5 * MiB, 0x61);
    const stored = deflateSync(body, { level: 9 });
    const ids: string[] = [];
    for (let i = 0; i < 44; i++) {
      const id = `NEAR${String(i).padStart(28, '0')}`;
      await sendStoredBody(client, topic, { id, stored, queueId: i % queues });
      ids.push(id);
    }
    const ledger = new Ledger();
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const threshold = 24 * MiB;
    const { runtime } = newRuntime(
      { topic, consumerGroup: group, startingPosition: 'TRIM_HORIZON', pullThresholdSizeForTopic: threshold },
      {
        // A slow function: nothing is consumed until the test has watched the buffers.
        async consume(messages) {
          ledger.record(messages);
          await released;
          return { status: 'SUCCESS' };
        },
      },
    );
    await runtime.start();
    let peakBytes = 0;
    await waitFor('every queue paused by the threshold', 30_000, async () => {
      const status = await runtime.status();
      const held = status.queues.reduce((sum, queue) => sum + queue.cachedMessageBytes, 0);
      peakBytes = Math.max(peakBytes, held);
      // The topic's queues and the group's retry queue, all sharing the threshold.
      return status.queues.length === queues + 1 && status.counters.flowControlBytesPauses >= queues
        ? true
        : undefined;
    });
    for (let i = 0; i < 20; i++) {
      const status = await runtime.status();
      peakBytes = Math.max(
        peakBytes,
        status.queues.reduce((sum, queue) => sum + queue.cachedMessageBytes, 0),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Each queue may hold its share, plus the one body a pull may always inflate past what it leaves.
    expect(peakBytes).toBeLessThanOrEqual(threshold + (queues + 1) * body.length);
    // Without the threshold each queue would take 100 MiB (pullThresholdSizeForQueue): all 242 MiB here.
    expect(peakBytes).toBeLessThan(ids.length * body.length);
    expect(peakBytes).toBeGreaterThan(0);
    release();
    await waitFor('every message once released', 60_000, async () =>
      ledger.missing(ids).length === 0 ? true : undefined,
    );
    const delivered = ledger.deliveries.filter((d) => ids.includes(d.message.msgId));
    expect(delivered.every((d) => d.message.body.length === body.length)).toBe(true);
  });

  it('POP: goes to the DLQ uninflated and is acked, the listener is told, the others flow', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('poptoolarge');
    const group = uniqueGroup('poptoolarge');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    const ids = bombIds(2);
    const before = await produce(producer, topic, 3);
    for (const id of ids)
      await sendStoredBody(client, topic, { id, stored: deflateSync(Buffer.alloc(BOMB_BYTES)) });
    const after = await produce(producer, topic, 3);

    const ledger = new Ledger();
    const finals: { id: string; cause: FinalFailureCause | undefined; reason: string }[] = [];
    const consumer = await startPopConsumer({ topic, consumerGroup: group }, listenerOf(ledger, finals));
    await waitFor('the messages around the bombs and the bombs told', 30_000, async () =>
      ledger.missing([...before, ...after]).length === 0 && finals.length === ids.length ? true : undefined,
    );
    const status = await consumer.status();
    expect(status.counters.tooLargeDeadLettered).toBe(ids.length);
    expect(status.counters.deadLettered).toBe(ids.length);
    expect(finals.map((f) => [f.id, f.cause])).toEqual(ids.map((id) => [id, 'too-large']));
    expect(ledger.deliveries.some((d) => ids.includes(d.message.msgId))).toBe(false);
    const dlq = await readDlq(client, group, ids.length);
    expect(dlq.tooLarge?.map((t) => t.message.msgId).sort()).toEqual([...ids].sort());
    // Every popped message was acked, the bombs after their send-back: none comes back.
    await waitFor('every pop acked', 10_000, async () => {
      const { acks, gone } = (await consumer.status()).popCounters;
      return acks + gone === before.length + after.length + ids.length ? true : undefined;
    });
  });
});
