/**
 * An Invoke API answer over the limit, end to end (real broker → poller → Invoke API over HTTP): a
 * function whose answer to one message is 50 MB (chunked, so nothing says its size up front) fails that
 * invoke as a `malformed-response`, cut off while it is read; the message goes the normal failure path
 * (retried through `%RETRY%<group>`, then dead-lettered after maxReconsumeTimes), the others are
 * delivered, and nothing is lost. The unit cases (Content-Length, endless answers, error answers, texts)
 * are in test/unit/invoke/lambda-invoker-limits.test.ts.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { largeResponse } from '../../support/lambda-api-server.js';
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

const MB = 1_000_000;
const HUGE = 'answer with 50 MB';
const suite = useLambdaSuite();

describe('Lambda answer size limit, end to end', () => {
  it('a 50 MB answer fails its invoke, cut off: the message is retried, then dead-lettered; the rest is delivered', async () => {
    const { api } = suite();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('lrl');
    const group = uniqueGroup('lrl');
    const functionName = uniqueGroup('lrl_fn');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    const delivered = new Set<string>();
    const ledger = recordingFunction(api, functionName, (records) => {
      if (records.some((record) => record.body.toString() === HUGE)) {
        return largeResponse(50 * MB, { chunked: true });
      }
      for (const record of records) delivered.add(record.messageId);
      return null;
    });
    const sent = await produce(producer, topic, 5, {
      message: (i) => ({ body: i === 2 ? HUGE : `m${i}` }),
    });
    const hugeId = sent[2] as string;
    const others = sent.filter((id) => id !== hugeId);
    const poller = await runPoller(
      lambdaConfig(suite(), {
        topic,
        consumerGroup: group,
        function: functionName,
        batchSize: 1,
        maxReconsumeTimes: 1,
      }),
    );
    const [dead] = await readDlq(client, group, 1);
    expect(dead?.msgId).toBe(hugeId);
    await waitFor('every other message delivered', 10_000, async () =>
      others.every((id) => delivered.has(id)) ? true : undefined,
    );
    await poller.stop();

    expect(ledger.of(hugeId).map((record) => record.reconsumeTimes)).toEqual([0, 1]);
    expect(others.every((id) => ledger.of(id).length === 1)).toBe(true);
    const answers = api.calls(functionName).flatMap((call) => call.streamed ?? []);
    expect(answers).toHaveLength(2);
    await Promise.all(answers.map((answer) => answer.done));
    // The poller stopped reading each answer: the server never got one out, nor half of one.
    expect(answers.map((answer) => answer.finished)).toEqual([false, false]);
    expect(answers.every((answer) => answer.bytesWritten < 25 * MB)).toBe(true);
    const [status] = await poller.status();
    expect(status?.counters.sentBack).toBe(2);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
  });
});
