/**
 * The readiness timeline of a poller started before its topic exists, against the real broker: the
 * health file (`rocketmq-lambda health --json`), `/readyz` and `rocketmq_lambda_mapping_state` name the
 * missing topic once the mapping's grace ran out (shortened here through `readinessGraceMs`; its default
 * is a unit test's, test/unit/consumer/consume-state.test.ts); once the topic is created, a message sent
 * at once is handled (the mapping starts LATEST: a topic created after the start is read from its
 * beginning) and every signal turns healthy again. The route refresh and rebalance run at their default
 * intervals (20-30 s): what finds the topic sooner is the consumer's own re-check while it is missing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type HealthJson, healthCommand } from '../../../src/cli/health-command.js';
import { HEALTH_FILE_ENV } from '../../../src/poller/health-beat.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';
import { newClient, newProducer, waitFor } from '../consumer/helpers.js';
import { lambdaConfig, recordingFunction, runPoller, useLambdaSuite } from '../invoke/lambda-harness.js';

const suite = useLambdaSuite();
/** The mapping's grace before a missing topic is unhealthy (30 s by default). */
const GRACE_MS = 2000;
/** The topic must be consumed this soon after its creation (the bound). */
const CONSUMED_WITHIN_MS = 30_000;

/** `rocketmq-lambda health --json` against the poller's heartbeat file: its exit code and document. */
async function health(file: string): Promise<{ code: number; document: HealthJson }> {
  const cli = fakeCliIo({ [HEALTH_FILE_ENV]: file });
  const code = await healthCommand(['--json'], cli);
  return { code, document: JSON.parse(cli.out()) as HealthJson };
}

/** `/readyz`: status and body. */
async function readyz(
  base: string,
): Promise<{ status: number; body: { ready: boolean; problems: string[] } }> {
  const answer = await fetch(`${base}/readyz`);
  return { status: answer.status, body: (await answer.json()) as { ready: boolean; problems: string[] } };
}

/** The value of `rocketmq_lambda_mapping_state{...,state="<state>"}` in `/metrics`. */
async function stateGauge(base: string, labels: string, state: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((found) => found.startsWith(`rocketmq_lambda_mapping_state{${labels},state="${state}"} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('a poller started before its topic exists', () => {
  it('reports the missing topic by name in health, /readyz and the state metric, then consumes it once created', async () => {
    const { api } = suite();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('missing');
    const group = uniqueGroup('missing');
    const functionName = uniqueGroup('missing_fn');
    const handledAt = new Map<string, number>();
    recordingFunction(api, functionName, (records) => {
      for (const record of records) handledAt.set(record.messageId, Date.now());
      return null;
    });
    const dir = await mkdtemp(join(tmpdir(), 'rl-readiness-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const healthFile = join(dir, 'health');
    const logLines: Record<string, unknown>[] = [];
    await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: functionName, startingPosition: 'LATEST' },
        { metrics: { prometheus: { port: 0, host: '127.0.0.1' } } },
      ),
      {
        healthFile,
        healthIntervalMs: 500,
        // Default route refresh and rebalance intervals: only the grace is shortened.
        consumerOverrides: { readinessGraceMs: GRACE_MS, persistIntervalMs: 500 },
        logger: pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) }),
      },
    );
    const serving = logLines.find((line) => line.msg === 'serving /metrics, /healthz and /readyz');
    expect(serving?.port).toEqual(expect.any(Number));
    const url = `http://127.0.0.1:${String(serving?.port)}`;
    const labels = `mapping="${group}",consumer_group="${group}"`;

    // Within the grace: the state already says so, the verdict does not yet.
    expect(await stateGauge(url, labels, 'topic_missing')).toBe(1);

    const unhealthy = await waitFor('health to name the missing topic', 15_000, async () => {
      const found = await health(healthFile);
      return found.code === 1 && found.document.mappings[0]?.state === 'topic_missing' ? found : undefined;
    });
    expect(unhealthy.document.healthy).toBe(false);
    expect(unhealthy.document.problems).toEqual([
      expect.stringMatching(
        new RegExp(`^${group}: cannot consume \\(topic_missing\\) for \\d+ s: topic ${topic} does not exist`),
      ),
    ]);
    expect(unhealthy.document.mappings[0]).toMatchObject({
      mapping: group,
      healthy: false,
      state: 'topic_missing',
    });
    const notReady = await readyz(url);
    expect(notReady.status).toBe(503);
    expect(notReady.body.ready).toBe(false);
    expect(notReady.body.problems.join('\n')).toContain(`topic ${topic} does not exist`);
    expect(await stateGauge(url, labels, 'topic_missing')).toBe(1);
    expect(await stateGauge(url, labels, 'consuming')).toBe(0);

    // The topic is created; a message sent at once, before the poller holds a queue, is not skipped.
    const createdAt = Date.now();
    await client.admin.createTopic(testBroker().brokerAddr, { topic, readQueueNums: 2 });
    const producer = await newProducer(client);
    // Behind the 5.x proxy a send is refused (MESSAGE_ILLEGAL) until its cache of the topic's config
    // refreshes, up to ~30 s: the bound below counts from the send that went through.
    const sent = await waitFor(
      'a send to the new topic',
      45_000,
      async () => (await producer.send({ topic, body: 'first' })).msgId,
      { intervalMs: 500 },
    );
    const sentAt = Date.now();
    await waitFor(
      `the first message handled within ${CONSUMED_WITHIN_MS} ms of the topic's creation (or of the first send the brokers took)`,
      Math.max(CONSUMED_WITHIN_MS - (sentAt - createdAt), 10_000),
      () => handledAt.get(sent),
    );
    const consumedAfterMs = (handledAt.get(sent) ?? 0) - createdAt;

    await waitFor('health to turn healthy again', 10_000, async () => {
      const found = await health(healthFile);
      return found.code === 0 && found.document.mappings[0]?.state === 'consuming' ? found : undefined;
    });
    expect((await readyz(url)).status).toBe(200);
    expect(await stateGauge(url, labels, 'consuming')).toBe(1);
    expect(await stateGauge(url, labels, 'topic_missing')).toBe(0);
    process.stdout.write(
      `[missing-topic readiness] first message sent ${sentAt - createdAt} ms and handled ${consumedAfterMs} ms after the topic was created\n`,
    );
  });
});
