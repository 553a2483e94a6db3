/**
 * Fault scenario "scale-out join and graceful leave": poller A consumes a steady stream with a handler
 * slow enough (150 ms per batch) that batches are always in flight; poller B (same config, same group)
 * joins mid-stream and takes half the queues; later A is stopped gracefully (SIGTERM) and B takes the
 * rest, all while messages keep coming. Queues changing hands are handed over (the old owner drains and
 * writes its final offset as released, the new one starts exactly there), so a graceful join or leave
 * must redeliver nothing: lost 0 and duplicates 0, both pollers exit 0.
 */
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { readLedger } from '../cli/poller-process.js';
import { createTopic, newClient, newProducer, waitFor } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import {
  ledgerLines,
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 180_000;
const SCENARIO = 'scale-out join and graceful leave';
const QUEUES = 8;
/**
 * 15 s of stream: A alone for 3 s, then B joins (its start and the rebalance take 3-5 s), A leaves at
 * 10 s, and messages keep coming for 5 s more while B takes A's queues over.
 */
const MESSAGES = 4_500;
const MESSAGES_PER_SECOND = 300;
/** The ledger handler waits this long per batch: batches are in flight whenever queues change hands. */
const HANDLER_DELAY_MS = 150;
const BATCH_SIZE = 10;
/** B joins once this many messages were sent, A leaves at this many. */
const JOIN_AT = 1_000;
const LEAVE_AT = 3_000;
const PROGRESS_TIMEOUT_MS = 60_000;
const CATCH_UP_TIMEOUT_MS = 90_000;

describe(SCENARIO, () => {
  it(
    'redelivers nothing and loses nothing when a poller joins and another leaves gracefully mid-stream',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('scale');
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('fault_scale');
      await createTopic(client, topic, QUEUES);
      const config = await writePollerConfig(dir, {
        offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
        mappings: [
          ledgerMapping(dir, {
            topic,
            consumerGroup: uniqueGroup('fault_scale'),
            batchSize: BATCH_SIZE,
            maximumBatchingWindowMs: 50,
          }),
        ],
      });
      const ledgers = { a: path.join(dir, 'a.ledger'), b: path.join(dir, 'b.ledger') };
      const pollerOf = (name: 'a' | 'b') =>
        new PollerSeries(config, {
          LEDGER_FILE: ledgers[name],
          HANDLER_DELAY_MS: String(HANDLER_DELAY_MS),
          ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(dir, `${name}.health`),
        });
      const a = pollerOf('a');
      const b = pollerOf('b');
      a.start();
      await a.started();

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

      await stream.sent(JOIN_AT);
      const joinedAt = Date.now();
      const handledByAAtJoin = ledgerLines(ledgers.a);
      b.start();
      await b.started();
      // B is only part of the group once it handles messages of the queues it took over.
      await waitFor('the joining poller to handle messages', PROGRESS_TIMEOUT_MS, async () =>
        ledgerLines(ledgers.b) > 0 ? true : undefined,
      );
      const bFirstHandlingMs = Date.now() - joinedAt;

      await stream.sent(LEAVE_AT);
      const handledAtLeave = { a: ledgerLines(ledgers.a), b: ledgerLines(ledgers.b) };
      const leaveStartedAt = Date.now();
      const aStop = await a.end('SIGTERM');
      const aStopMs = Date.now() - leaveStartedAt;

      const sent = await stream.done;
      await waitForLedgers(
        sent,
        { ours: () => [...readLedger(ledgers.a), ...readLedger(ledgers.b)] },
        CATCH_UP_TIMEOUT_MS,
      );
      const bStop = await b.end('SIGTERM');

      const entries = { a: readLedger(ledgers.a), b: readLedger(ledgers.b) };
      const summary = summarizeLedger(sent, [...entries.a, ...entries.b]);
      const queuesOf = (name: 'a' | 'b') => new Set(entries[name].map((entry) => entry.queueId)).size;
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...summary,
        processOutcomes: [...a.outcomes.map((o) => `A ${o}`), ...b.outcomes.map((o) => `B ${o}`)],
        notes:
          `${QUEUES} queues, ${MESSAGES_PER_SECOND} msgs/s, batches of ${BATCH_SIZE} taking ${HANDLER_DELAY_MS} ms; ` +
          `B joined after ${JOIN_AT} sent (A had handled ${handledByAAtJoin}), first handling ` +
          `${(bFirstHandlingMs / 1000).toFixed(1)} s later; A SIGTERMed after ${LEAVE_AT} sent (A had handled ` +
          `${handledAtLeave.a}, B ${handledAtLeave.b}), its graceful stop took ${(aStopMs / 1000).toFixed(1)} s; ` +
          `handled by A ${entries.a.length} on ${queuesOf('a')} queues, by B ${entries.b.length} on ${queuesOf('b')} queues; ` +
          'offsets in DynamoDB (dynalite)',
        durationMs: Date.now() - startedAt,
      });

      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(summary.duplicates, 'a graceful join or leave redelivers nothing').toBe(0);
      expect(aStop, a.output()).toEqual({ code: 0, signal: null });
      expect(bStop, b.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});
