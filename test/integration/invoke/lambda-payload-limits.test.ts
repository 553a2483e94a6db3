/**
 * Lambda's 6 MB synchronous payload limit, end to end: large messages and batches of many 100 KB
 * messages are delivered in invokes that each fit (the Invoke API server answers 413 over 6 MiB, as
 * Lambda does), and a message whose event can never fit goes to `%DLQ%<group>` at once, with a reason in
 * the log and in an `onFailure` record (a fake SQS endpoint here).
 *
 * Bodies travel as base64, so the largest binary body one invoke can carry is about 4.7 MB (4.5 MB
 * here); a UTF-8 text body too large for base64 travels as text (`bodyEncoding: "utf8"`), alone, so a
 * 5 MB text message is delivered too.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import type { FailureRecord } from '../../../src/invoke/failure-record.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { LAMBDA_MAX_REQUEST_BYTES } from '../../support/lambda-api-server.js';
import { createTopic, newClient, waitFor } from '../consumer/helpers.js';
import { startFakeSqs } from './fake-sqs.js';
import {
  lambdaConfig,
  queueEnds,
  readDlq,
  recordingFunction,
  runPoller,
  TEST_CONSUMER_OVERRIDES,
  topicOffsets,
  useLambdaSuite,
} from './lambda-harness.js';

const MiB = 1024 * 1024;
const suite = useLambdaSuite();

/** A producer for bodies up to the test broker's 10 MiB, sent as they are (random bytes, uncompressed). */
async function bigProducer(client: RocketMQClient): Promise<Producer> {
  const producer = new Producer({ client, maxMessageBytes: 10 * MiB, compressOverBytes: 64 * MiB });
  await producer.start();
  onTestFinished(() => producer.shutdown());
  return producer;
}

async function setUp(prefix: string) {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic(prefix);
  const group = uniqueGroup(prefix);
  const functionName = uniqueGroup(`${prefix}_fn`);
  await createTopic(client, topic, 1);
  return { client, topic, group, functionName, producer: await bigProducer(client) };
}

describe('Lambda payload limit, end to end', () => {
  it('a 5 MB text message, a 4.5 MB binary one and 60 of 100 KB are delivered, every invoke within 6 MB', async () => {
    const { api } = suite();
    const { client, topic, group, functionName, producer } = await setUp('lpl');
    const ledger = recordingFunction(api, functionName);
    const large = randomBytes(4_500_000);
    const text = Buffer.from(JSON.stringify({ lines: 'a log line of text. '.repeat(250_000) }), 'utf8');
    const small = Array.from({ length: 60 }, () => randomBytes(100 * 1024));
    const bodies = new Map<string, Buffer>();
    const sendOne = async (body: Buffer) => {
      const result = await producer.send({ topic, body }, { queueId: 0 });
      bodies.set(result.msgId, body);
    };
    for (const body of small.slice(0, 30)) await sendOne(body);
    await sendOne(large);
    await sendOne(text);
    for (const body of small.slice(30)) await sendOne(body);

    const poller = await runPoller(
      lambdaConfig(suite(), {
        topic,
        consumerGroup: group,
        function: functionName,
        batchSize: 100,
        maximumBatchingWindowMs: 500,
      }),
    );
    await waitFor('every message at the function', 60_000, async () =>
      ledger.counts().size >= bodies.size ? true : undefined,
    );
    await poller.stop();

    const calls = api.calls(functionName);
    expect(calls.every((call) => call.status === 200)).toBe(true);
    const sizes = calls.map((call) => call.payloadBytes);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(LAMBDA_MAX_REQUEST_BYTES);
    expect([...ledger.counts().values()].every((count) => count === 1)).toBe(true);
    for (const record of ledger.all())
      expect(record.body.equals(bodies.get(record.messageId) ?? Buffer.alloc(0))).toBe(true);
    const encodings = new Map(ledger.all().map((record) => [record.bodyBytes, record.bodyEncoding]));
    expect(encodings.get(large.length)).toBe('base64');
    expect(encodings.get(text.length)).toBe('utf8');
    expect(text.length).toBeGreaterThan(5_000_000);
    expect(poller.invokeStats().mappings.get(group)?.splitBatches).toBeGreaterThan(0);
    expect(poller.invokeStats().mappings.get(group)?.deadLettered).toBe(0);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
    process.stdout.write(
      `[lambda payload] ${bodies.size} messages (5 MB text + 4.5 MB binary + 60 × 100 KB) in ${calls.length} invokes; largest request ${Math.max(...sizes)} bytes\n`,
    );
  });

  it('an 8 MB message goes to %DLQ%<group> uninvoked, with a reason in an onFailure record; the rest flows', async () => {
    const { api } = suite();
    const { client, topic, group, functionName, producer } = await setUp('lov');
    const sqs = await startFakeSqs();
    const ledger = recordingFunction(api, functionName);
    const before = await producer.send({ topic, body: 'before' }, { queueId: 0 });
    const huge = await producer.send({ topic, body: randomBytes(8 * 1000 * 1000) }, { queueId: 0 });
    const after = await producer.send({ topic, body: 'after' }, { queueId: 0 });
    const onFailure = 'arn:aws:sqs:us-east-1:123456789012:payload-failures';

    const poller = await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: functionName, onFailure, maxReconsumeTimes: 3 },
        { destinations: { endpoint: sqs.endpoint } },
      ),
    );
    const [dead] = await readDlq(client, group, 1);
    expect(dead?.msgId).toBe(huge.msgId);
    expect(dead?.body.length).toBe(8 * 1000 * 1000);
    await waitFor('the other messages and the failure record', 20_000, async () =>
      ledger.counts().size >= 2 && sqs.messages.length >= 1 ? true : undefined,
    );
    // A wrong retry would come back through %RETRY%<group> after delay level 1. Instead of a fixed
    // sleep, a marker takes the same road, sent now: the broker's level-1 delay queue hands messages to
    // the retry topic in the order they came, and the poller pulls that queue in order, so once the
    // function has the marker, any retry sent back before it has reached the function too.
    const retryTopic = `%RETRY%${group}`;
    await waitFor(`a route of ${retryTopic}`, 15_000, async () => {
      const route = await client.nameServer.getRoute(retryTopic, { refresh: true });
      return route.queueDatas.length > 0 ? route : undefined;
    });
    const marker = await producer.send({
      topic: retryTopic,
      body: 'marker',
      delayLevel: TEST_CONSUMER_OVERRIDES.retryDelayLevel,
    });
    await waitFor('the marker at the function', 20_000, () =>
      ledger.counts().has(marker.msgId) ? true : undefined,
    );
    await poller.stop();

    const invoked = new Set(ledger.counts().keys());
    invoked.delete(marker.msgId);
    expect(invoked).toEqual(new Set([before.msgId, after.msgId]));
    expect(api.calls(functionName).every((call) => call.payloadBytes <= LAMBDA_MAX_REQUEST_BYTES)).toBe(true);
    expect(sqs.messages).toHaveLength(1);
    const [message] = sqs.messages;
    expect(message?.queueUrl).toBe(`${sqs.endpoint}/123456789012/payload-failures`);
    const record = JSON.parse(message?.body ?? '{}') as FailureRecord;
    expect(record.requestContext.condition).toBe('PayloadSizeExceeded');
    expect(record.responseContext.reason).toMatch(/^record too large: its body is 8000000 bytes/);
    expect(JSON.stringify(record)).toContain(huge.msgId);
    const [status] = await poller.status();
    expect(status?.counters.sentBack).toBe(1);
    expect(poller.invokeStats().mappings.get(group)?.deadLettered).toBe(1);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
  });
});
