/**
 * Fault scenario "DynamoDB down 12 s": our poller consumes two streams (a concurrent and an orderly
 * mapping, offsets in DynamoDB, written every second) while DynamoDB (dynalite on disk) is taken down
 * for 12 s and brought back on the same port and data; then the poller is stopped gracefully and
 * started again. Offsets are bookkeeping: consumption must go on while they cannot be written,
 * nothing may be lost, and the orderly mapping must keep its order.
 */
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDurableDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { type LedgerEntry, readLedger } from '../cli/poller-process.js';
import { sleep } from '../client/helpers.js';
import { createTopic, newClient, newProducer, produce } from '../consumer/helpers.js';
import { DeliveryLedger, summarizeLedger } from './delivery-ledger.js';
import {
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 180_000;
const SCENARIO = 'DynamoDB down 12 s';
const QUEUES = 4;
/** Per topic. */
const MESSAGES_PER_SECOND = 100;
/**
 * How often the poller writes each queue's offset (the default is 5 s). At 1 s, the outage spans a
 * dozen failed write rounds (each a DynamoDB call that fails after its retries, within ~1 s against a
 * refused port), twice the six of a 30 s outage at the default.
 */
const PERSIST_INTERVAL_MS = 1_000;
/** DynamoDB goes down this far into the stream. */
const DOWN_AFTER_MESSAGES = 5 * MESSAGES_PER_SECOND;
/** The outage: {@link PERSIST_INTERVAL_MS} × 12 failed write rounds (see there). */
const OUTAGE_MS = 12_000;
/** 5 s before the outage, the outage, and 5 s of stream after DynamoDB is back. */
const STREAM_SECONDS = 5 + OUTAGE_MS / 1000 + 5;
/** Produced after the restart, per topic: the restarted poller must pick up where the first one stopped. */
const AFTER_RESTART_MESSAGES = 200;
const CATCH_UP_TIMEOUT_MS = 60_000;
/** pino's warn level. */
const WARN_LEVEL = 40;

describe(SCENARIO, () => {
  it(
    'keeps consuming while DynamoDB is down, loses nothing, keeps orderly order, and stops and restarts cleanly',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('dynamodb');
      const db = await startDurableDynalite(path.join(dir, 'dynamodb'));
      onTestFinished(() => db.close());
      const client = newClient();
      onTestFinished(() => client.close());
      const topics = { concurrent: uniqueTopic('fault_ddb'), orderly: uniqueTopic('fault_ddb_ord') };
      await createTopic(client, topics.concurrent, QUEUES);
      await createTopic(client, topics.orderly, QUEUES);
      // One ledger file for both mappings: their message ids are told apart by the topic's sent ids.
      const ledgerFile = path.join(dir, 'ledger');
      const config = await writePollerConfig(dir, {
        offsets: {
          store: 'dynamodb',
          table: 'fault_offsets',
          endpoint: db.endpoint,
          createTable: true,
          persistIntervalMs: PERSIST_INTERVAL_MS,
        },
        mappings: [
          ledgerMapping(dir, { topic: topics.concurrent, consumerGroup: uniqueGroup('fault_ddb') }),
          ledgerMapping(dir, {
            topic: topics.orderly,
            consumerGroup: uniqueGroup('fault_ddb_ord'),
            orderly: true,
          }),
        ],
      });
      const poller = new PollerSeries(config, { LEDGER_FILE: ledgerFile });
      poller.start();
      await poller.started();

      const producer = await newProducer(client);
      const abort = new AbortController();
      onTestFinished(() => abort.abort());
      const streamOf = (topic: string) =>
        startSteadyStream(producer, {
          topic,
          count: MESSAGES_PER_SECOND * STREAM_SECONDS,
          queues: QUEUES,
          messagesPerSecond: MESSAGES_PER_SECOND,
          batchSize: 10,
          signal: abort.signal,
        });
      const streams = { concurrent: streamOf(topics.concurrent), orderly: streamOf(topics.orderly) };

      await streams.concurrent.sent(DOWN_AFTER_MESSAGES);
      await db.stop();
      const downAt = Date.now();
      const sentBeforeOutage = {
        concurrent: streams.concurrent.sentIds.length,
        orderly: streams.orderly.sentIds.length,
      };
      const ledgerLinesBeforeOutage = readLedger(ledgerFile).length;
      await sleep(OUTAGE_MS); // the outage itself: a fault's length, not a wait for something
      // What was produced during the outage and handled before DynamoDB came back.
      const duringOutage = readLedger(ledgerFile);
      const handledDuringOutage = {
        concurrent: handledOf(streams.concurrent.sentIds.slice(sentBeforeOutage.concurrent), duringOutage),
        orderly: handledOf(streams.orderly.sentIds.slice(sentBeforeOutage.orderly), duringOutage),
      };
      const problemsLogged = poller.current
        .logs()
        .filter((line) => typeof line.time === 'number' && line.time >= downAt)
        .filter((line) => typeof line.level === 'number' && line.level >= WARN_LEVEL).length;
      await db.start();
      const outageMs = Date.now() - downAt;

      const streamed = {
        concurrent: await streams.concurrent.done,
        orderly: await streams.orderly.done,
      };
      await waitForLedgers(
        [...streamed.concurrent, ...streamed.orderly],
        { ours: () => readLedger(ledgerFile) },
        CATCH_UP_TIMEOUT_MS,
      );
      const firstStop = await poller.end('SIGTERM');
      const firstStopOutput = poller.output();

      poller.start();
      await poller.started();
      const sent = {
        concurrent: [
          ...streamed.concurrent,
          ...(await produce(producer, topics.concurrent, AFTER_RESTART_MESSAGES, {
            queues: QUEUES,
            batch: 10,
          })),
        ],
        orderly: [
          ...streamed.orderly,
          ...(await produce(producer, topics.orderly, AFTER_RESTART_MESSAGES, { queues: QUEUES, batch: 10 })),
        ],
      };
      await waitForLedgers(
        [...sent.concurrent, ...sent.orderly],
        { ours: () => readLedger(ledgerFile) },
        CATCH_UP_TIMEOUT_MS,
      );
      const secondStop = await poller.end('SIGTERM');

      const entries = readLedger(ledgerFile);
      const concurrent = summarizeLedger(sent.concurrent, entries);
      const orderly = summarizeLedger(sent.orderly, entries, { orderly: true });
      const durationMs = Date.now() - startedAt;
      const notes = (handled: number, produced: number) =>
        `${QUEUES} queues, ${MESSAGES_PER_SECOND} msgs/s, offsets written every ${PERSIST_INTERVAL_MS / 1000} s; DynamoDB refused connections for ${Math.round(outageMs / 1000)} s: ` +
        `${handled} of the ${produced} messages produced meanwhile handled during the outage ` +
        `(${problemsLogged} warnings/errors logged by the poller); then SIGTERM and restart`;
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...concurrent,
        processOutcomes: poller.outcomes,
        notes: notes(handledDuringOutage.concurrent.handled, handledDuringOutage.concurrent.produced),
        durationMs,
      });
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (orderly)',
        ...orderly,
        processOutcomes: poller.outcomes,
        notes: notes(handledDuringOutage.orderly.handled, handledDuringOutage.orderly.produced),
        durationMs,
      });

      expect(ledgerLinesBeforeOutage, 'the poller consumed before the outage').toBeGreaterThan(0);
      expect(
        handledDuringOutage.concurrent.handled,
        'concurrent mapping progressed while DynamoDB was down',
      ).toBeGreaterThan(0);
      expect(
        handledDuringOutage.orderly.handled,
        'orderly mapping progressed while DynamoDB was down',
      ).toBeGreaterThan(0);
      expect(concurrent.lost, `lost e.g. ${concurrent.lostIds.join(', ')}`).toBe(0);
      expect(orderly.lost, `lost e.g. ${orderly.lostIds.join(', ')}`).toBe(0);
      expect(orderly.orderViolations).toBe(0);
      expect(firstStop, firstStopOutput).toEqual({ code: 0, signal: null });
      expect(secondStop, poller.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});

/** How many of `produced` appear in `entries`. */
function handledOf(
  produced: readonly string[],
  entries: readonly LedgerEntry[],
): { produced: number; handled: number } {
  const ledger = new DeliveryLedger(produced);
  ledger.add(entries);
  return { produced: produced.length, handled: ledger.delivered };
}
