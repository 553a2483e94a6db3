/**
 * `rocketmq-lambda run` as a child process with its config in `ROCKETMQ_LAMBDA_CONFIG` (as the ECS task
 * passes it), invoking Lambda functions through our Invoke API server: a missing function (404
 * ResourceNotFoundException) stops its mapping with a clear error, the other mapping is stopped
 * gracefully after it, and the process exits 1.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { spawnCli } from '../cli/poller-process.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import {
  OFFSETS_TABLE,
  queueEnds,
  recordingFunction,
  topicOffsets,
  useLambdaSuite,
} from './lambda-harness.js';

const suite = useLambdaSuite();

describe('rocketmq-lambda run with Lambda functions', () => {
  it('a missing function stops its mapping with a clear error; the rest stops gracefully; exit 1', async () => {
    const { api, db } = suite();
    const client = newClient();
    onTestFinished(() => client.close());
    const [okTopic, badTopic] = [uniqueTopic('cli_ok'), uniqueTopic('cli_missing')];
    const [okGroup, badGroup] = [uniqueGroup('cli_ok'), uniqueGroup('cli_missing')];
    const okFunction = uniqueGroup('cli_fn');
    const missingFunction = uniqueGroup('cli_nofn');
    await Promise.all([createTopic(client, okTopic, 1), createTopic(client, badTopic, 1)]);
    const ledger = recordingFunction(api, okFunction);
    const producer = await newProducer(client);
    const sent = await produce(producer, okTopic, 20);

    const config = {
      nameServer: testBroker().namesrvAddr,
      shutdownTimeoutMs: 10_000,
      offsets: { store: 'dynamodb', table: OFFSETS_TABLE, endpoint: db.endpoint, createTable: true },
      lambda: { endpoint: api.endpoint },
      mappings: [
        { name: 'orders', topic: okTopic, consumerGroup: okGroup, function: `${okFunction}:live` },
        {
          name: 'payments',
          topic: badTopic,
          consumerGroup: badGroup,
          function: `123456789012:function:${missingFunction}`,
        },
      ].map((mapping) => ({ ...mapping, startingPosition: 'TRIM_HORIZON', maximumBatchingWindowMs: 50 })),
    };
    const poller = spawnCli(['run'], { ROCKETMQ_LAMBDA_CONFIG: JSON.stringify(config) });
    await waitFor('the orders messages at their function', 30_000, async () =>
      ledger.counts().size >= sent.length ? true : undefined,
    );
    await produce(producer, badTopic, 5);

    expect(await poller.exited, poller.stderr()).toEqual({ code: 1, signal: null });
    const stderrLines = poller
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('rocketmq-lambda run:'));
    expect(stderrLines).toHaveLength(1);
    expect(stderrLines[0]).toMatch(
      new RegExp(
        `^rocketmq-lambda run: mapping payments failed: Lambda function "123456789012:function:${missingFunction}" cannot be invoked: ResourceNotFoundException: .*The mapping stops: check the function name and region`,
      ),
    );
    const logs = poller.logs();
    const fatal = logs.find((line) => line.msg === 'mapping failed fatally: stopping the poller');
    expect(fatal?.mapping).toBe('payments');
    const configured = logs.filter((line) => line.msg === 'mapping configured');
    expect(configured.map((line) => [line.mapping, line.invoker, line.lambdaEndpoint])).toEqual([
      ['orders', 'lambda', api.endpoint],
      ['payments', 'lambda', api.endpoint],
    ]);
    expect(logs.at(-1)?.msg).toBe('stopped');

    expect(api.calls(missingFunction).map((call) => call.status)).toEqual([404]);
    expect([...ledger.counts().values()].every((count) => count === 1)).toBe(true);
    expect(await topicOffsets(suite(), okGroup, okTopic)).toEqual(await queueEnds(client, okTopic, 1));
    const stuck = await topicOffsets(suite(), badGroup, badTopic);
    expect([...stuck.values()].every((offset) => offset === 0)).toBe(true);
  });
});
