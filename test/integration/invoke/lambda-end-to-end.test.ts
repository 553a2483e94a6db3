/**
 * End to end with a Lambda function: real broker → poller → Lambda Invoke API over HTTP (our
 * LambdaApiServer, called by @aws-sdk/client-lambda) → handler → offsets in dynalite.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import {
  lambdaConfig,
  queueEnds,
  recordingFunction,
  runPoller,
  topicOffsets,
  useLambdaSuite,
} from './lambda-harness.js';

const QUEUES = 4;
const suite = useLambdaSuite();

describe('Lambda end to end', () => {
  it('1,000 messages: each handled once by the function, offsets at the queue ends in DynamoDB', async () => {
    const { api } = suite();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('lambda_e2e');
    const group = uniqueGroup('lambda_e2e');
    const functionName = uniqueGroup('fn');
    await createTopic(client, topic, QUEUES);
    const ledger = recordingFunction(api, functionName, () => ({ batchItemFailures: [] }));
    const sent = await produce(await newProducer(client), topic, 1000, { queues: QUEUES, batch: 100 });

    const startedAt = Date.now();
    const poller = await runPoller(
      lambdaConfig(suite(), {
        topic,
        consumerGroup: group,
        function: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}:live`,
        batchSize: 50,
      }),
    );
    await waitFor('every message at the function', 60_000, async () =>
      ledger.counts().size >= sent.length ? true : undefined,
    );
    const handledMs = Date.now() - startedAt;
    const exit = await poller.stop();
    expect(exit.failures).toEqual([]);

    const counts = ledger.counts();
    expect(new Set(counts.keys())).toEqual(new Set(sent));
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(ledger.all().every((record) => record.reconsumeTimes === 0 && record.topic === topic)).toBe(true);
    const calls = api.calls(functionName);
    expect(
      calls.every((call) => call.qualifier === 'live' && call.invocationType === 'RequestResponse'),
    ).toBe(true);
    expect(Math.max(...ledger.invokes.map((records) => records.length))).toBeLessThanOrEqual(50);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, QUEUES));
    const stats = poller.invokeStats();
    expect(stats.lambda.requests).toBe(calls.length);
    expect(stats.lambda.throttles).toBe(0);
    process.stdout.write(
      `[lambda e2e] 1000 messages in ${ledger.invokes.length} invokes, handled in ${handledMs} ms (poller start included)\n`,
    );
  });
});
