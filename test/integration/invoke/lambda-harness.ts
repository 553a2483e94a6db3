/**
 * The parts the Lambda integration tests share: the real broker, our Invoke API server over HTTP
 * (`LambdaApiServer`, called by the poller's real `@aws-sdk/client-lambda`), dynalite for the offsets, and
 * an in-process poller started from a config exactly as `rocketmq-lambda run` would build it.
 */
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, vi } from 'vitest';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import type { Poller, PollerOptions } from '../../../src/poller/poller.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { testBroker, uniqueGroup } from '../../support/broker.js';
import { DYNALITE_CLIENT_CONFIG, type DynaliteHandle, startDynalite } from '../../support/dynalite.js';
import { type LambdaApiContext, LambdaApiServer } from '../../support/lambda-api-server.js';
import { startTestPoller } from '../../support/test-poller.js';
import { pullMessages, waitFor } from '../client/helpers.js';

/** The offsets table the tests use in dynalite. */
export const OFFSETS_TABLE = 'lambda_offsets';

/**
 * Consumer timers for tests, and retries after 1 s (delay level 1) instead of the broker's 10 s, 30 s, ...
 */
export const TEST_CONSUMER_OVERRIDES: NonNullable<PollerOptions['consumerOverrides']> = {
  rebalanceIntervalMs: 2000,
  routeRefreshIntervalMs: 2000,
  persistIntervalMs: 500,
  retryDelayLevel: 1,
  localRetryDelayMs: 500,
};

/** One record as the function saw it. */
export interface SeenRecord {
  readonly messageId: string;
  readonly topic: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly reconsumeTimes: number;
  readonly bodyBytes: number;
  readonly body: Buffer;
  /** `utf8` when the body travelled as text, else `base64`. */
  readonly bodyEncoding: string;
}

/** What the Invoke API handed a function, invoke by invoke. */
export class InvokeLedger {
  readonly invokes: SeenRecord[][] = [];

  record(event: unknown): SeenRecord[] {
    const records = (event as { Records: Record<string, unknown>[] }).Records.map((record) => {
      const body = Buffer.from(String(record.body), record.bodyEncoding === 'utf8' ? 'utf8' : 'base64');
      return {
        messageId: String(record.messageId),
        topic: String(record.topic),
        queueId: Number(record.queueId),
        queueOffset: Number(record.queueOffset),
        reconsumeTimes: Number(record.reconsumeTimes),
        bodyBytes: body.length,
        body,
        bodyEncoding: record.bodyEncoding === 'utf8' ? 'utf8' : 'base64',
      };
    });
    this.invokes.push(records);
    return records;
  }

  all(): SeenRecord[] {
    return this.invokes.flat();
  }

  of(messageId: string): SeenRecord[] {
    return this.all().filter((record) => record.messageId === messageId);
  }

  /** How often each message id was seen. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { messageId } of this.all()) counts.set(messageId, (counts.get(messageId) ?? 0) + 1);
    return counts;
  }
}

/** The suite's servers: started once per test file. */
export interface LambdaSuite {
  readonly api: LambdaApiServer;
  readonly db: DynaliteHandle;
  readonly dynamo: DynamoDBClient;
}

/**
 * Starts the Invoke API server and dynalite for the file, with dummy AWS credentials in the environment
 * (the poller's SDK clients use the standard chain), and stops them after it.
 *
 * @example
 * ```ts
 * const suite = useLambdaSuite();
 * it('...', async () => { suite().api.register('fn', handler) });
 * ```
 */
export function useLambdaSuite(): () => LambdaSuite {
  let suite: LambdaSuite | undefined;
  beforeAll(async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('AWS_REGION', 'us-east-1');
    const [api, db] = await Promise.all([LambdaApiServer.start(), startDynalite()]);
    suite = { api, db, dynamo: new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint: db.endpoint }) };
  });
  afterAll(async () => {
    suite?.dynamo.destroy();
    await Promise.all([suite?.api.close(), suite?.db.close()]);
    vi.unstubAllEnvs();
  });
  return () => {
    if (suite === undefined) throw new Error('the Lambda suite did not start');
    return suite;
  };
}

/**
 * A run config with one mapping invoking `mapping.function` through `endpoint`, from the topic's
 * beginning, offsets in dynalite. `mapping` keys are config keys (`bisectBatchOnError`, ...).
 *
 * @example
 * ```ts
 * const config = lambdaConfig(suite, { topic, consumerGroup: group, function: 'orders' });
 * ```
 */
export function lambdaConfig(
  suite: LambdaSuite,
  mapping: Record<string, unknown>,
  top: Record<string, unknown> = {},
): RunConfig {
  return parseConfig(
    {
      nameServer: testBroker().namesrvAddr,
      shutdownTimeoutMs: 10_000,
      offsets: { store: 'dynamodb', table: OFFSETS_TABLE, endpoint: suite.db.endpoint, createTable: true },
      lambda: { endpoint: suite.api.endpoint },
      ...top,
      mappings: [{ startingPosition: 'TRIM_HORIZON', maximumBatchingWindowMs: 100, ...mapping }],
    },
    { env: {} },
  );
}

/**
 * Starts a poller in-process (stopped with the test).
 *
 * @example
 * ```ts
 * const poller = await runPoller(config);
 * ```
 */
export function runPoller(config: RunConfig, options: PollerOptions = {}): Promise<Poller> {
  return startTestPoller(config, { consumerOverrides: TEST_CONSUMER_OVERRIDES, ...options });
}

/**
 * Registers a function that records every event into a new ledger and answers with `answer` (success,
 * `null`, by default); a throw is an Unhandled FunctionError.
 *
 * @example
 * ```ts
 * const ledger = recordingFunction(suite.api, 'fn', (records) => ({ batchItemFailures: [] }));
 * ```
 */
export function recordingFunction(
  api: LambdaApiServer,
  name: string,
  answer: (records: SeenRecord[], context: LambdaApiContext) => unknown = () => null,
): InvokeLedger {
  const ledger = new InvokeLedger();
  api.register(name, (event, context) => answer(ledger.record(event), context));
  return ledger;
}

/** Stored offsets of `group` by `topic@broker@queueId` queue key, read from the table. */
export async function storedOffsets(suite: LambdaSuite, group: string): Promise<Map<string, number>> {
  const result = await suite.dynamo.send(
    new QueryCommand({
      TableName: OFFSETS_TABLE,
      KeyConditionExpression: '#g = :g',
      ExpressionAttributeNames: { '#g': 'group' },
      ExpressionAttributeValues: { ':g': { S: group } },
      ConsistentRead: true,
    }),
  );
  const offsets = new Map<string, number>();
  for (const item of result.Items ?? []) offsets.set(item.queue?.S ?? '', Number(item.offset?.N));
  return offsets;
}

/** The max offsets of a topic's queues, keyed like {@link storedOffsets}. */
export async function queueEnds(
  client: RocketMQClient,
  topic: string,
  queues: number,
): Promise<Map<string, number>> {
  const { brokerAddr, brokerName } = testBroker();
  const ends = new Map<string, number>();
  for (let queueId = 0; queueId < queues; queueId++) {
    ends.set(
      `${topic}@${brokerName}@${queueId}`,
      await client.broker.getMaxOffset(brokerAddr, { topic, queueId }),
    );
  }
  return ends;
}

/** The stored offsets of the topic's own queues (retry queues left out). */
export async function topicOffsets(
  suite: LambdaSuite,
  group: string,
  topic: string,
): Promise<Map<string, number>> {
  const all = await storedOffsets(suite, group);
  return new Map([...all].filter(([queue]) => queue.startsWith(`${topic}@`)));
}

/** Reads `count` messages of the group's DLQ (queue 0), waiting up to `timeoutMs` for it to exist. */
export async function readDlq(
  client: RocketMQClient,
  group: string,
  count: number,
  timeoutMs = 30_000,
): Promise<MessageExt[]> {
  const deadline = Date.now() + timeoutMs;
  const reader = uniqueGroup('dlqreader');
  return waitFor(`${count} message(s) in ${dlqTopicOf(group)}`, timeoutMs, () =>
    pullMessages(client, {
      group: reader,
      topic: dlqTopicOf(group),
      queueId: 0,
      count,
      timeoutMs: Math.max(1000, deadline - Date.now()),
    }),
  );
}
