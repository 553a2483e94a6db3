/**
 * The poller's metrics end to end: real broker → poller → Lambda functions over our Invoke API (HTTP),
 * with `metrics.prometheus` on port 0 and `metrics.emf` every second. The function fails some invokes
 * (FunctionError), throttles some (429) and succeeds the rest. The Invoke API's own record of every
 * request is the ledger: `/metrics`, scraped while the poller runs, and the EMF lines captured from stdout
 * must count exactly what the function saw, under the mapping's labels and consumer group.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { parseExposition } from '../../support/prometheus-exposition.js';
import { emfProblems } from '../../unit/metrics/emf-schema.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { lambdaConfig, recordingFunction, runPoller, useLambdaSuite } from '../invoke/lambda-harness.js';

const QUEUES = 2;
const MESSAGES = 40;
const suite = useLambdaSuite();

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every line written to stdout while the test runs; EMF lines are kept out of the test output. */
function captureStdout(): string[] {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.startsWith('{"_aws"')) {
      lines.push(...text.split('\n').filter((line) => line.length > 0));
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write);
  return lines;
}

describe('poller metrics', () => {
  it('counts invokes, function errors and throttles exactly as the function saw them, in /metrics and EMF', async () => {
    const { api } = suite();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('metrics');
    const group = uniqueGroup('metrics');
    const functionName = uniqueGroup('metrics_fn');
    await createTopic(client, topic, QUEUES);
    const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES, batch: 20 });

    const succeeded = new Set<string>();
    recordingFunction(api, functionName, (records) => {
      for (const record of records) succeeded.add(record.messageId);
      return { batchItemFailures: [] };
    });
    api.injectFaults(
      functionName,
      { kind: 'throttle' },
      { kind: 'function-error' },
      { kind: 'throttle' },
      { kind: 'throttle' },
      { kind: 'function-error', handled: true, errorType: 'ValidationError' },
      { kind: 'throttle' },
      { kind: 'function-error' },
    );

    const emfLines = captureStdout();
    const logLines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
    const poller = await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: functionName, batchSize: 5, maxConcurrency: 1 },
        { metrics: { prometheus: { port: 0, host: '127.0.0.1' }, emf: { intervalSeconds: 1 } } },
      ),
      { logger },
    );
    const serving = logLines.find((line) => line.msg === 'serving /metrics, /healthz and /readyz');
    expect(serving?.port).toEqual(expect.any(Number));
    const base = `http://127.0.0.1:${String(serving?.port)}`;

    // Scraped while the poller works: the content type, and the series of the mapping from the start.
    const early = await fetch(`${base}/metrics`);
    expect(early.status).toBe(200);
    expect(early.headers.get('content-type')).toBe(new Registry().contentType);
    const labels = `mapping="${group}",consumer_group="${group}"`;
    expect(parseExposition(await early.text()).has(`rocketmq_lambda_invocations_total{${labels}}`)).toBe(
      true,
    );
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await waitFor('/readyz 200', 10_000, async () =>
      (await fetch(`${base}/readyz`)).status === 200 ? true : undefined,
    );

    await waitFor('every message to succeed', 60_000, async () =>
      sent.every((id) => succeeded.has(id)) ? true : undefined,
    );
    // The Invoke API's ledger of every request the poller sent.
    const calls = api.calls(functionName);
    const throttles = calls.filter((call) => call.fault === 'throttle').length;
    const functionErrors = calls.filter((call) => call.fault === 'function-error');
    const successes = calls.filter((call) => call.fault === undefined && call.status === 200).length;
    const failedRecords = functionErrors.reduce(
      (sum, call) => sum + (call.event as { Records: unknown[] }).Records.length,
      0,
    );
    expect([throttles, functionErrors.length]).toEqual([4, 3]);

    const scraped = await waitFor('/metrics to show every invoke', 10_000, async () => {
      const samples = parseExposition(await (await fetch(`${base}/metrics`)).text());
      const sentBack = samples.get(`rocketmq_lambda_messages_sent_back_total{${labels}}`);
      return samples.get(`rocketmq_lambda_invocations_total{${labels}}`) ===
        successes + functionErrors.length && sentBack === failedRecords
        ? samples
        : undefined;
    });
    const outcome = (kind: string) =>
      scraped.get(`rocketmq_lambda_invoke_outcomes_total{${labels},kind="${kind}"}`);
    expect(outcome('success')).toBe(successes);
    expect(outcome('function_error')).toBe(3);
    expect(outcome('throttle')).toBe(4);
    expect(outcome('timeout')).toBe(0);
    expect(outcome('network')).toBe(0);
    expect(scraped.get(`rocketmq_lambda_invoke_duration_seconds_count{${labels}}`)).toBe(successes + 3);
    expect(scraped.get(`rocketmq_lambda_messages_dead_lettered_total{${labels}}`)).toBe(0);
    expect(scraped.get(`rocketmq_lambda_queues_held{${labels}}`)).toBe(QUEUES + 1); // + the retry queue
    expect(scraped.get(`rocketmq_lambda_mapping_healthy{${labels}}`)).toBe(1);
    expect(scraped.get('rocketmq_lambda_up')).toBe(1);
    expect(scraped.get(`rocketmq_lambda_pulls_total{${labels},result="answered"}`)).toBeGreaterThan(0);
    expect(scraped.get(`rocketmq_lambda_pull_duration_seconds_count{${labels}}`)).toBeGreaterThan(0);
    expect(scraped.get(`rocketmq_lambda_rebalances_total{${labels}}`)).toBeGreaterThanOrEqual(1);
    const queueLag = [...scraped].filter(([key]) =>
      key.startsWith(`rocketmq_lambda_consumer_lag{${labels},topic="${topic}"`),
    );
    expect(queueLag).toHaveLength(QUEUES);

    // A line written after everything was handled says lag 0 and healthy.
    await waitFor('an EMF line with no lag left', 15_000, async () =>
      emfLines.some(
        (line) => line.includes(`"ConsumerGroup":"${group}"`) && line.includes('"ConsumerLag":0,'),
      )
        ? true
        : undefined,
    );
    const exit = await poller.stop();
    expect(exit.failures).toEqual([]);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();

    // EMF: every line valid; the deltas of the group's lines add up to the ledger.
    expect(emfLines.length).toBeGreaterThan(0);
    for (const line of emfLines) expect(emfProblems(line)).toEqual([]);
    const ours = emfLines
      .map((line) => JSON.parse(line) as Record<string, number | string>)
      .filter((d) => d.ConsumerGroup === group);
    const total = (name: string) => ours.reduce((sum, document) => sum + Number(document[name] ?? 0), 0);
    expect(total('Invocations')).toBe(successes + 3);
    expect(total('InvokeErrors')).toBe(3);
    expect(total('Throttles')).toBe(4);
    expect(total('SentBack')).toBe(failedRecords);
    expect(total('DeadLettered')).toBe(0);
    expect(ours.every((document) => document.Unhealthy === undefined || document.Unhealthy === 0)).toBe(true);
    expect(ours.at(-1)).not.toHaveProperty('ConsumerLag'); // the last line, at stop, has the counts only
    process.stdout.write(
      `[poller metrics] ${calls.length} Invoke API requests (${successes} ok, 3 function errors, 4 throttles), ` +
        `${failedRecords} messages sent back, ${ours.length} EMF lines for ${group}\n`,
    );
  });
});
