/**
 * The lag metric end to end: real broker → poller (Lambda function over our Invoke API) → CloudWatch's
 * PutMetricData on a real CloudWatch API (moto's server) → read back with GetMetricStatistics, the way
 * the scaling policy reads it. While the function holds the first batch, the published lag is every
 * message not yet handled; once all are handled and their offsets committed, it is 0.
 */
import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { LAG_METRIC } from '../../../src/metrics/lag-metric.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { MOTO_CLIENT_CONFIG, type MotoServerHandle, startMotoServer } from '../../support/moto-server.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { lambdaConfig, recordingFunction, runPoller, useLambdaSuite } from '../invoke/lambda-harness.js';

const QUEUES = 4;
const MESSAGES = 200;
const suite = useLambdaSuite();
let moto: MotoServerHandle | undefined;
let cloudwatch: CloudWatchClient | undefined;

beforeAll(async () => {
  moto = await startMotoServer();
  cloudwatch = new CloudWatchClient({ ...MOTO_CLIENT_CONFIG, endpoint: moto.endpoint });
}, 600_000);

afterAll(async () => {
  cloudwatch?.destroy();
  await moto?.close();
});

interface LagStatistics {
  readonly samples: number;
  readonly minimum: number;
  readonly maximum: number;
}

/** Every ConsumerLag value published for `group` in the last 10 minutes, summarized. */
async function publishedLag(group: string): Promise<LagStatistics> {
  if (cloudwatch === undefined) throw new Error('moto did not start');
  const now = Date.now();
  const { Datapoints = [] } = await cloudwatch.send(
    new GetMetricStatisticsCommand({
      Namespace: LAG_METRIC.namespace,
      MetricName: LAG_METRIC.metricName,
      Dimensions: [{ Name: LAG_METRIC.dimension, Value: group }],
      StartTime: new Date(now - 600_000),
      EndTime: new Date(now + 60_000),
      Period: 60,
      Statistics: ['Minimum', 'Maximum', 'SampleCount'],
    }),
  );
  return {
    samples: Datapoints.reduce((sum, point) => sum + (point.SampleCount ?? 0), 0),
    minimum: Math.min(...Datapoints.map((point) => point.Minimum ?? Number.POSITIVE_INFINITY)),
    maximum: Math.max(...Datapoints.map((point) => point.Maximum ?? Number.NEGATIVE_INFINITY)),
  };
}

describe('ConsumerLag metric', () => {
  it('publishes the unhandled messages while the function is busy, and 0 once all are committed', async () => {
    const { api } = suite();
    if (moto === undefined) throw new Error('moto did not start');
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('lag_metric');
    const group = uniqueGroup('lag_metric');
    const functionName = uniqueGroup('fn');
    await createTopic(client, topic, QUEUES);
    const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES, batch: 50 });

    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ledger = recordingFunction(api, functionName, async () => {
      await released;
      return { batchItemFailures: [] };
    });
    const poller = await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: functionName, batchSize: 10, maxConcurrency: 1 },
        { metrics: { cloudwatch: { endpoint: moto.endpoint, intervalSeconds: 1 } } },
      ),
    );

    // The function holds its first batch: nothing is handled, so the lag is every message sent.
    const busy = await waitFor('a published lag of every message', 30_000, async () => {
      const lag = await publishedLag(group);
      return lag.maximum === MESSAGES ? lag : undefined;
    });
    expect(ledger.invokes).toHaveLength(1);
    expect(busy.minimum).toBe(MESSAGES);
    expect((await poller.lag())[0]?.total).toBe(MESSAGES);

    release();
    await waitFor('every message handled', 60_000, async () =>
      ledger.counts().size >= sent.length ? true : undefined,
    );
    const drained = await waitFor('a published lag of 0', 30_000, async () => {
      const lag = await publishedLag(group);
      return lag.minimum === 0 ? lag : undefined;
    });
    expect(drained.maximum).toBe(MESSAGES);
    expect(new Set(ledger.counts().keys())).toEqual(new Set(sent));
    const exit = await poller.stop();
    expect(exit.failures).toEqual([]);
    process.stdout.write(
      `[lag metric] ${drained.samples} values published for ${group}: ${MESSAGES} while busy, 0 when drained\n`,
    );
  });
});
