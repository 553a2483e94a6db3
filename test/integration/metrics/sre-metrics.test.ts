/**
 * What an SRE reads off a poller, end to end (real broker → poller → a Lambda function over our Invoke
 * API that always fails, `maxReconsumeTimes: 0`, so every message is dead-lettered at its first failure):
 * `/metrics` carries the Node.js runtime metrics and the build info; the dead-letter depth of the group
 * it serves equals what the broker stores in `%DLQ%<group>` (read with readDeadLetterDepth through the
 * test's own client), within the refresh period; and the `stopped` line counts the dead letters the
 * metrics counted (it once said 0: it read the listener's counters, which never see a message sent back at
 * the retry limit).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readDeadLetterDepth } from '../../../src/client/dead-letter-depth.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { parseExposition } from '../../support/prometheus-exposition.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { lambdaConfig, recordingFunction, runPoller, useLambdaSuite } from '../invoke/lambda-harness.js';

const QUEUES = 2;
const MESSAGES = 12;
/** The refresh period of the depth in this test (60 s by default). */
const DEPTH_INTERVAL_MS = 500;
const suite = useLambdaSuite();

describe('metrics an SRE expects', () => {
  it('runtime metrics, build info, the DLQ depth the broker stores, and a stopped line that agrees with the metrics', async () => {
    const { api } = suite();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('sre');
    const group = uniqueGroup('sre');
    const functionName = uniqueGroup('sre_fn');
    await createTopic(client, topic, QUEUES);
    const ledger = recordingFunction(api, functionName, () => {
      throw new Error('downstream unavailable');
    });
    const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES });
    // The group has never dead-lettered: no %DLQ% topic, depth 0.
    expect(await readDeadLetterDepth(client, group)).toEqual({ depth: 0, queues: 0 });

    const logLines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
    const poller = await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: functionName, batchSize: 4, maxReconsumeTimes: 0 },
        { metrics: { prometheus: { port: 0, host: '127.0.0.1' } } },
      ),
      { logger, deadLetterDepthIntervalMs: DEPTH_INTERVAL_MS },
    );
    const serving = logLines.find((line) => line.msg === 'serving /metrics, /healthz and /readyz');
    const scrape = async () =>
      parseExposition(await (await fetch(`http://127.0.0.1:${String(serving?.port)}/metrics`)).text());
    const depthSeries = `rocketmq_lambda_dead_letter_depth{consumer_group="${group}"}`;
    const labels = `mapping="${group}",consumer_group="${group}"`;

    // Every message reached the function once and went to the DLQ: the broker stores them all.
    await waitFor('every message at the function', 30_000, async () =>
      sent.every((id) => ledger.of(id).length > 0) ? true : undefined,
    );
    const stored = await waitFor(`${MESSAGES} dead letters on the broker`, 30_000, async () => {
      const read = await readDeadLetterDepth(client, group);
      return read.depth === MESSAGES ? read : undefined;
    });
    expect(stored.queues).toBeGreaterThanOrEqual(1);
    // /metrics shows the broker's depth within a refresh period or so.
    const scraped = await waitFor('/metrics to show the depth the broker stores', 10_000, async () => {
      const samples = await scrape();
      return samples.get(depthSeries) === stored.depth ? samples : undefined;
    });
    expect(scraped.get(`rocketmq_lambda_messages_dead_lettered_total{${labels}}`)).toBe(MESSAGES);
    expect(scraped.get(`rocketmq_lambda_messages_sent_back_total{${labels}}`)).toBe(0);

    // Build info: this package's version and the Node.js version, 1.
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(
      scraped.get(
        `rocketmq_lambda_build_info{version="${version}",node_version="${process.version.slice(1)}"}`,
      ),
    ).toBe(1);
    // Node.js runtime metrics: memory, event-loop lag, GC, handles, CPU.
    expect(scraped.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(scraped.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(scraped.get('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(scraped.get('nodejs_active_handles_total')).toBeGreaterThan(0);
    expect(scraped.get('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect([...scraped.keys()].some((key) => key.startsWith('nodejs_gc_duration_seconds'))).toBe(true);

    const readStartedMs = performance.now();
    await readDeadLetterDepth(client, group);
    const readMs = performance.now() - readStartedMs;
    await poller.stop();
    const stopped = logLines.find((line) => line.msg === 'stopped');
    expect(stopped).toMatchObject({ deadLettered: MESSAGES, sentBack: 0, failures: 0 });
    expect(stopped?.invocations).toBe(scraped.get(`rocketmq_lambda_invocations_total{${labels}}`));
    process.stdout.write(
      `[sre metrics] ${MESSAGES} dead-lettered: broker depth ${stored.depth} over ${stored.queues} queue(s), /metrics ${String(scraped.get(depthSeries))}, stopped line ${String(stopped?.deadLettered)}; one depth read ${readMs.toFixed(1)} ms\n`,
    );
  });
});
