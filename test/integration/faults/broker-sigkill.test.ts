/**
 * Fault scenario "broker SIGKILL + restart on the same store": messages stream at a steady rate to a
 * broker of our own while our poller (offsets in DynamoDB on dynalite) invokes a function through the
 * Lambda Invoke API that fails 10 % of the messages on their first delivery (a fixed rule on the message
 * id), so that retries go through the retry topic. A third into the stream the broker JVM is SIGKILLed
 * (a crash: nothing flushed) and started again on its store (down for the second we wait plus the
 * restart's own JVM boot, 3 s on a quiet machine, more under load). The producer keeps
 * retrying the sends that fail meanwhile (a message counts as sent once the broker acknowledged it).
 * The poller must ride it out (still running, exit 0 at the final SIGTERM) and lose nothing.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';
import { waitFor } from '../../support/wait-for.js';
import type { LedgerEntry } from '../cli/poller-process.js';
import { sleep } from '../client/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import { PollerSeries, scenarioDir, waitForLedgers, writePollerConfig } from './fault-scenario.js';
import { HealthWatch } from './health-watch.js';
import { createTopicOn, ownBrokerClient, startOwnBroker } from './own-broker.js';
import { RetryingProducer } from './retrying-producer.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 240_000;
const SCENARIO = 'broker SIGKILL + restart on the same store';
const FUNCTION = 'fault-broker-kill-fn';
const QUEUES = 4;
/**
 * 20 s of stream: the kill comes a third in (~7 s), the broker is back a few seconds later and the
 * stream goes on for its last ~9 s on the restarted broker (the original 30 s had 12 s there).
 */
const MESSAGES = 4_000;
const MESSAGES_PER_SECOND = 200;
/** The broker is killed once this many messages were sent (a third). */
const KILL_AFTER_MESSAGES = Math.round(MESSAGES / 3);
/**
 * How long the broker stays dead before restartBroker(). The outage the poller and the producer see is
 * this plus the restart's own boot (the new JVM until it registers: 3 s on a quiet machine, more under
 * load): sends, pulls and heartbeats fail for 4 s or more (8 s when this was 5 s).
 */
const DOWN_MS = 1_000;
/**
 * The broker's `messageDelayLevel`: as RocketMQ's default (1s 5s 10s 30s 1m ...) with every level cut
 * to 1-3 s. A first retry uses level 3 (3 + reconsumeTimes): 3 s instead of 10 s after its failure, so
 * the failures of the last 3 s before the kill (~60 messages) are still in the schedule topic when the
 * broker dies, and the last retries come 7 s sooner after the stream.
 */
const DELAY_LEVELS = '1s 2s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s';
/** One message in this many fails its first delivery. */
const FAIL_ONE_IN = 10;
/** After the stream: the restart's backlog, and first retries come 3 s after their failure ({@link DELAY_LEVELS}). */
const CATCH_UP_TIMEOUT_MS = 120_000;
/** From the restart to the first message handled, with slack for a loaded machine. */
const FIRST_HANDLING_TIMEOUT_MS = 120_000;

describe(SCENARIO, () => {
  it(
    'loses nothing through a broker crash and restart, retries included, and the poller keeps running',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('brokerkill');
      // Side by side: the broker's JVMs take seconds, dynalite and the Lambda API server milliseconds.
      const [broker, db, lambda] = await Promise.all([
        startOwnBroker({ brokerConfig: { messageDelayLevel: DELAY_LEVELS } }),
        startDynalite().then((started) => {
          onTestFinished(() => started.close());
          return started;
        }),
        LambdaApiServer.start().then((started) => {
          onTestFinished(() => started.close());
          return started;
        }),
      ]);
      const handled: LedgerEntry[] = [];
      let failedOnPurpose = 0;
      let retriesHandled = 0;
      lambda.register(FUNCTION, (event) => {
        const batchItemFailures: { itemIdentifier: string }[] = [];
        for (const record of (event as { Records: RecordShape[] }).Records) {
          if (record.reconsumeTimes === 0 && failsFirstDelivery(record.messageId)) {
            failedOnPurpose++;
            batchItemFailures.push({ itemIdentifier: record.messageId });
            continue;
          }
          // Only successful handlings go to the ledger: a message whose retry never came is lost.
          if (record.reconsumeTimes > 0) retriesHandled++;
          handled.push({
            messageId: record.messageId,
            queueId: record.queueId,
            queueOffset: record.queueOffset,
          });
        }
        return { batchItemFailures };
      });

      const client = ownBrokerClient(broker);
      const topic = uniqueTopic('fault_bkill');
      await createTopicOn(client, broker, topic, QUEUES);
      const healthFile = `${dir}/health`;
      const config = await writePollerConfig(dir, {
        nameServer: broker.namesrvAddr,
        offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
        lambda: { endpoint: lambda.endpoint, region: 'us-east-1' },
        mappings: [
          {
            name: 'broker-kill',
            topic,
            consumerGroup: uniqueGroup('fault_bkill'),
            function: FUNCTION,
            batchSize: 20,
            maximumBatchingWindowMs: 50,
            startingPosition: 'TRIM_HORIZON',
          },
        ],
      });
      const poller = new PollerSeries(config, { ROCKETMQ_LAMBDA_HEALTH_FILE: healthFile });
      poller.start();
      await poller.started();
      const health = new HealthWatch(healthFile, { intervalMs: 1_000 });
      health.start();

      const producer = new RetryingProducer(client);
      await producer.start();
      onTestFinished(() => producer.shutdown());
      const abort = new AbortController();
      onTestFinished(() => abort.abort());
      const stream = startSteadyStream(producer, {
        topic,
        count: MESSAGES,
        queues: QUEUES,
        messagesPerSecond: MESSAGES_PER_SECOND,
        signal: abort.signal,
      });

      await stream.sent(KILL_AFTER_MESSAGES);
      const handledBeforeKill = handled.length;
      await broker.killBroker();
      const killedAt = Date.now();
      const sentAtKill = stream.sentIds.length;
      await sleep(DOWN_MS); // the outage itself: a fault's length, not a wait for something
      await broker.restartBroker();
      const backAt = Date.now();
      const handledWhileDown = handled.length - handledBeforeKill;
      const sentWhileDown = stream.sentIds.length - sentAtKill;
      const failedSendsWhileDown = producer.failedAttempts;
      const handledAtRestart = handled.length;
      const firstHandlingAfter = waitFor(
        'a message handled after the broker restart',
        FIRST_HANDLING_TIMEOUT_MS,
        () => (handled.length > handledAtRestart ? Date.now() : undefined),
      );
      // Awaited below, after the stream: a failure meanwhile must not go unhandled.
      firstHandlingAfter.catch(() => undefined);

      const sent = await stream.done;
      const firstHandlingMs = (await firstHandlingAfter) - backAt;
      await waitForLedgers(sent, { lambda: () => handled }, CATCH_UP_TIMEOUT_MS);
      await health.stop();
      const pollerRunning = poller.current.child.exitCode === null;
      const stop = await poller.end('SIGTERM');

      const summary = summarizeLedger(sent, handled);
      const unhealthy = health.verdicts.filter((verdict) => verdict.exitCode !== 0);
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...summary,
        processOutcomes: poller.outcomes,
        notes:
          `own broker, ${QUEUES} queues, ${MESSAGES_PER_SECOND} msgs/s; SIGKILL after ${sentAtKill} sent, ` +
          `restarted on its store ${Math.round((backAt - killedAt) / 1000)} s later (${DOWN_MS / 1000} s down + ` +
          `restartBroker()); ${failedSendsWhileDown} send attempts failed meanwhile and were retried ` +
          `(${sentWhileDown} sent while down); ${handledWhileDown} handled while down; first handling ` +
          `${(firstHandlingMs / 1000).toFixed(1)} s after the restart; Lambda Invoke API function failing 1 in ` +
          `${FAIL_ONE_IN} messages on first delivery: ${failedOnPurpose} failed, ${retriesHandled} handled from ` +
          `the retry topic (first retry 3 s after the failure); health ${health.verdicts.length} checks, ${unhealthy.length} unhealthy` +
          `${unhealthy.length === 0 ? '' : ` (${[...new Set(unhealthy.map((v) => v.output))].join(' / ')})`}`,
        durationMs: Date.now() - startedAt,
      });

      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(summary.delivered).toBe(sent.length);
      expect(failedOnPurpose, 'retries went through the retry topic').toBeGreaterThan(0);
      expect(pollerRunning, 'the poller rode out the broker crash').toBe(true);
      expect(poller.outcomes).toEqual(['exit 0']);
      expect(stop, poller.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});

/** The fields of an event record the function reads. */
interface RecordShape {
  messageId: string;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
}

/** The fixed rule: one message id in {@link FAIL_ONE_IN} (by a sum of its characters) fails its first delivery. */
function failsFirstDelivery(messageId: string): boolean {
  let sum = 0;
  for (let i = 0; i < messageId.length; i++) sum += messageId.charCodeAt(i) * (i + 1);
  return sum % FAIL_ONE_IN === 0;
}
