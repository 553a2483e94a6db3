/**
 * An S3 bucket as `onFailure`, end to end: the real broker, the poller invoking through the Invoke API
 * server a function that always fails, and moto's S3 (behind a gate that can hold puts). A message over
 * SQS's and SNS's 256 KB becomes one object under the documented key layout (docs/operating.md, "Failures
 * in S3") with its whole body; the retry queue's offset moves past it only once the put is done; and a
 * bucket that does not exist loses nothing: the message is in `%DLQ%<group>`, the refusal in the log.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import type { S3FailureObject } from '../../../src/invoke/s3-failure-object.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { MOTO_CLIENT_CONFIG, type MotoServerHandle, startMotoServer } from '../../support/moto-server.js';
import { createTopic, newClient, waitFor } from '../consumer/helpers.js';
import {
  lambdaConfig,
  queueEnds,
  readDlq,
  recordingFunction,
  runPoller,
  storedOffsets,
  topicOffsets,
  useLambdaSuite,
} from './lambda-harness.js';
import { startS3PutGate } from './s3-put-gate.js';

const suite = useLambdaSuite();
let moto: MotoServerHandle;
let s3: S3Client;

beforeAll(async () => {
  moto = await startMotoServer();
  s3 = new S3Client({ ...MOTO_CLIENT_CONFIG, endpoint: moto.endpoint, forcePathStyle: true });
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await moto?.close();
});

/** A bucket of its own in eu-west-1: the destination must learn that region, the ARN does not say it. */
async function newBucket(): Promise<string> {
  const bucket = `rocketmq-failures-${randomUUID().slice(0, 8)}`;
  await s3.send(
    new CreateBucketCommand({
      Bucket: bucket,
      CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
    }),
  );
  return bucket;
}

async function keysIn(bucket: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '');
}

async function setUp(prefix: string) {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic(prefix);
  const group = uniqueGroup(prefix);
  const functionName = uniqueGroup(`${prefix}_fn`);
  await createTopic(client, topic, 1);
  const producer = new Producer({ client, maxMessageBytes: 4 * 1024 * 1024 });
  await producer.start();
  onTestFinished(() => producer.shutdown());
  const ledger = recordingFunction(suite().api, functionName, () => {
    throw new Error('this function always fails');
  });
  return { client, topic, group, functionName, producer, ledger };
}

/** The stored offset of the group's retry queue and that queue's end. */
async function retryQueue(client: ReturnType<typeof newClient>, group: string) {
  const { brokerAddr, brokerName } = testBroker();
  const topic = `%RETRY%${group}`;
  return {
    stored: (await storedOffsets(suite(), group)).get(`${topic}@${brokerName}@0`) ?? 0,
    end: await client.broker.getMaxOffset(brokerAddr, { topic, queueId: 0 }),
  };
}

describe('onFailure: an S3 bucket', () => {
  it('a 300 KB message that always fails becomes one object with its whole body; the offset moves after the put', async () => {
    const { client, topic, group, functionName, producer, ledger } = await setUp('s3f');
    const bucket = await newBucket();
    const gate = await startS3PutGate(moto.endpoint);
    onTestFinished(() => gate.close());
    const body = randomBytes(300 * 1024);
    const sent = await producer.send({ topic, body, tags: 'big' }, { queueId: 0 });

    gate.hold();
    await runPoller(
      lambdaConfig(
        suite(),
        {
          topic,
          consumerGroup: group,
          function: functionName,
          maxReconsumeTimes: 1,
          onFailure: `arn:aws:s3:::${bucket}/rocketmq/it`,
        },
        { destinations: { endpoint: gate.endpoint } },
      ),
    );
    // The last failure: the broker has the message in the DLQ, and its object is on the way to S3.
    const [dead] = await readDlq(client, group, 1);
    expect(dead?.body.equals(body)).toBe(true);
    await waitFor('the object put at the gate', 30_000, async () =>
      gate.putPaths.length > 0 ? true : undefined,
    );
    // While the put is held, the retry queue's offset stays before the message.
    const held = await retryQueue(client, group);
    expect(held.end).toBe(1);
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      expect((await retryQueue(client, group)).stored).toBeLessThan(held.end);
    }
    gate.release();
    await waitFor('the retry offset past the message', 20_000, async () => {
      const queue = await retryQueue(client, group);
      return queue.stored === queue.end ? true : undefined;
    });

    const keys = await keysIn(bucket);
    expect(keys).toHaveLength(1);
    const [key] = keys as [string];
    const { brokerName } = testBroker();
    const layout = new RegExp(
      `^rocketmq/it/${group}/${topic}/${brokerName}/0/(\\d{4})/(\\d{2})/(\\d{2})/\\1-\\2-\\3T\\d{2}\\.\\d{2}\\.\\d{2}\\.\\d{3}Z-0{20}-${sent.msgId}\\.json$`,
    );
    expect(key).toMatch(layout);
    expect(gate.putPaths).toEqual([`/${bucket}/${key}`]);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(got.ContentType).toBe('application/json');
    const object = JSON.parse(await (got.Body?.transformToString('utf8') ?? '{}')) as S3FailureObject;
    expect(Buffer.from(object.record.body, 'base64').equals(body)).toBe(true);
    expect(object.record).toMatchObject({ messageId: sent.msgId, topic, tags: 'big', reconsumeTimes: 1 });
    expect(object.requestContext).toMatchObject({
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 2,
    });
    expect(object.responseContext.reason).toContain('this function always fails');
    expect(object.rocketMQInfo).toMatchObject({
      consumerGroup: group,
      topic,
      queueTopic: `%RETRY%${group}`,
      brokerName,
      queueId: 0,
      queueOffset: 0,
      messageId: sent.msgId,
      bodyBytes: body.length,
    });
    expect(key).toContain(object.timestamp.slice(0, 19).replaceAll(':', '.'));
    // Invoked twice (first delivery, one retry), as the function saw it each time.
    expect(ledger.of(sent.msgId).map((record) => record.reconsumeTimes)).toEqual([0, 1]);
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, 1));
    process.stdout.write(
      `[s3 failure] a ${body.length}-byte body -> a ${got.ContentLength}-byte object ${key}\n`,
    );
  });

  it('a bucket that does not exist loses nothing: the message is in the DLQ, the refusal logged with the ARN', async () => {
    const { client, topic, group, functionName, producer } = await setUp('s3m');
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n'))
            if (line !== '') lines.push(JSON.parse(line));
          done();
        },
      }),
    );
    const missing = `rocketmq-missing-${randomUUID().slice(0, 8)}`;
    const arn = `arn:aws:s3:::${missing}`;
    const body = randomBytes(300 * 1024);
    const sent = await producer.send({ topic, body }, { queueId: 0 });

    await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: functionName, maxReconsumeTimes: 1, onFailure: arn },
        { destinations: { endpoint: moto.endpoint } },
      ),
      { logger },
    );
    const [dead] = await readDlq(client, group, 1);
    expect(dead?.msgId).toBe(sent.msgId);
    expect(dead?.body.equals(body)).toBe(true);
    const refusal = await waitFor('the refusal in the log', 30_000, async () =>
      lines.find((line) => line.msg === 'failure record not delivered'),
    );
    expect(refusal).toMatchObject({
      destination: arn,
      condition: 'RetryAttemptsExhausted',
      messageIds: [sent.msgId],
    });
    const error = (refusal.err as { message?: string }).message ?? '';
    expect(error).toContain(`to ${arn}: NoSuchBucket`);
    expect(error).not.toMatch(/Credential=|secretAccessKey/);
    // Handed to the DLQ, the message is done: its retry offset moves on, and no bucket was made.
    await waitFor('the retry offset past the message', 20_000, async () => {
      const queue = await retryQueue(client, group);
      return queue.end === 1 && queue.stored === 1 ? true : undefined;
    });
    const buckets = await s3.send(new ListBucketsCommand({}));
    expect((buckets.Buckets ?? []).map((b) => b.Name)).not.toContain(missing);
  });
});
