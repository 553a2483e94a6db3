import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { consumerOptionsOf } from '../../../src/poller/poller.js';
import { tlsTestCerts } from '../../support/tls-certs.js';

const MAPPING = { topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs#handler' };

function config(overrides: Record<string, unknown> = {}, mapping: Record<string, unknown> = {}): unknown {
  return {
    nameServer: '127.0.0.1:9876',
    offsets: { store: 'memory' },
    mappings: [{ ...MAPPING, ...mapping }],
    ...overrides,
  };
}

function parse(raw: unknown, env: Record<string, string> = {}): RunConfig {
  return parseConfig(raw, { baseDir: '/app', env });
}

function problems(raw: unknown, env: Record<string, string> = {}): readonly string[] {
  try {
    parse(raw, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('integer ranges', () => {
  const ranges: [string, number, number][] = [
    ['batchSize', 1, 10_000],
    ['maximumBatchingWindowMs', 0, 300_000],
    ['maxConcurrency', 1, 1000],
    ['maxReconsumeTimes', 0, 10_000],
    ['pullThresholdForQueue', 1, 65_535],
    ['pullThresholdSizeForQueue', 1, 1024 * 1024 * 1024],
    ['consumeConcurrentlyMaxSpan', 1, 65_535],
    ['consumeTimeoutMs', 1000, 24 * 3_600_000],
  ];

  it.each(ranges)('mappings[].%s accepts %d..%d and names the key outside', (key, min, max) => {
    expect(parse(config({}, { [key]: min })).mappings[0]).toHaveProperty(key, min);
    expect(parse(config({}, { [key]: max })).mappings[0]).toHaveProperty(key, max);
    expect(problems(config({}, { [key]: min - 1 }))).toEqual([
      `mappings[0].${key}: must be ≥ ${min}, got ${min - 1}`,
    ]);
    expect(problems(config({}, { [key]: max + 1 }))).toEqual([
      `mappings[0].${key}: must be ≤ ${max}, got ${max + 1}`,
    ]);
    expect(problems(config({}, { [key]: '5' }))).toEqual([`mappings[0].${key}: must be a number, got "5"`]);
  });

  it.each(ranges)('the range of %s is the consumer runtime range', (key, min, max) => {
    const base = { name: 'm', topic: 'T', consumerGroup: 'G' };
    expect(() => normalizeConsumerOptions({ ...base, [key]: min })).not.toThrow();
    expect(() => normalizeConsumerOptions({ ...base, [key]: max })).not.toThrow();
    expect(() => normalizeConsumerOptions({ ...base, [key]: min - 1 })).toThrow();
    expect(() => normalizeConsumerOptions({ ...base, [key]: max + 1 })).toThrow();
  });

  it('shutdownTimeoutMs is 0..3600000', () => {
    expect(parse(config({ shutdownTimeoutMs: 0 })).shutdownTimeoutMs).toBe(0);
    expect(problems(config({ shutdownTimeoutMs: 3_600_001 }))).toEqual([
      'shutdownTimeoutMs: must be ≤ 3600000, got 3600001',
    ]);
  });
});

describe('decompression limits', () => {
  const MiB = 1024 * 1024;
  const body = (bytes: number) => ({ maxDecompressedBodyBytes: bytes });
  const pull = (bytes: number) => ({ maxDecompressedPullBytes: bytes });
  const mappingOf = (mapping: Record<string, unknown>) => parse(config({}, mapping)).mappings[0];

  it('mappings[].maxDecompressedBodyBytes accepts 64 KiB..256 MiB (with a pull that holds it)', () => {
    expect(mappingOf(body(64 * 1024))).toMatchObject({
      maxDecompressedBodyBytes: 64 * 1024,
      maxDecompressedPullBytes: 32 * MiB,
    });
    expect(mappingOf({ ...body(256 * MiB), ...pull(256 * MiB) })).toMatchObject({
      maxDecompressedBodyBytes: 256 * MiB,
      maxDecompressedPullBytes: 256 * MiB,
    });
    expect(problems(config({}, body(64 * 1024 - 1)))).toEqual([
      `mappings[0].maxDecompressedBodyBytes: must be ≥ ${64 * 1024}, got ${64 * 1024 - 1}`,
    ]);
    // Out of its range, it is told once (not also as more than the default pull).
    expect(problems(config({}, body(256 * MiB + 1)))).toEqual([
      `mappings[0].maxDecompressedBodyBytes: must be ≤ ${256 * MiB}, got ${256 * MiB + 1}`,
    ]);
  });

  it('mappings[].maxDecompressedPullBytes accepts 1 MiB..1024 MiB (holding the body limit)', () => {
    expect(mappingOf({ ...body(MiB), ...pull(MiB) })).toMatchObject({ maxDecompressedPullBytes: MiB });
    expect(mappingOf(pull(1024 * MiB))).toMatchObject({
      maxDecompressedBodyBytes: 6 * MiB,
      maxDecompressedPullBytes: 1024 * MiB,
    });
    expect(problems(config({}, { ...body(64 * 1024), ...pull(MiB - 1) }))).toEqual([
      `mappings[0].maxDecompressedPullBytes: must be ≥ ${MiB}, got ${MiB - 1}`,
    ]);
    expect(problems(config({}, pull(1024 * MiB + 1)))).toEqual([
      `mappings[0].maxDecompressedPullBytes: must be ≤ ${1024 * MiB}, got ${1024 * MiB + 1}`,
    ]);
  });

  it('one pull must hold a body at its limit, whichever key was set', () => {
    expect(problems(config({}, { ...body(8 * MiB), ...pull(4 * MiB) }))).toEqual([
      'mappings[0].maxDecompressedPullBytes: must be at least maxDecompressedBodyBytes (8388608): one pull must hold a body at its limit',
    ]);
    expect(problems(config({}, pull(2 * MiB)))).toEqual([
      'mappings[0].maxDecompressedPullBytes: must be at least maxDecompressedBodyBytes (6291456, the default): one pull must hold a body at its limit',
    ]);
    expect(problems(config({}, body(64 * MiB)))).toEqual([
      'mappings[0].maxDecompressedBodyBytes: must be at most maxDecompressedPullBytes (33554432, the default): one pull must hold a body at its limit; raise maxDecompressedPullBytes too',
    ]);
    expect(mappingOf({ ...body(8 * MiB), ...pull(8 * MiB) })).toMatchObject({
      maxDecompressedBodyBytes: 8 * MiB,
      maxDecompressedPullBytes: 8 * MiB,
    });
  });

  it('refuses at load what the consumer refuses at start, and nothing more', () => {
    const base = { name: 'm', topic: 'T', consumerGroup: 'G' };
    const cases = [
      { ...body(8 * MiB), ...pull(4 * MiB) },
      pull(2 * MiB),
      body(64 * MiB),
      { ...body(8 * MiB), ...pull(8 * MiB) },
      { ...body(256 * MiB), ...pull(256 * MiB) },
    ];
    for (const options of cases) {
      const refusedAtStart = (() => {
        try {
          normalizeConsumerOptions({ ...base, ...options });
          return false;
        } catch {
          return true;
        }
      })();
      const refusedAtLoad = (() => {
        try {
          parse(config({}, options));
          return false;
        } catch (error) {
          if (error instanceof ConfigError) return true;
          throw error;
        }
      })();
      expect({ options, refusedAtLoad }).toEqual({ options, refusedAtLoad: refusedAtStart });
    }
  });
});

describe('enums, booleans and strings', () => {
  it('names the allowed values and suggests the right case', () => {
    expect(problems(config({}, { messageModel: 'broadcasting' }))).toEqual([
      'mappings[0].messageModel: must be one of CLUSTERING, BROADCASTING, got "broadcasting" (did you mean BROADCASTING?)',
    ]);
    expect(problems(config({}, { startingPosition: 'EARLIEST' }))).toEqual([
      'mappings[0].startingPosition: must be one of LATEST, TRIM_HORIZON, AT_TIMESTAMP, got "EARLIEST"',
    ]);
    expect(problems(config({}, { orderly: true, orderlyFailure: 'retry' }))).toEqual([
      'mappings[0].orderlyFailure: must be one of skip, block, got "retry"',
    ]);
  });

  it('wants booleans, not strings', () => {
    expect(problems(config({ tls: 'yes' }))).toEqual([
      'tls: must be true, false or { caFile, certFile, keyFile, ca, cert, key, keyPassphrase, serverName, verifyServer }, got "yes"',
    ]);
    expect(problems(config({}, { orderly: 1 }))).toEqual([
      'mappings[0].orderly: must be true or false, got 1',
    ]);
  });

  it('checks topic, group and mapping names', () => {
    expect(problems(config({}, { topic: 'bad topic', consumerGroup: 'g/1', name: '-x' }))).toEqual([
      'mappings[0].name: must be 1–64 of A-Z a-z 0-9 . _ -, starting with a letter or digit',
      'mappings[0].topic: must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)',
      'mappings[0].consumerGroup: must be a RocketMQ group name (A-Z a-z 0-9 _ - % |)',
    ]);
    expect(problems(config({}, { topic: 'T'.repeat(128) }))).toEqual([
      'mappings[0].topic: must be at most 127 characters long',
    ]);
  });

  it('wants at least one mapping, and objects where objects belong', () => {
    expect(problems(config({ mappings: [] }))).toEqual(['mappings: must have at least 1 entry']);
    expect(problems(config({ mappings: {} }))).toEqual(['mappings: must be a list, got an object']);
    expect(problems(config({ offsets: 'memory' }))).toEqual([
      'offsets: must be a mapping of keys to values, got "memory"',
    ]);
    expect(problems([])).toEqual(['(config): must be a mapping of keys to values, got a list']);
  });

  it('collects problems of several mappings at once', () => {
    const raw = config({
      mappings: [
        { ...MAPPING, batchSize: 0 },
        { ...MAPPING, consumerGroup: 'other', batchSize: 20_000, maxConcurrency: 0 },
      ],
    });
    expect(problems(raw)).toEqual([
      'mappings[0].batchSize: must be ≥ 1, got 0',
      'mappings[1].batchSize: must be ≤ 10000, got 20000',
      'mappings[1].maxConcurrency: must be ≥ 1, got 0',
    ]);
  });
});

describe('nameServer', () => {
  it('takes Java namesrvAddr text or a list', () => {
    expect(parse(config({ nameServer: 'a:9876; b:9877' })).nameServerAddresses).toEqual(['a:9876', 'b:9877']);
    expect(parse(config({ nameServer: ['a:9876', '[::1]:9876'] })).nameServerAddresses).toEqual([
      'a:9876',
      '[::1]:9876',
    ]);
  });

  it('names each bad address', () => {
    expect(problems(config({ nameServer: 'a:9876;b' }))).toEqual(['nameServer: "b" is not host:port']);
    expect(problems(config({ nameServer: ['a:9876', 'b:0'] }))).toEqual([
      'nameServer[1]: "b:0" is not host:port',
    ]);
    expect(problems(config({ nameServer: ' ; ' }))).toEqual(['nameServer: must list at least one host:port']);
    expect(problems(config({ nameServer: [] }))).toEqual(['nameServer: must have at least 1 entry']);
    expect(problems(config({ nameServer: 9876 }))).toEqual([
      'nameServer: must be "host:port;host:port" or a list of "host:port", got 9876',
    ]);
  });
});

describe('filter', () => {
  it('is a tag expression or { sql }', () => {
    expect(parse(config({}, { filter: 'A || B' })).mappings[0]?.filter).toEqual({
      type: 'TAG',
      expression: 'A || B',
    });
    expect(parse(config({}, { filter: { sql: 'a > 1' } })).mappings[0]?.filter).toEqual({
      type: 'SQL92',
      expression: 'a > 1',
    });
  });

  it('reports the problem of the form that was meant', () => {
    expect(problems(config({}, { filter: { sqll: 'a > 1' } }))).toEqual([
      'mappings[0].filter.sql: required',
      'mappings[0].filter.sqll: unknown key (did you mean sql?)',
    ]);
    expect(problems(config({}, { filter: { sql: ' ' } }))).toEqual([
      'mappings[0].filter.sql: must not be empty',
    ]);
    expect(problems(config({}, { filter: 42 }))).toEqual([
      'mappings[0].filter: must be a tag expression ("*", "TagA || TagB") or { sql: "..." }, got 42',
    ]);
    expect(problems(config({}, { filter: ' || ' }))).toEqual([
      'mappings[0].filter: tag expression " || " names no tag (use "*" for all)',
    ]);
  });
});

describe('startingPosition and its timestamp', () => {
  it('AT_TIMESTAMP needs a timestamp; the others refuse one', () => {
    expect(problems(config({}, { startingPosition: 'AT_TIMESTAMP' }))).toEqual([
      'mappings[0].startingPositionTimestamp: required when startingPosition is AT_TIMESTAMP',
    ]);
    expect(problems(config({}, { startingPositionTimestamp: 1 }))).toEqual([
      'mappings[0].startingPositionTimestamp: only used when startingPosition is AT_TIMESTAMP (it is LATEST, the default)',
    ]);
  });

  it('takes Unix seconds (as AWS) or ISO 8601 with a zone, and resolves to milliseconds', () => {
    const at = (timestamp: unknown) =>
      parse(config({}, { startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: timestamp }))
        .mappings[0]?.startingPositionTimestampMs;
    expect(at(1_700_000_000)).toBe(1_700_000_000_000);
    expect(at(1_700_000_000.5)).toBe(1_700_000_000_500);
    expect(at('2025-01-31T12:00:00+02:00')).toBe(Date.UTC(2025, 0, 31, 10));
    expect(at('2025-01-31')).toBe(Date.UTC(2025, 0, 31));
  });

  it('rejects milliseconds, zone-less times and impossible dates', () => {
    const bad = (timestamp: unknown) =>
      problems(config({}, { startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: timestamp }));
    expect(bad(1_700_000_000_000)).toEqual([
      'mappings[0].startingPositionTimestamp: is Unix time in seconds (this looks like milliseconds)',
    ]);
    expect(bad('2025-01-31T12:00:00')).toEqual([
      'mappings[0].startingPositionTimestamp: must be an ISO 8601 date-time with a zone',
    ]);
    expect(bad('2025-02-30T12:00:00Z')).toEqual([
      'mappings[0].startingPositionTimestamp: "2025-02-30T12:00:00Z" is not a valid date',
    ]);
    expect(bad('2025-01-31T24:30:00Z')).toEqual([
      'mappings[0].startingPositionTimestamp: "2025-01-31T24:30:00Z" is not a valid date',
    ]);
    expect(bad(-1)).toEqual(['mappings[0].startingPositionTimestamp: must be ≥ 0, got -1']);
  });
});

describe('orderly', () => {
  it('orderlyFailure needs orderly: true', () => {
    expect(problems(config({}, { orderlyFailure: 'block' }))).toEqual([
      'mappings[0].orderlyFailure: only used when orderly is true',
    ]);
    expect(parse(config({}, { orderly: true, orderlyFailure: 'block' })).mappings[0]?.orderlyFailure).toBe(
      'block',
    );
  });

  it('orderly BROADCASTING is allowed, as in Java (no broker locks, each poller orders its own stream)', () => {
    const mapping = parse(config({}, { orderly: true, messageModel: 'BROADCASTING' })).mappings[0];
    expect(mapping).toMatchObject({ orderly: true, messageModel: 'BROADCASTING' });
  });
});

describe('mapping names and consumer groups', () => {
  it('a name defaults to the consumer group and must be unique', () => {
    const raw = config({
      mappings: [
        { ...MAPPING, name: 'b' },
        { ...MAPPING, consumerGroup: 'b' },
      ],
    });
    expect(problems(raw)).toEqual([
      'mappings[1].name: defaults to its consumerGroup "b", which is already the name of mappings[0]',
    ]);
  });

  it('one mapping per consumer group, with a reason for each case', () => {
    const same = problems(
      config({
        mappings: [
          { ...MAPPING, name: 'a' },
          { ...MAPPING, name: 'b' },
        ],
      }),
    );
    expect(same).toEqual([
      'mappings[1].consumerGroup: consumer group "orders-fn" is already used by mappings[0]; one poller is one member of a group, so both mappings would get the same queues: give each mapping its own consumerGroup',
    ]);
    const different = problems(
      config({
        mappings: [
          { ...MAPPING, name: 'a' },
          { ...MAPPING, name: 'b', filter: 'TagA' },
        ],
      }),
    );
    expect(different).toEqual([
      'mappings[1].consumerGroup: consumer group "orders-fn" is already used by mappings[0] with a different subscription (topic or filter); RocketMQ keeps one subscription per group, so they would replace each other: give each mapping its own consumerGroup',
    ]);
  });
});

describe('function', () => {
  it('keeps local: references as written', () => {
    expect(parse(config({}, { function: 'local:handlers/x.js' })).mappings[0]?.functionRef).toBe(
      'local:handlers/x.js',
    );
  });

  it.each([
    'arn:aws:lambda:eu-west-1:123456789012:function:orders',
    'arn:aws:lambda:eu-west-1:123456789012:function:orders:live',
    'arn:aws-cn:lambda:cn-north-1:123456789012:function:orders:7',
    'orders',
    'orders:$LATEST',
    'orders:live',
    '123456789012:function:orders',
    '123456789012:function:orders:live',
  ])('accepts the Lambda function %s as written', (ref) => {
    expect(parse(config({}, { function: ref })).mappings[0]?.functionRef).toBe(ref);
  });

  it.each([
    'arn:aws:lambda:eu-west-1:123456789012:function:',
    'arn:aws:lambda:eu-west-1:12345:function:orders',
    'arn:aws:sqs:eu-west-1:123456789012:orders',
    'orders:live:extra',
    'a'.repeat(65),
  ])('rejects %s with one line naming the key', (ref) => {
    expect(problems(config({}, { function: ref }))).toEqual([
      'mappings[0].function: must be "local:./module.js#export" or a Lambda function name or ARN',
    ]);
  });

  it('rejects what is neither', () => {
    expect(problems(config({}, { function: 'http://x/y' }))).toEqual([
      'mappings[0].function: must be "local:./module.js#export" or a Lambda function name or ARN',
    ]);
    expect(problems(config({}, { function: 'local:#handler' }))).toEqual([
      'mappings[0].function: must be local:<module path>[#<export name>]',
    ]);
    expect(problems(config({}, { function: 'local:./x.js#not-an-id' }))).toEqual([
      'mappings[0].function: export name "not-an-id" is not an identifier',
    ]);
    expect(problems(config({}, { function: '' }))).toEqual(['mappings[0].function: must not be empty']);
  });
});

describe('Lambda options', () => {
  const LAMBDA = { function: 'orders:live' };

  it('defaults: no bisect, no record age, no onFailure, 15-minute function timeout', () => {
    expect(parse(config({}, LAMBDA)).mappings[0]).toMatchObject({
      functionTimeoutMs: 900_000,
      bisectBatchOnError: false,
      maxRecordAgeSeconds: -1,
      onFailure: undefined,
    });
  });

  it('messageTrace: off by default, RMQ_SYS_TRACE_TOPIC for true, or the topic given', () => {
    const traceOf = (messageTrace: unknown) =>
      parse(config({}, { ...LAMBDA, ...(messageTrace === undefined ? {} : { messageTrace }) })).mappings[0]
        ?.messageTrace;
    expect(traceOf(undefined)).toBeUndefined();
    expect(traceOf(false)).toBeUndefined();
    expect(traceOf(true)).toEqual({ topic: 'RMQ_SYS_TRACE_TOPIC' });
    expect(traceOf({})).toEqual({ topic: 'RMQ_SYS_TRACE_TOPIC' });
    expect(traceOf({ topic: 'ORDERS_TRACE' })).toEqual({ topic: 'ORDERS_TRACE' });
    expect(problems(config({}, { ...LAMBDA, messageTrace: 'yes' }))).toEqual([
      'mappings[0].messageTrace: must be true, false or { topic: "<trace topic>" }, got "yes"',
    ]);
    expect(problems(config({}, { ...LAMBDA, messageTrace: { topic: 'no spaces' } }))).toEqual([
      'mappings[0].messageTrace.topic: must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)',
    ]);
    expect(problems(config({}, { ...LAMBDA, messageTrace: { topik: 'T' } }))).toHaveLength(1);
  });

  it('maxRecordAgeSeconds is -1 or 60..604800, as AWS', () => {
    for (const value of [-1, 60, 3600, 604_800]) {
      expect(
        parse(config({}, { ...LAMBDA, maxRecordAgeSeconds: value })).mappings[0]?.maxRecordAgeSeconds,
      ).toBe(value);
    }
    for (const value of [0, 59]) {
      expect(problems(config({}, { ...LAMBDA, maxRecordAgeSeconds: value }))).toEqual([
        `mappings[0].maxRecordAgeSeconds: must be -1 (no limit) or 60–604800 seconds, got ${value}`,
      ]);
    }
    expect(problems(config({}, { ...LAMBDA, maxRecordAgeSeconds: 604_801 }))).toEqual([
      'mappings[0].maxRecordAgeSeconds: must be ≤ 604800, got 604801',
    ]);
    expect(problems(config({}, { ...LAMBDA, maxRecordAgeSeconds: -2 }))).toEqual([
      'mappings[0].maxRecordAgeSeconds: must be ≥ -1, got -2',
    ]);
    expect(problems(config({}, { ...LAMBDA, maxRecordAgeSeconds: 90.5 }))).toHaveLength(1);
  });

  it('functionTimeoutMs is 1000..900000 and only for Lambda functions', () => {
    expect(parse(config({}, { ...LAMBDA, functionTimeoutMs: 30_000 })).mappings[0]?.functionTimeoutMs).toBe(
      30_000,
    );
    expect(problems(config({}, { ...LAMBDA, functionTimeoutMs: 900_001 }))).toEqual([
      'mappings[0].functionTimeoutMs: must be ≤ 900000, got 900001',
    ]);
    expect(problems(config({}, { functionTimeoutMs: 30_000 }))).toEqual([
      'mappings[0].functionTimeoutMs: only used with a Lambda function (local: handlers run in-process)',
    ]);
  });

  it('consumeTimeoutMs outlasts one invoke: the default adds 15 min to it, a shorter value is refused', () => {
    expect(parse(config({}, LAMBDA)).mappings[0]?.consumeTimeoutMs).toBe(900_000 + 10_000 + 900_000);
    expect(parse(config({}, { ...LAMBDA, functionTimeoutMs: 60_000 })).mappings[0]?.consumeTimeoutMs).toBe(
      60_000 + 10_000 + 900_000,
    );
    expect(parse(config({})).mappings[0]?.consumeTimeoutMs).toBe(900_000);
    expect(
      parse(config({}, { ...LAMBDA, functionTimeoutMs: 60_000, consumeTimeoutMs: 70_001 })).mappings[0]
        ?.consumeTimeoutMs,
    ).toBe(70_001);
    expect(problems(config({}, { ...LAMBDA, functionTimeoutMs: 60_000, consumeTimeoutMs: 70_000 }))).toEqual([
      'mappings[0].consumeTimeoutMs: must be longer than one invoke may take (functionTimeoutMs 60000 + 10000 ms margin = 70000 ms), got 70000: a message still being processed would be sent back for retry',
    ]);
    expect(problems(config({}, { ...LAMBDA, consumeTimeoutMs: 900_000 }))).toHaveLength(1);
  });

  it('onFailure takes an SQS queue or SNS topic ARN', () => {
    for (const arn of [
      'arn:aws:sqs:eu-west-1:123456789012:orders-failures',
      'arn:aws:sns:eu-west-1:123456789012:orders-failures',
    ]) {
      expect(parse(config({}, { ...LAMBDA, onFailure: arn })).mappings[0]?.onFailure).toBe(arn);
    }
    expect(problems(config({}, { ...LAMBDA, onFailure: 'https://sqs.eu-west-1.amazonaws.com/1/q' }))).toEqual(
      [
        'mappings[0].onFailure: "https://sqs.eu-west-1.amazonaws.com/1/q" is not an SQS queue ARN, SNS topic ARN or S3 bucket ARN (arn:aws:sqs:<region>:<account>:<queue>, arn:aws:sns:<region>:<account>:<topic> or arn:aws:s3:::<bucket>[/<key prefix>])',
      ],
    );
    for (const arn of ['arn:aws:s3:::orders-failures', 'arn:aws-cn:s3:::orders.failures/rocketmq/prod']) {
      expect(parse(config({}, { ...LAMBDA, onFailure: arn })).mappings[0]?.onFailure).toBe(arn);
    }
    expect(
      problems(config({}, { ...LAMBDA, onFailure: 'arn:aws:s3:eu-west-1:123456789012:orders' })),
    ).toEqual([
      'mappings[0].onFailure: "arn:aws:s3:eu-west-1:123456789012:orders": an S3 bucket ARN has no region and no account (arn:aws:s3:::<bucket>): the region is asked of S3',
    ]);
    expect(problems(config({}, { ...LAMBDA, onFailure: 'arn:aws:s3:::orders/prod/' }))).toEqual([
      'mappings[0].onFailure: "arn:aws:s3:::orders/prod/": the key prefix after the bucket must not be empty, end with "/" or hold "//" (a "/" is added after it)',
    ]);
    expect(problems(config({}, { ...LAMBDA, onFailure: '' }))).toEqual([
      'mappings[0].onFailure: must not be empty',
    ]);
    expect(problems(config({}, { ...LAMBDA, bisectBatchOnError: 'yes' }))).toEqual([
      'mappings[0].bisectBatchOnError: must be true or false, got "yes"',
    ]);
  });

  it('lambda: region and endpoint from the file, else AWS_REGION and AWS_ENDPOINT_URL_LAMBDA', () => {
    const fromFile = parse(
      config({ lambda: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:3002' } }, LAMBDA),
      { AWS_REGION: 'us-west-2', AWS_ENDPOINT_URL_LAMBDA: 'http://env:1' },
    );
    expect(fromFile.lambda).toEqual({ region: 'eu-west-1', endpoint: 'http://127.0.0.1:3002' });
    const fromEnv = parse(config({}, LAMBDA), {
      AWS_REGION: 'us-west-2',
      AWS_ENDPOINT_URL_LAMBDA: 'http://env:1',
    });
    expect(fromEnv.lambda).toEqual({ region: 'us-west-2', endpoint: 'http://env:1' });
    const localOnly = parse(config({}, {}), { AWS_ENDPOINT_URL_LAMBDA: 'http://env:1' });
    expect(localOnly.lambda).toEqual({ region: undefined, endpoint: undefined });
    expect(parse(config({ lambda: { endpoint: 'http://127.0.0.1:3002' } }, LAMBDA)).lambda.region).toBe(
      'us-east-1',
    );
    expect(problems(config({ lambda: { endpoint: '127.0.0.1:3002', regoin: 'x' } }, LAMBDA))).toEqual([
      'lambda.endpoint: must be an http(s) URL, e.g. http://127.0.0.1:3002',
      'lambda.regoin: unknown key (did you mean region?)',
    ]);
    expect(problems(config({}, LAMBDA), { AWS_ENDPOINT_URL_LAMBDA: 'not a url' })).toEqual([
      'lambda.endpoint: must be an http(s) URL, e.g. http://127.0.0.1:3002',
    ]);
  });

  it('destinations: one endpoint for every service, else AWS_ENDPOINT_URL_SQS / _SNS / _S3', () => {
    expect(parse(config({ destinations: { endpoint: 'http://127.0.0.1:4566' } })).destinations).toEqual({
      sqsEndpoint: 'http://127.0.0.1:4566',
      snsEndpoint: 'http://127.0.0.1:4566',
      s3Endpoint: 'http://127.0.0.1:4566',
    });
    expect(
      parse(config({}), {
        AWS_ENDPOINT_URL_SQS: 'http://sqs:1',
        AWS_ENDPOINT_URL_SNS: 'http://sns:1',
        AWS_ENDPOINT_URL_S3: 'http://s3:1',
      }).destinations,
    ).toEqual({ sqsEndpoint: 'http://sqs:1', snsEndpoint: 'http://sns:1', s3Endpoint: 'http://s3:1' });
  });
});

describe('offsets', () => {
  it('dynamodb needs a table; the other stores refuse DynamoDB keys', () => {
    expect(problems(config({ offsets: { store: 'dynamodb' } }))).toEqual([
      'offsets.table: required when offsets.store is dynamodb',
    ]);
    expect(
      problems(
        config({ offsets: { store: 'file', table: 'offsets', endpoint: 'http://x:1', createTable: true } }),
      ),
    ).toEqual([
      'offsets.table: only used when offsets.store is dynamodb (it is file)',
      'offsets.endpoint: only used when offsets.store is dynamodb (it is file)',
      'offsets.createTable: only used when offsets.store is dynamodb (it is file)',
    ]);
  });

  it('checks table names and endpoints', () => {
    expect(
      problems(config({ offsets: { store: 'dynamodb', table: 'a b', endpoint: 'localhost:8000' } })),
    ).toEqual([
      'offsets.table: must be a DynamoDB table name (3–255 of A-Z a-z 0-9 _ . -)',
      'offsets.endpoint: must be an http(s) URL, e.g. http://127.0.0.1:8000',
    ]);
  });

  it('a local endpoint without a region gets us-east-1; without an endpoint the SDK chooses', () => {
    const local = parse(
      config({ offsets: { store: 'dynamodb', table: 'offs', endpoint: 'http://127.0.0.1:8000' } }),
    );
    expect(local.offsets).toMatchObject({ region: 'us-east-1', createTable: false });
    const aws = parse(config({ offsets: { store: 'dynamodb', table: 'offs' } }));
    expect(aws.offsets).toMatchObject({ region: undefined, endpoint: undefined });
  });

  it('the local offsets path defaults under .rocketmq-lambda/ of the base directory', () => {
    expect(parse(config({ offsets: { store: 'file' } })).offsets).toEqual({
      store: 'file',
      path: '/app/.rocketmq-lambda/offsets',
      persistIntervalMs: 5000,
    });
  });

  it('offsets.persistIntervalMs is 100..600000 and reaches the consumer', () => {
    expect(
      parse(config({ offsets: { store: 'memory', persistIntervalMs: 1000 } })).offsets.persistIntervalMs,
    ).toBe(1000);
    expect(problems(config({ offsets: { store: 'memory', persistIntervalMs: 50 } }))).toEqual([
      'offsets.persistIntervalMs: must be ≥ 100, got 50',
    ]);
    const parsed = parse(config({ offsets: { store: 'memory', persistIntervalMs: 250 } }));
    const mapping = parsed.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const options = consumerOptionsOf(mapping, parsed.shutdownTimeoutMs, parsed.offsets.persistIntervalMs);
    expect(normalizeConsumerOptions(options).persistIntervalMs).toBe(250);
  });
});

describe('acl and tls', () => {
  it('takes credentials, with an optional token', () => {
    expect(parse(config({ acl: { accessKey: 'ak', secretKey: 'sk' } })).acl).toEqual({
      accessKey: 'ak',
      secretKey: 'sk',
    });
    expect(problems(config({ acl: { accessKey: 'ak' } }))).toEqual(['acl.secretKey: required']);
    expect(problems(config({ acl: { accessKey: 'ak', secretKey: 'sk', token: 't' } }))).toEqual([
      'acl.token: unknown key',
    ]);
  });

  it('never shows a credential, not even a wrongly typed one (an unquoted all-digit YAML secret)', () => {
    const lines = problems(
      config({
        acl: { accessKey: 12345678901, secretKey: 98765432109876, securityToken: ['x-token-value'] },
      }),
    );
    expect(lines).toEqual([
      'acl.accessKey: must be a string, got a number (value not shown) (put it in quotes)',
      'acl.secretKey: must be a string, got a number (value not shown) (put it in quotes)',
      'acl.securityToken: must be a string, got a list (value not shown)',
    ]);
    for (const secret of ['12345678901', '98765432109876', 'x-token-value']) {
      expect(lines.join('\n')).not.toContain(secret);
    }
    const passphrase = problems(config({ tls: { keyPassphrase: 424242 } }));
    expect(passphrase.join('\n')).not.toContain('424242');
    const key = problems(config({ tls: { key: 987654321987 } }));
    expect(key.join('\n')).toContain('tls.key');
    expect(key.join('\n')).not.toContain('987654321987');
  });

  it('refuses half of the ACL credentials from the environment instead of turning signing off', () => {
    expect(problems(config(), { ROCKETMQ_ACCESS_KEY: 'ak' })).toEqual([
      'acl: ROCKETMQ_ACCESS_KEY is set but ROCKETMQ_SECRET_KEY is not: set both, or neither',
    ]);
    expect(problems(config(), { ROCKETMQ_SECRET_KEY: 'very-secret' })).toEqual([
      'acl: ROCKETMQ_SECRET_KEY is set but ROCKETMQ_ACCESS_KEY is not: set both, or neither',
    ]);
    expect(problems(config(), { ROCKETMQ_SECURITY_TOKEN: 't' })).toEqual([
      'acl: ROCKETMQ_SECURITY_TOKEN is set without ROCKETMQ_ACCESS_KEY and ROCKETMQ_SECRET_KEY',
    ]);
    // The file wins: a complete acl there makes the environment irrelevant.
    expect(
      parse(config({ acl: { accessKey: 'a', secretKey: 'b' } }), { ROCKETMQ_ACCESS_KEY: 'x' }).acl,
    ).toEqual({
      accessKey: 'a',
      secretKey: 'b',
    });
  });

  it('tls: true verifies against the public CAs; false and absent are plain TCP', () => {
    expect(parse(config({ tls: true })).tls).toEqual({ verifyServer: true });
    expect(parse(config({ tls: false })).tls).toBeUndefined();
    expect(parse(config()).tls).toBeUndefined();
  });

  it('tls settings read their PEM files relative to the config, and name unreadable ones', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tls-config-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    // Real PEM: the material is parsed when the config is loaded (tls-material.ts).
    const certs = await tlsTestCerts();
    const cert = certs.client.certPem;
    const key = certs.client.keyPem;
    await writeFile(path.join(dir, 'ca.pem'), cert);
    await writeFile(path.join(dir, 'client.pem'), cert);
    await writeFile(path.join(dir, 'client.key'), key);
    const tls = parseConfig(
      config({
        tls: {
          caFile: 'ca.pem',
          certFile: 'client.pem',
          keyFile: 'client.key',
          serverName: 'broker.internal',
          verifyServer: true,
        },
      }),
      { baseDir: dir, env: { ROCKETMQ_TLS_KEY_PASSPHRASE: 'pass' } },
    ).tls;
    expect(tls).toEqual({
      caPem: cert,
      certPem: cert,
      keyPem: key,
      keyPassphrase: 'pass',
      serverName: 'broker.internal',
      verifyServer: true,
      settingNames: {
        caPem: 'tls.caFile',
        certPem: 'tls.certFile',
        keyPem: 'tls.keyFile',
        keyPassphrase: 'tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE)',
      },
    });
    const missing = (() => {
      try {
        parseConfig(config({ tls: { caFile: 'nope.pem' } }), { baseDir: dir, env: {} });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
      }
      return [];
    })();
    expect(missing).toEqual([`tls.caFile: cannot read ${path.join(dir, 'nope.pem')}: no such file`]);
    const halfPair = (() => {
      try {
        parseConfig(config({ tls: { certFile: 'client.pem' } }), { baseDir: dir, env: {} });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
      }
      return [];
    })();
    expect(halfPair).toEqual(['tls.keyFile: required with certFile']);
    expect(problems(config({ tls: { keyFile: 'client.key' } }))).toEqual([
      'tls.certFile: required with keyFile',
    ]);
    expect(problems(config({ tls: { cafile: 'x' } }))).toEqual([
      'tls.cafile: unknown key (did you mean caFile?)',
    ]);
  });
});

describe('SQL92 filters', () => {
  it('are checked when the config is loaded, naming the key, the fault and where it is', () => {
    expect(
      parse(config({}, { filter: { sql: "a > 5 AND region IN ('eu', 'us')" } })).mappings[0]?.filter,
    ).toEqual({
      type: 'SQL92',
      expression: "a > 5 AND region IN ('eu', 'us')",
    });
    const [line] = problems(config({}, { filter: { sql: 'a > ' } }));
    expect(line).toMatch(/^mappings\[0\]\.filter\.sql: invalid SQL92 filter: .*end of expression.*/);
    expect(problems(config({}, { filter: { sql: "a LIKE 'x%'" } }))[0]).toMatch(/LIKE/);
  });
});

describe('metrics', () => {
  it('metrics.cloudwatch: {} turns the lag metric on with the defaults; absent is off', () => {
    expect(parse(config({ metrics: { cloudwatch: {} } })).metrics).toEqual({
      emf: undefined,
      prometheus: undefined,
      cloudwatch: { namespace: 'RocketMQLambda', intervalMs: 60_000, region: undefined, endpoint: undefined },
    });
    const off = { emf: undefined, prometheus: undefined, cloudwatch: undefined };
    expect(parse(config()).metrics).toEqual(off);
    expect(parse(config({ metrics: {} })).metrics).toEqual(off);
  });

  it('metrics.emf: {} writes EMF lines every 60 s in RocketMQLambda; an interval and namespace can be set', () => {
    expect(parse(config({ metrics: { emf: {} } })).metrics.emf).toEqual({
      namespace: 'RocketMQLambda',
      intervalMs: 60_000,
    });
    expect(
      parse(config({ metrics: { emf: { namespace: 'Staging', intervalSeconds: 1 } } })).metrics.emf,
    ).toEqual({ namespace: 'Staging', intervalMs: 1000 });
    expect(problems(config({ metrics: { emf: { intervalSeconds: 0 } } }))).toEqual([
      'metrics.emf.intervalSeconds: must be ≥ 1, got 0',
    ]);
  });

  it('metrics.prometheus needs a port (0 picks a free one) and listens on loopback by default', () => {
    expect(parse(config({ metrics: { prometheus: { port: 0 } } })).metrics.prometheus).toEqual({
      port: 0,
      host: '127.0.0.1',
    });
    // Every interface only when asked (a scraper outside the task).
    expect(
      parse(config({ metrics: { prometheus: { port: 9464, host: '0.0.0.0' } } })).metrics.prometheus,
    ).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(problems(config({ metrics: { prometheus: {} } }))[0]).toMatch(/^metrics\.prometheus\.port: /);
    expect(problems(config({ metrics: { prometheus: { port: 65_536 } } }))).toEqual([
      'metrics.prometheus.port: must be ≤ 65535, got 65536',
    ]);
  });

  it('takes a namespace, an interval in seconds, a region and an endpoint', () => {
    const metrics = parse(
      config({
        metrics: {
          cloudwatch: {
            namespace: 'Staging/RocketMQ',
            intervalSeconds: 30,
            region: 'eu-west-1',
            endpoint: 'http://127.0.0.1:4566',
          },
        },
      }),
    ).metrics;
    expect(metrics.cloudwatch).toEqual({
      namespace: 'Staging/RocketMQ',
      intervalMs: 30_000,
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4566',
    });
  });

  it('intervalSeconds is 1..3600 and names the key outside', () => {
    const interval = (intervalSeconds: unknown) => config({ metrics: { cloudwatch: { intervalSeconds } } });
    expect(parse(interval(1)).metrics.cloudwatch?.intervalMs).toBe(1000);
    expect(parse(interval(3600)).metrics.cloudwatch?.intervalMs).toBe(3_600_000);
    expect(problems(interval(0))).toEqual(['metrics.cloudwatch.intervalSeconds: must be ≥ 1, got 0']);
    expect(problems(interval(3601))).toEqual([
      'metrics.cloudwatch.intervalSeconds: must be ≤ 3600, got 3601',
    ]);
    expect(problems(interval('60'))).toEqual([
      'metrics.cloudwatch.intervalSeconds: must be a number, got "60"',
    ]);
    expect(problems(interval(1.5))).toEqual([
      'metrics.cloudwatch.intervalSeconds: must be an integer, got 1.5',
    ]);
  });

  it('unknown keys under metrics and metrics.cloudwatch are errors naming them', () => {
    expect(problems(config({ metrics: { cloudwatch: { intervalSecond: 30 } } }))).toEqual([
      'metrics.cloudwatch.intervalSecond: unknown key (did you mean intervalSeconds?)',
    ]);
    expect(problems(config({ metrics: { cloudwatch: { dimensions: ['x'] } } }))).toEqual([
      'metrics.cloudwatch.dimensions: unknown key',
    ]);
    expect(problems(config({ metrics: { statsd: {} } }))).toEqual(['metrics.statsd: unknown key']);
  });

  it('checks the endpoint, the namespace and the shape', () => {
    expect(problems(config({ metrics: { cloudwatch: { endpoint: '127.0.0.1:4566' } } }))).toEqual([
      'metrics.cloudwatch.endpoint: must be an http(s) URL, e.g. http://127.0.0.1:3002',
    ]);
    expect(problems(config({ metrics: { cloudwatch: { namespace: '' } } }))).toEqual([
      'metrics.cloudwatch.namespace: must not be empty',
    ]);
    expect(problems(config({ metrics: { cloudwatch: true } }))).toEqual([
      'metrics.cloudwatch: must be a mapping of keys to values, got true',
    ]);
  });

  it('an endpoint without a region gets us-east-1; a configured region stays', () => {
    const cloudwatch = (extra: Record<string, unknown>) =>
      parse(config({ metrics: { cloudwatch: { endpoint: 'http://127.0.0.1:4566', ...extra } } })).metrics
        .cloudwatch;
    expect(cloudwatch({})).toMatchObject({ region: 'us-east-1', endpoint: 'http://127.0.0.1:4566' });
    expect(cloudwatch({ region: 'eu-west-1' })).toMatchObject({ region: 'eu-west-1' });
  });

  it('AWS_ENDPOINT_URL_CLOUDWATCH and AWS_REGION fill metrics.cloudwatch only when it is present', () => {
    const env = { AWS_ENDPOINT_URL_CLOUDWATCH: 'http://cw:4566', AWS_REGION: 'us-west-2' };
    expect(parse(config({ metrics: { cloudwatch: {} } }), env).metrics.cloudwatch).toEqual({
      namespace: 'RocketMQLambda',
      intervalMs: 60_000,
      region: 'us-west-2',
      endpoint: 'http://cw:4566',
    });
    expect(parse(config(), env).metrics).toEqual({ cloudwatch: undefined });
    expect(parse(config({ metrics: {} }), env).metrics).toEqual({ cloudwatch: undefined });
    expect(
      parse(config({ metrics: { cloudwatch: {} } }), { AWS_ENDPOINT_URL_CLOUDWATCH: 'http://cw:4566' })
        .metrics.cloudwatch,
    ).toMatchObject({ region: 'us-east-1', endpoint: 'http://cw:4566' });
  });

  it('the environment never overrides the file; a bad env endpoint is reported under its key', () => {
    const fromFile = parse(
      config({ metrics: { cloudwatch: { region: 'eu-west-1', endpoint: 'http://file:4566' } } }),
      { AWS_ENDPOINT_URL_CLOUDWATCH: 'http://env:4566', AWS_REGION: 'us-west-2' },
    );
    expect(fromFile.metrics.cloudwatch).toMatchObject({ region: 'eu-west-1', endpoint: 'http://file:4566' });
    expect(
      problems(config({ metrics: { cloudwatch: {} } }), { AWS_ENDPOINT_URL_CLOUDWATCH: 'not a url' }),
    ).toEqual(['metrics.cloudwatch.endpoint: must be an http(s) URL, e.g. http://127.0.0.1:3002']);
  });
});
