import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFailureDestination, sqsQueueUrl } from '../../../src/invoke/failure-destination.js';
import { parseDestinationArn } from '../../../src/invoke/failure-destination-arn.js';
import { FailureDestinationError } from '../../../src/invoke/failure-destination-error.js';
import { buildFailureRecord, type FailureRecord } from '../../../src/invoke/failure-record.js';
import { consumed } from './consumed-message.js';

interface Received {
  target: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** A tiny SQS (JSON 1.0 protocol) and SNS (query protocol) endpoint that keeps what it receives. */
let server: Server;
let endpoint: string;
let received: Received[];
let failNext: number;

beforeEach(async () => {
  received = [];
  failNext = 0;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = req.headers['x-amz-target'] as string | undefined;
      received.push({ target, contentType: req.headers['content-type'], body });
      if (failNext > 0) {
        failNext--;
        res.writeHead(500, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-query-error': 'InternalError;Receiver',
        });
        res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InternalError', message: 'try again' }));
        return;
      }
      if (target === 'AmazonSQS.SendMessage') {
        const { MessageBody } = JSON.parse(body) as { MessageBody: string };
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(
          JSON.stringify({
            MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
            MessageId: randomUUID(),
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

function record(): FailureRecord {
  return buildFailureRecord({
    condition: 'RecordAgeExceeded',
    reason: 'record too old: stored more than 60 s ago (maxRecordAgeSeconds)',
    functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
    consumerGroup: 'orders-consumer',
    messages: [consumed({ msgId: 'id-1', queueOffset: 7 }), consumed({ msgId: 'id-2', queueOffset: 9 })],
    now: new Date('2026-01-02T03:04:05.000Z'),
  });
}

describe('failure destinations', () => {
  it('parses SQS and SNS ARNs and derives queue URLs', () => {
    expect(parseDestinationArn('arn:aws:sqs:eu-west-1:123456789012:orders-failures')).toEqual({
      partition: 'aws',
      service: 'sqs',
      region: 'eu-west-1',
      accountId: '123456789012',
      name: 'orders-failures',
    });
    expect(sqsQueueUrl('arn:aws:sqs:eu-west-1:123456789012:q.fifo')).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/q.fifo',
    );
    expect(sqsQueueUrl('arn:aws-cn:sqs:cn-north-1:123456789012:q')).toBe(
      'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q',
    );
    expect(sqsQueueUrl('arn:aws:sqs:eu-west-1:123456789012:q', 'http://127.0.0.1:4566/')).toBe(
      'http://127.0.0.1:4566/123456789012/q',
    );
    expect(() => parseDestinationArn('arn:aws:s3:::bucket')).toThrow(FailureDestinationError);
    expect(() => createFailureDestination('my-queue')).toThrow(/not an SQS queue ARN or SNS topic ARN/);
  });

  it('sends the record to an SQS queue with SendMessage', async () => {
    const destination = createFailureDestination('arn:aws:sqs:eu-west-1:123456789012:orders-failures', {
      endpoint,
      credentials,
    });
    const sent = record();
    await destination.send(sent, []);
    await destination.close();
    expect(received).toHaveLength(1);
    expect(received[0]?.target).toBe('AmazonSQS.SendMessage');
    const input = JSON.parse(received[0]?.body ?? '') as { QueueUrl: string; MessageBody: string };
    expect(input.QueueUrl).toBe(`${endpoint}/123456789012/orders-failures`);
    expect(JSON.parse(input.MessageBody)).toEqual(sent);
  });

  it('publishes the record to an SNS topic', async () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:orders-failures';
    const destination = createFailureDestination(arn, { endpoint, credentials });
    const sent = record();
    await destination.send(sent, []);
    await destination.close();
    expect(received).toHaveLength(1);
    const form = new URLSearchParams(received[0]?.body ?? '');
    expect(form.get('Action')).toBe('Publish');
    expect(form.get('TopicArn')).toBe(arn);
    expect(JSON.parse(form.get('Message') ?? '')).toEqual(sent);
  });

  it('retries a transient error, then gives up with a FailureDestinationError', async () => {
    const destination = createFailureDestination('arn:aws:sqs:eu-west-1:123456789012:q', {
      endpoint,
      credentials,
      maxAttempts: 2,
    });
    failNext = 1;
    await destination.send(record(), []);
    expect(received).toHaveLength(2);
    failNext = 2;
    const error = await destination.send(record(), []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FailureDestinationError);
    expect(error).toMatchObject({ arn: 'arn:aws:sqs:eu-west-1:123456789012:q', retriable: true });
    await destination.close();
  });
});

describe('buildFailureRecord', () => {
  it('describes where the messages are, not their bodies', () => {
    const retryQueue = { topic: '%RETRY%orders-consumer', brokerName: 'broker-b', queueId: 0 };
    const built = buildFailureRecord({
      condition: 'RetryAttemptsExhausted',
      reason: 'invoke failed (timeout)',
      functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
      consumerGroup: 'orders-consumer',
      messages: [
        consumed({ msgId: 'a', queueOffset: 9, reconsumeTimes: 15, storeTimestamp: 2_000 }),
        {
          ...consumed({ msgId: 'b', queueOffset: 3, reconsumeTimes: 16, storeTimestamp: 1_000 }, retryQueue),
          topic: 'orders',
        },
        consumed({ msgId: 'c', queueOffset: 7, storeTimestamp: 3_000 }),
      ],
      now: new Date('2026-01-02T03:04:05.000Z'),
    });
    expect(built).toEqual({
      version: '1.0',
      timestamp: '2026-01-02T03:04:05.000Z',
      requestContext: {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 17,
      },
      responseContext: { reason: 'invoke failed (timeout)' },
      rocketMQBatchInfo: {
        consumerGroup: 'orders-consumer',
        batchSize: 3,
        queues: [
          {
            topic: 'orders',
            queueTopic: 'orders',
            brokerName: 'broker-a',
            queueId: 1,
            startOffset: 7,
            endOffset: 9,
            messageIds: ['a', 'c'],
            count: 2,
          },
          {
            topic: 'orders',
            queueTopic: '%RETRY%orders-consumer',
            brokerName: 'broker-b',
            queueId: 0,
            startOffset: 3,
            endOffset: 3,
            messageIds: ['b'],
            count: 1,
          },
        ],
        approximateStoreTimeOfFirstMessage: '1970-01-01T00:00:01.000Z',
        approximateStoreTimeOfLastMessage: '1970-01-01T00:00:03.000Z',
      },
    });
    expect(JSON.stringify(built)).not.toContain('hello');
  });
});
