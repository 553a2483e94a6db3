/**
 * Fault scenario "Lambda faults": our poller invokes a function through the Lambda Invoke API (the
 * test server, `lambda.endpoint`) while the first invokes meet, in a fixed shuffled order, 10 %
 * throttles, 10 % 5xx, 10 % Unhandled function errors and a few invokes that run past the function's
 * timeout. Throttles are waited out (never a consume failure), the others are retried through the
 * broker; nothing may be lost and nothing dead-lettered.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { type LambdaApiCall, type LambdaApiFault, LambdaApiServer } from '../../support/lambda-api-server.js';
import type { LedgerEntry } from '../cli/poller-process.js';
import { createTopic, newClient, newProducer, waitFor } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import { PollerSeries, scenarioDir, waitForLedgers, writePollerConfig } from './fault-scenario.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 180_000;
const SCENARIO = 'Lambda throttles, 5xx, Unhandled, timeouts';
const FUNCTION = 'fault-ledger-fn';
const QUEUES = 4;
const MESSAGES = 2_000;
const MESSAGES_PER_SECOND = 200;
const BATCH_SIZE = 10;
/** The mapping's functionTimeoutMs (the smallest allowed); the poller gives up 10 s after it. */
const FUNCTION_TIMEOUT_MS = 1_000;
/** A "timeout" invoke answers after the poller gave up (functionTimeoutMs + 10 s). */
const PAST_TIMEOUT_MS = FUNCTION_TIMEOUT_MS + 10_000 + 1_000;
/**
 * Faults apply to the first this many invokes (fewer than the ~200 the stream needs at least), so
 * that retries, which the broker redelivers 10 s later, mostly meet a healthy function and the
 * scenario ends in bounded time.
 */
const FAULT_WINDOW = 150;
const FAULT_SHARE = { throttle: 0.1, serverError: 0.1, unhandled: 0.1, pastTimeout: 0.03 } as const;
const CATCH_UP_TIMEOUT_MS = 120_000;
/** A message sent back twice waits 10 s then 30 s (delay levels 3 and 4) before it comes again. */
const QUIESCE_TIMEOUT_MS = 90_000;

/** The planned fault of each of the first invokes; `undefined`: a normal invoke. */
type PlannedFault = 'throttle' | 'server-error' | 'unhandled' | 'past-timeout' | undefined;

describe(SCENARIO, () => {
  it(
    'loses nothing and dead-letters nothing; throttles are waited out, failures retried',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('lambda');
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const lambda = await LambdaApiServer.start();
      onTestFinished(() => lambda.close());
      const handled: LedgerEntry[] = [];
      let redelivered = 0;
      lambda.register(FUNCTION, (event) => {
        for (const record of (event as { Records: RecordShape[] }).Records) {
          handled.push({
            messageId: record.messageId,
            queueId: record.queueId,
            queueOffset: record.queueOffset,
          });
          if (record.reconsumeTimes > 0) redelivered++;
        }
        return {};
      });
      const plan = plannedFaults();
      lambda.injectFaults(FUNCTION, ...plan.map(toServerFault));

      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('fault_lambda');
      const group = uniqueGroup('fault_lambda');
      await createTopic(client, topic, QUEUES);
      const config = await writePollerConfig(dir, {
        offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
        lambda: { endpoint: lambda.endpoint, region: 'us-east-1' },
        mappings: [
          {
            name: 'lambda-faults',
            topic,
            consumerGroup: group,
            function: FUNCTION,
            functionTimeoutMs: FUNCTION_TIMEOUT_MS,
            batchSize: BATCH_SIZE,
            maximumBatchingWindowMs: 50,
            startingPosition: 'TRIM_HORIZON',
          },
        ],
      });
      const poller = new PollerSeries(config, {});
      poller.start();
      await poller.started();

      const abort = new AbortController();
      onTestFinished(() => abort.abort());
      const stream = startSteadyStream(await newProducer(client), {
        topic,
        count: MESSAGES,
        queues: QUEUES,
        messagesPerSecond: MESSAGES_PER_SECOND,
        batchSize: BATCH_SIZE,
        signal: abort.signal,
      });
      const sent = await stream.done;
      await waitForLedgers(sent, { lambda: () => handled }, CATCH_UP_TIMEOUT_MS);
      // Quiescence, so that every duplicate is counted: invokes past the timeout still run the
      // function late (as Lambda does), and every message sent back comes once more, 10 s or more
      // later, in an invoke that is either handled or fails again (and is sent back again, counted).
      await waitFor(
        'every invoke answered and every sent-back message invoked again',
        QUIESCE_TIMEOUT_MS,
        async () => {
          const calls = lambda.calls(FUNCTION);
          const answered = calls.every((call) => call.status !== undefined);
          const sentBack = sum(failedBatches(poller.current.logs()).map((line) => line.failedCount));
          return answered && redeliveriesInvoked(calls) >= sentBack ? true : undefined;
        },
      );
      const logs = poller.current.logs();
      const stop = await poller.end('SIGTERM');

      const sentBack = sum(failedBatches(logs).map((line) => line.failedCount));
      const deadLetteredLogged = sum(failedBatches(logs).map((line) => line.deadLetterCount));
      const dlqMessages = await client.broker.getMaxOffset(testBroker().brokerAddr, {
        topic: dlqTopicOf(group),
        queueId: 0,
      });
      const calls = lambda.calls(FUNCTION).length;
      const applied = plan.slice(0, calls);
      const tally = (kind: PlannedFault) => applied.filter((fault) => fault === kind).length;
      const summary = summarizeLedger(sent, handled);
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...summary,
        processOutcomes: poller.outcomes,
        notes:
          `${calls} invokes of ≤${BATCH_SIZE} messages; faults in the first ${FAULT_WINDOW}: ` +
          `${tally('throttle')} throttles (waited out), ${tally('server-error')} 5xx, ` +
          `${tally('unhandled')} Unhandled, ${tally('past-timeout')} past functionTimeoutMs + 10 s; ` +
          `${sentBack} messages sent back for retry, ${redelivered} redeliveries handled, ` +
          `${dlqMessages} dead-lettered`,
        durationMs: Date.now() - startedAt,
      });

      expect(calls, 'every planned fault was applied').toBeGreaterThanOrEqual(FAULT_WINDOW);
      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(summary.delivered).toBe(sent.length);
      expect(sentBack, 'failed invokes were retried').toBeGreaterThan(0);
      expect(deadLetteredLogged).toBe(0);
      expect(dlqMessages).toBe(0);
      expect(stop, poller.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});

/** The fields of an event record the handler reads. */
interface RecordShape {
  messageId: string;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
}

/** FAULT_WINDOW planned faults in the shares of FAULT_SHARE, shuffled with a fixed seed. */
function plannedFaults(): PlannedFault[] {
  const share = (fraction: number) => Math.round(FAULT_WINDOW * fraction);
  const plan: PlannedFault[] = [
    ...Array<PlannedFault>(share(FAULT_SHARE.throttle)).fill('throttle'),
    ...Array<PlannedFault>(share(FAULT_SHARE.serverError)).fill('server-error'),
    ...Array<PlannedFault>(share(FAULT_SHARE.unhandled)).fill('unhandled'),
    ...Array<PlannedFault>(share(FAULT_SHARE.pastTimeout)).fill('past-timeout'),
  ];
  while (plan.length < FAULT_WINDOW) plan.push(undefined);
  const random = mulberry32(0x5eed);
  for (let i = plan.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [plan[i], plan[j]] = [plan[j], plan[i]];
  }
  return plan;
}

/**
 * The server's fault for a planned one. A normal invoke is a `slow` fault of 0 ms: the server takes
 * one queued fault per call, so every call of the window needs an entry.
 */
function toServerFault(fault: PlannedFault, index: number): LambdaApiFault {
  switch (fault) {
    case 'throttle':
      return { kind: 'throttle' };
    case 'server-error':
      return { kind: 'server-error', status: [500, 502, 503][index % 3] ?? 500 };
    case 'unhandled':
      return { kind: 'function-error', handled: false, errorType: 'Error', errorMessage: 'injected crash' };
    case 'past-timeout':
      return { kind: 'slow', delayMs: PAST_TIMEOUT_MS };
    case undefined:
      return { kind: 'slow', delayMs: 0 };
  }
}

/** A small seeded PRNG: the same shuffle on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The poller's `batch failed` log lines (one per batch with failed messages). */
function failedBatches(logs: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return logs.filter((line) => line.msg === 'batch failed');
}

/**
 * Records with `reconsumeTimes > 0` the function was invoked with. A throttled call is not counted:
 * the invoker sends the same records again.
 */
function redeliveriesInvoked(calls: readonly LambdaApiCall[]): number {
  let count = 0;
  for (const call of calls) {
    if (call.fault === 'throttle' || call.event === undefined) continue;
    for (const record of (call.event as { Records: RecordShape[] }).Records) {
      if (record.reconsumeTimes > 0) count++;
    }
  }
  return count;
}

function sum(values: readonly unknown[]): number {
  return values.reduce<number>((total, value) => total + (typeof value === 'number' ? value : 0), 0);
}
