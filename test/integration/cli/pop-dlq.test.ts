/**
 * Dead letters of a consumeMode POP group against the real broker, through `dlq show` and `dlq redrive`:
 * a function that always fails, with maxReconsumeTimes 1, fails each message once from the topic and
 * once from the broker's POP retry topic, where the consumer dead-letters it (CONSUMER_SEND_MSG_BACK,
 * then ack). The dead letters land in `%DLQ%<group>` like a PUSH group's, but the broker records the
 * topic it found them in, the POP retry topic `%RETRY%<group>_<topic>`, as their RETRY_TOPIC. `dlq show`
 * names the real topic, `dlq redrive --to topic` sends them there (not to the retry topic), and
 * `--to retry`, which a POP group never reads, is refused.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { dlqCommand } from '../../../src/cli/dlq-command.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import type { ConsumeResult } from '../../../src/consumer/message-listener.js';
import { PopConsumer } from '../../../src/consumer/pop/pop-consumer.js';
import { MessageConst } from '../../../src/protocol/message.js';
import { popRetryTopic } from '../../../src/protocol/pop-extra-info.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type CapturedRun, runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient, pullMessages, waitFor } from '../client/helpers.js';
import { newProducer } from '../consumer/helpers.js';

const KEYS = ['poison-1', 'poison-2'];

function dlq(args: string[]): Promise<CapturedRun> {
  return runCaptured((io) => dlqCommand(args, io, { confirm: undefined }));
}

describe('dlq of a POP mapping', () => {
  it('shows dead letters of retried POP messages under their real topic and redrives them there', {
    timeout: 150_000,
  }, async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('PopDlq');
    const group = uniqueGroup('PopDlq');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    for (const key of KEYS) {
      await producer.send({
        topic,
        body: `{"order":"${key}"}`,
        tags: 'created',
        keys: [key],
        properties: { tenant: 't1' },
      });
    }

    const attempts: number[] = [];
    const finalFailures: string[] = [];
    const consumer = new PopConsumer(
      {
        name: 'pop-dlq',
        topic,
        consumerGroup: group,
        startingPosition: 'TRIM_HORIZON',
        pollTimeMs: 1000,
        maximumBatchingWindowMs: 0,
        maxReconsumeTimes: 1,
        retryDelaysMs: [1000],
        shutdownTimeoutMs: 5000,
      },
      {
        client,
        listener: {
          async consume(messages): Promise<ConsumeResult> {
            for (const m of messages) attempts.push(m.message.reconsumeTimes);
            return { status: 'FAILED', reason: 'always fails' };
          },
          async notifyFinalFailure(messages) {
            finalFailures.push(...messages.map((m) => m.message.msgId));
          },
        },
      },
    );
    onTestFinished(() => consumer.stop());
    await consumer.start();
    await waitFor('both messages dead-lettered', 90_000, async () =>
      finalFailures.length === KEYS.length ? true : undefined,
    );
    await consumer.stop();
    expect(attempts.sort()).toEqual([0, 0, 1, 1]);

    // What the broker recorded: the POP retry topic it found the retried message in (5.3.3: V1 naming).
    const raw = await pullMessages(client, {
      group: uniqueGroup('dlqreader'),
      topic: dlqTopicOf(group),
      queueId: 0,
      count: KEYS.length,
    });
    expect(raw.map((m) => m.properties[MessageConst.RETRY_TOPIC])).toEqual(
      KEYS.map(() => popRetryTopic(topic, group)),
    );

    const dir = await mkdtemp(path.join(tmpdir(), 'rl-pop-dlq-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'audit.js'), 'export const handler = async () => ({});\n');
    const configFile = path.join(dir, 'poller.json');
    await writeFile(
      configFile,
      JSON.stringify({
        nameServer: testBroker().namesrvAddr,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'audit',
            topic,
            consumerGroup: group,
            function: 'local:./audit.js',
            consumeMode: 'POP',
            startingPosition: 'TRIM_HORIZON',
            maxReconsumeTimes: 1,
          },
        ],
      }),
    );
    const target = ['--config', configFile, '--mapping', 'audit'];

    const shown = await dlq(['show', ...target, '--json']);
    expect(shown.code).toBe(0);
    const letters = shown.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .sort((a, b) => String(a.keys).localeCompare(String(b.keys)));
    expect(letters.map((l) => [l.dlqTopic, l.originalTopic, l.tags, l.keys, l.properties])).toEqual(
      KEYS.map((key) => [dlqTopicOf(group), topic, 'created', [key], { tenant: 't1' }]),
    );
    const text = await dlq(['show', ...target]);
    expect(text.out).toContain(`original topic ${topic}`);
    expect(text.out).not.toContain('%RETRY%');

    const refused = await dlq(['redrive', ...target, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('consumeMode POP');
    expect(refused.err).toContain('--to topic');

    const topicQueue = { topic, queueId: 0 };
    const before = await client.broker.getMaxOffset(testBroker().brokerAddr, topicQueue);
    const retryQueue = { topic: popRetryTopic(topic, group), queueId: 0 };
    const retryBefore = await client.broker.getMaxOffset(testBroker().brokerAddr, retryQueue);
    const redrive = await dlq(['redrive', ...target, '--to', 'topic', '--yes']);
    expect(redrive.err).toBe('2/2 dead letters scanned\n');
    expect(redrive.code).toBe(0);
    expect(redrive.out).toContain(`sent 2 dead letter(s) of ${dlqTopicOf(group)} to their original topic`);
    expect(redrive.out.split(`-> ${topic} as `)).toHaveLength(KEYS.length + 1);

    // The redriven messages are in the topic itself; nothing was written to the POP retry topic.
    expect(await client.broker.getMaxOffset(testBroker().brokerAddr, topicQueue)).toBe(before + KEYS.length);
    expect(await client.broker.getMaxOffset(testBroker().brokerAddr, retryQueue)).toBe(retryBefore);
    const redriven = await pullMessages(client, {
      group: uniqueGroup('topicreader'),
      topic,
      queueId: 0,
      count: KEYS.length,
      fromOffset: before,
    });
    expect(redriven.map((m) => m.keys[0]).sort()).toEqual(KEYS);
    expect(redriven.map((m) => m.reconsumeTimes)).toEqual([0, 0]);
  });
});
