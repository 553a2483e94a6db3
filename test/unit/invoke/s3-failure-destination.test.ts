/**
 * The S3 `onFailure` destination against a small fake S3 (path-style, as the destination addresses an
 * endpoint override): one object per failed message under the documented key layout, the bucket's
 * region asked once with HeadBucket and used to sign the puts, transient errors retried onto the same key,
 * refusals named by the destination's ARN. The real S3 API (moto) is in
 * test/integration/invoke/s3-failure-destination.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRecord } from '../../../src/invoke/event-builder.js';
import { createFailureDestination } from '../../../src/invoke/failure-destination.js';
import { FailureDestinationError } from '../../../src/invoke/failure-destination-error.js';
import { buildFailureRecord, type FailureCondition } from '../../../src/invoke/failure-record.js';
import { s3FailureKey } from '../../../src/invoke/s3-failure-key.js';
import { buildS3FailureObject, type S3FailureObject } from '../../../src/invoke/s3-failure-object.js';
import { consumed, messageExt } from './consumed-message.js';

interface Request {
  readonly method: string;
  readonly path: string;
  /** The region the request was signed for. */
  readonly region: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** How the fake answers HeadBucket. */
type HeadMode = 'answers' | 'forbidden' | 'missing';

let server: Server;
let endpoint: string;
let requests: Request[];
let bucketRegion: string;
let headMode: HeadMode;
let failPuts: number;
let buckets: Set<string>;

beforeEach(async () => {
  requests = [];
  bucketRegion = 'eu-central-1';
  headMode = 'answers';
  failPuts = 0;
  buckets = new Set(['failures']);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const region = /Credential=[^/]+\/\d+\/([^/]+)\/s3\//.exec(req.headers.authorization ?? '')?.[1];
      const url = new URL(req.url ?? '/', 'http://x');
      const request = {
        method: req.method ?? '',
        path: decodeURIComponent(url.pathname),
        region,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const bucket = request.path.split('/')[1] ?? '';
      if (!buckets.has(bucket) || (req.method === 'HEAD' && headMode === 'missing')) {
        res.writeHead(404, { 'content-type': 'application/xml' });
        res.end(
          req.method === 'HEAD' ? undefined : s3Error('NoSuchBucket', 'The specified bucket does not exist'),
        );
        return;
      }
      if (req.method === 'HEAD') {
        const status = headMode === 'forbidden' ? 403 : region === bucketRegion ? 200 : 301;
        res.writeHead(status, { 'x-amz-bucket-region': bucketRegion });
        res.end();
        return;
      }
      if (failPuts > 0) {
        failPuts--;
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end(s3Error('SlowDown', 'Please reduce your request rate.'));
        return;
      }
      res.writeHead(200, { etag: '"0"' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function s3Error(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>r</RequestId></Error>`;
}

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const NOW = new Date('2026-03-04T05:06:07.089Z');

function failure(
  messages = [consumed({ msgId: 'id-1', queueOffset: 7 })],
  condition: FailureCondition = 'RetryAttemptsExhausted',
) {
  return {
    messages,
    record: buildFailureRecord({
      condition,
      reason: 'invoke failed (Unhandled): Error: cannot parse',
      functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
      consumerGroup: 'orders-consumer',
      messages,
      now: NOW,
    }),
  };
}

const puts = () => requests.filter((request) => request.method === 'PUT');

describe('S3 failure objects', () => {
  it('one object per message: the record as the function receives it, why and how often it failed', () => {
    const retried = consumed(
      messageExt({ msgId: 'id-9', queueOffset: 3, reconsumeTimes: 2, body: Buffer.from([0, 255, 1]) }),
      { topic: '%RETRY%orders-consumer', brokerName: 'broker-a', queueId: 0 },
    );
    const { record } = failure([retried]);
    const object = buildS3FailureObject(record, { ...retried, topic: 'orders' });
    expect(object).toEqual({
      version: '1.0',
      timestamp: NOW.toISOString(),
      requestContext: {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 3,
      },
      responseContext: { reason: 'invoke failed (Unhandled): Error: cannot parse' },
      rocketMQInfo: {
        consumerGroup: 'orders-consumer',
        topic: 'orders',
        queueTopic: '%RETRY%orders-consumer',
        brokerName: 'broker-a',
        queueId: 0,
        queueOffset: 3,
        messageId: 'id-9',
        reconsumeTimes: 2,
        bornTime: new Date(1_700_000_000_000).toISOString(),
        storeTime: new Date(1_700_000_000_005).toISOString(),
        bodyBytes: 3,
      },
      record: buildRecord({ ...retried, topic: 'orders' }, 'base64'),
    } satisfies S3FailureObject);
    expect(object.record.body).toBe(Buffer.from([0, 255, 1]).toString('base64'));
    // A message dead-lettered uninvoked (too old, too large) counts no invoke for its last failure.
    const old = failure([retried], 'RecordAgeExceeded');
    expect(buildS3FailureObject(old.record, retried).requestContext.approximateInvokeCount).toBe(2);
  });

  it('keys: group/topic/broker/queue/date, then time, 20-digit offset and message id', () => {
    const one = consumed({ msgId: 'AC11000100002A9F0000000000000001', queueOffset: 42 });
    const object = buildS3FailureObject(failure([one]).record, one);
    expect(s3FailureKey('', object)).toBe(
      'orders-consumer/orders/broker-a/1/2026/03/04/2026-03-04T05.06.07.089Z-00000000000000000042-AC11000100002A9F0000000000000001.json',
    );
    expect(s3FailureKey('rocketmq/prod', object)).toBe(`rocketmq/prod/${s3FailureKey('', object)}`);
    // The segments RocketMQ names may hold % and | (topics); they are percent-encoded, never a new level.
    const odd = buildS3FailureObject(failure([one]).record, { ...one, topic: 'a%b|c' });
    expect(s3FailureKey('', odd).split('/')[1]).toBe('a%25b%7Cc');
    // Within one queue and second, keys sort as the offsets do.
    const keys = [9, 10, 100].map((queueOffset) => {
      const m = consumed({ msgId: `m${queueOffset}`, queueOffset });
      return s3FailureKey('', buildS3FailureObject(failure([m]).record, m));
    });
    expect([...keys].sort()).toEqual(keys);
  });
});

describe('the S3 failure destination', () => {
  it('asks the bucket its region once and puts one JSON object per message there', async () => {
    const messages = [
      consumed({ msgId: 'id-1', queueOffset: 7, body: Buffer.alloc(300 * 1024, 'x') }),
      consumed({ msgId: 'id-2', queueOffset: 8 }),
    ];
    const destination = createFailureDestination('arn:aws:s3:::failures/rocketmq/prod', {
      endpoint,
      credentials,
    });
    const { record } = failure(messages);
    await destination.send(record, messages);
    await destination.send(failure(messages).record, messages);
    await destination.close();

    const heads = requests.filter((request) => request.method === 'HEAD');
    // us-east-1 first (the partition's home), redirected by S3's 301 to the bucket's region.
    expect(heads.map((head) => head.region)).toEqual(['us-east-1', 'eu-central-1']);
    expect(puts()).toHaveLength(4);
    expect(puts().every((put) => put.region === 'eu-central-1')).toBe(true);
    expect(puts().every((put) => put.contentType === 'application/json')).toBe(true);
    // The objects of one send are put side by side: they may arrive in any order.
    const first = puts().find((put) => (JSON.parse(put.body) as S3FailureObject).record.messageId === 'id-1');
    const object = JSON.parse(first?.body ?? '{}') as S3FailureObject;
    expect(first?.path).toBe(`/failures/${s3FailureKey('rocketmq/prod', object)}`);
    expect(first?.path).toMatch(
      /^\/failures\/rocketmq\/prod\/orders-consumer\/orders\/broker-a\/1\/2026\/03\/04\//,
    );
    expect(Buffer.from(object.record.body, 'base64')).toEqual(messages[0]?.message.body);
    expect(object.record.messageId).toBe('id-1');
  });

  it('a caller without s3:ListBucket still learns the region from the 403', async () => {
    headMode = 'forbidden';
    bucketRegion = 'ap-southeast-2';
    const destination = createFailureDestination('arn:aws:s3:::failures', { endpoint, credentials });
    const { record, messages } = failure();
    await destination.send(record, messages);
    await destination.close();
    expect(puts().map((put) => put.region)).toEqual(['ap-southeast-2']);
    expect(puts()[0]?.path).toMatch(/^\/failures\/orders-consumer\//);
  });

  it('retries a transient error onto the same key, then gives up naming the ARN', async () => {
    const destination = createFailureDestination('arn:aws:s3:::failures', {
      endpoint,
      credentials,
      maxAttempts: 2,
    });
    const { record, messages } = failure();
    failPuts = 1;
    await destination.send(record, messages);
    expect(puts()).toHaveLength(2);
    expect(new Set(puts().map((put) => put.path)).size).toBe(1);
    failPuts = 2;
    const error = await destination.send(record, messages).catch((e: unknown) => e);
    await destination.close();
    expect(error).toBeInstanceOf(FailureDestinationError);
    expect(error).toMatchObject({ arn: 'arn:aws:s3:::failures', retriable: true });
    expect((error as Error).message).toMatch(
      /^1 of 1 failure object\(s\) not written; the first: cannot deliver the failure object orders-consumer\/.+ to arn:aws:s3:::failures: SlowDown/,
    );
    expect((error as Error).message).not.toContain('test'); // no credentials
  });

  it('a missing bucket: every put refused, not retried, the error names the ARN; asked again later', async () => {
    const destination = createFailureDestination('arn:aws:s3:::gone-bucket', { endpoint, credentials });
    const { record, messages } = failure([
      consumed({ msgId: 'id-1', queueOffset: 1 }),
      consumed({ msgId: 'id-2', queueOffset: 2 }),
    ]);
    const error = await destination.send(record, messages).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FailureDestinationError);
    expect(error).toMatchObject({ arn: 'arn:aws:s3:::gone-bucket', retriable: false });
    expect((error as Error).message).toMatch(/^2 of 2 failure object\(s\) not written; .* NoSuchBucket/);
    expect(puts()).toHaveLength(2);
    // Once the bucket exists, the next record asks its region and lands.
    buckets.add('gone-bucket');
    await destination.send(record, messages);
    await destination.close();
    expect(requests.filter((request) => request.method === 'HEAD').length).toBeGreaterThanOrEqual(2);
    expect(
      puts()
        .slice(2)
        .every((put) => put.region === 'eu-central-1'),
    ).toBe(true);
  });

  it('refuses an S3 ARN that is not a bucket ARN, saying why', () => {
    expect(() => createFailureDestination('arn:aws:s3:eu-west-1:123456789012:failures')).toThrow(
      'onFailure "arn:aws:s3:eu-west-1:123456789012:failures" is not an S3 bucket ARN: an S3 bucket ARN has no region and no account (arn:aws:s3:::<bucket>): the region is asked of S3',
    );
    expect(() => createFailureDestination('arn:aws:s3:::failures/')).toThrow(FailureDestinationError);
  });
});
