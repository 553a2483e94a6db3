/**
 * Each way a Lambda invoke can fail, end to end (real broker → poller → Invoke API over HTTP), with its
 * documented outcome (docs/writing-a-handler.md, "What to return"):
 * - FunctionError: the batch is retried through `%RETRY%<group>`, reconsumeTimes rising;
 * - throttles (429): waited out with backoff, no retry counted (reconsumeTimes stays 0), counted as throttles;
 * - bisectBatchOnError: only the poison message is retried, then dead-lettered;
 * - ResourceNotFound: the mapping stops with a clear error, offsets do not move, nothing is sent back.
 * Oversize messages (DLQ with a reason) are in lambda-payload-limits.test.ts.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import {
  lambdaConfig,
  queueEnds,
  readDlq,
  recordingFunction,
  runPoller,
  topicOffsets,
  useLambdaSuite,
} from './lambda-harness.js';

const suite = useLambdaSuite();

async function setUp(prefix: string, queues = 1) {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic(prefix);
  const group = uniqueGroup(prefix);
  const functionName = uniqueGroup(`${prefix}_fn`);
  await createTopic(client, topic, queues);
  const producer = await newProducer(client);
  return { client, topic, group, functionName, producer };
}

describe('Lambda failures, end to end', () => {
  it('FunctionError: the batch comes back through the retry topic with reconsumeTimes rising, then succeeds', async () => {
    const { api } = suite();
    const { client, topic, group, functionName, producer } = await setUp('lfe');
    const succeeded = new Set<string>();
    const ledger = recordingFunction(api, functionName, (records) => {
      if (records.some((record) => record.reconsumeTimes < 2)) throw new Error('downstream unavailable');
      for (const record of records) succeeded.add(record.messageId);
      return null;
    });
    const sent = await produce(producer, topic, 3);
    const poller = await runPoller(
      lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName, maxReconsumeTimes: 3 }),
    );
    await waitFor('every message to succeed', 30_000, async () =>
      sent.every((id) => succeeded.has(id)) ? true : undefined,
    );
    await poller.stop();

    for (const id of sent) {
      const deliveries = ledger.of(id);
      expect(deliveries.map((record) => record.reconsumeTimes)).toEqual([0, 1, 2]);
      expect(deliveries.every((record) => record.topic === topic)).toBe(true);
    }
    const failedCalls = api.calls(functionName).filter((call) => call.status === 200).length - 1;
    expect(failedCalls).toBeGreaterThanOrEqual(2);
    const [status] = await poller.status();
    expect(status?.counters.sentBack).toBe(6);
    expect(poller.invokeStats().lambda.throttles).toBe(0);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
  });

  it('throttles (429): waited out with backoff, delivered with reconsumeTimes 0, counted as throttles', async () => {
    const { api } = suite();
    const { client, topic, group, functionName, producer } = await setUp('lth');
    const ledger = recordingFunction(api, functionName);
    const throttles = 6;
    api.injectFaults(
      functionName,
      ...Array.from({ length: throttles }, () => ({ kind: 'throttle' as const })),
    );
    const sent = await produce(producer, topic, 5);
    const startedAt = Date.now();
    const poller = await runPoller(
      lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName, maxReconsumeTimes: 0 }),
    );
    await waitFor('every message at the function', 30_000, async () =>
      ledger.counts().size >= sent.length ? true : undefined,
    );
    const deliveredMs = Date.now() - startedAt;
    await poller.stop();

    expect(ledger.all().map((record) => record.reconsumeTimes)).toEqual([0, 0, 0, 0, 0]);
    expect([...ledger.counts().values()]).toEqual([1, 1, 1, 1, 1]);
    const statuses = api.calls(functionName).map((call) => call.status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(throttles);
    expect(poller.invokeStats().lambda.throttles).toBe(throttles);
    const [status] = await poller.status();
    expect(status?.counters.consumedFailed).toBe(0);
    expect(status?.counters.sentBack).toBe(0);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
    process.stdout.write(
      `[lambda throttles] ${throttles} throttles waited out; 5 messages delivered after ${deliveredMs} ms\n`,
    );
  });

  it('bisectBatchOnError: only the poison message is retried, then goes to the DLQ', async () => {
    const { api } = suite();
    const { client, topic, group, functionName, producer } = await setUp('lbi');
    const succeeded: string[] = [];
    const ledger = recordingFunction(api, functionName, (records) => {
      if (records.some((record) => record.body.toString() === 'poison')) throw new Error('cannot parse');
      succeeded.push(...records.map((record) => record.messageId));
      return null;
    });
    const sent = await produce(producer, topic, 8, {
      message: (i) => ({ body: i === 3 ? 'poison' : `m${i}` }),
    });
    const poisonId = sent[3] as string;
    const good = sent.filter((id) => id !== poisonId);
    const poller = await runPoller(
      lambdaConfig(suite(), {
        topic,
        consumerGroup: group,
        function: functionName,
        batchSize: 8,
        maximumBatchingWindowMs: 1000,
        bisectBatchOnError: true,
        maxReconsumeTimes: 1,
      }),
    );
    const [dead] = await readDlq(client, group, 1);
    expect(dead?.msgId).toBe(poisonId);
    await waitFor('every good message to succeed', 10_000, async () =>
      good.every((id) => succeeded.includes(id)) ? true : undefined,
    );
    await poller.stop();

    expect(succeeded.sort()).toEqual([...good].sort());
    for (const id of good) {
      expect(ledger.of(id).every((record) => record.reconsumeTimes === 0)).toBe(true);
    }
    expect(new Set(ledger.of(poisonId).map((record) => record.reconsumeTimes))).toEqual(new Set([0, 1]));
    const first = ledger.invokes[0] ?? [];
    expect(first).toHaveLength(8);
    expect(poller.invokeStats().mappings.get(group)?.bisections).toBeGreaterThanOrEqual(3);
    const [status] = await poller.status();
    expect(status?.counters.sentBack).toBe(2);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
  });

  it('ResourceNotFound: the mapping stops with a clear error, offsets stay, nothing is sent back', async () => {
    const { api } = suite();
    const { client, topic, group, producer } = await setUp('lnf');
    const missing = uniqueGroup('missing_fn');
    await produce(producer, topic, 10);
    const poller = await runPoller(lambdaConfig(suite(), { topic, consumerGroup: group, function: missing }));
    const exit = await poller.stopped;

    expect(exit.failures).toHaveLength(1);
    const [failure] = exit.failures;
    expect(failure?.mapping).toBe(group);
    const error = failure?.error;
    if (!(error instanceof InvokeError)) throw new Error(`not an InvokeError: ${String(error)}`);
    expect(error.fatal).toBe(true);
    expect(error.message).toMatch(
      new RegExp(
        `^Lambda function "${missing}" cannot be invoked: ResourceNotFoundException: .*The mapping stops`,
      ),
    );
    expect(api.calls(missing).map((call) => call.status)).toEqual([404]);
    const [status] = await poller.status();
    expect(status?.counters.sentBack).toBe(0);
    expect(status?.counters.consumedFailed).toBe(0);
    const stored = await topicOffsets(suite(), group, topic);
    expect([...stored.values()].every((offset) => offset === 0)).toBe(true);
    expect((await queueEnds(client, topic, 1)).values().next().value).toBe(10);
  });
});
