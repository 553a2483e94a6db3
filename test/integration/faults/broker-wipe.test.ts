/**
 * Fault scenario "broker store wiped and recreated": a broker of our own dies (SIGKILL) and loses its
 * whole store (commit log, queues, topics, consumer offsets), as when its disk fails and is replaced,
 * and comes back empty; the topics are created again and new messages start at offset 0, far below
 * the offsets our pollers stored in DynamoDB. Two pollers (own topics and groups) go through the same wipe:
 * - "wiped while running": consumed 3,000 messages, is running during the wipe, meets OFFSET_ILLEGAL on
 *   the recreated queues and must follow the broker down (200 more messages), stop cleanly, and after
 *   300 more messages produced while it was stopped, start again and deliver them all;
 * - "wiped while stopped": consumed 3,000, was stopped before the wipe, so its stored offsets are far
 *   beyond the new queues' end when it starts again: everything produced after the wipe must come.
 * Nothing may be lost in any phase.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import type { LocalBroker } from '../../../src/local-broker/local-broker.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { type PollerProcess, readLedger } from '../cli/poller-process.js';
import { newProducer, produce } from '../consumer/helpers.js';
import { type LedgerSummary, summarizeLedger } from './delivery-ledger.js';
import { ledgerMapping, type PollerSeries, scenarioDir, waitForLedgers } from './fault-scenario.js';
import { createTopicOn, ownBrokerClient, startOwnBroker } from './own-broker.js';
import { pollerVariant } from './poller-variant.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 240_000;
const SCENARIO = 'broker store wiped and recreated';
const QUEUES = 4;
const BEFORE_WIPE = 3_000;
const MESSAGES_PER_SECOND = 1_000;
/** Produced after the wipe (50 per queue, far below the 750 per queue stored before it). */
const AFTER_WIPE = 200;
/** Produced while the "wiped while running" poller is stopped after following the broker down. */
const WHILE_STOPPED = 300;
const CATCH_UP_TIMEOUT_MS = 90_000;
/** The pull loop's warning when a stored offset lies beyond the end of a recreated queue. */
const BEYOND_END_LOG = 'offset beyond the end of the queue';

describe(SCENARIO, () => {
  it(
    'follows the broker down after a wipe, running or stopped, and loses nothing in any phase',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('wipe');
      // Side by side: the broker's JVMs take seconds, dynalite milliseconds.
      const [broker, db] = await Promise.all([
        startOwnBroker(),
        startDynalite().then((started) => {
          onTestFinished(() => started.close());
          return started;
        }),
      ]);
      const client = ownBrokerClient(broker);
      const producer = await newProducer(client);
      const topics = { running: uniqueTopic('fault_wipe_run'), stopped: uniqueTopic('fault_wipe_stop') };
      const variant = (name: 'running' | 'stopped') =>
        pollerVariant(dir, name, (at) => ({
          nameServer: broker.namesrvAddr,
          offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
          mappings: [
            ledgerMapping(at, { topic: topics[name], consumerGroup: uniqueGroup(`fault_wipe_${name}`) }),
          ],
        }));
      await createTopics(client, broker, topics);
      const running = await variant('running');
      const stopped = await variant('stopped');
      running.poller.start();
      stopped.poller.start();
      await Promise.all([running.poller.started(), stopped.poller.started()]);

      // Phase 1: 3,000 each, consumed; the two topics' streams side by side.
      const streamOf = (topic: string) =>
        startSteadyStream(producer, {
          topic,
          count: BEFORE_WIPE,
          queues: QUEUES,
          messagesPerSecond: MESSAGES_PER_SECOND,
        }).done;
      const [beforeWipeRunning, beforeWipeStopped] = await Promise.all([
        streamOf(topics.running),
        streamOf(topics.stopped),
      ]);
      const beforeWipe = { running: beforeWipeRunning, stopped: beforeWipeStopped };
      await Promise.all([
        waitForLedgers(
          beforeWipe.running,
          { running: () => readLedger(running.ledgerFile) },
          CATCH_UP_TIMEOUT_MS,
        ),
        waitForLedgers(
          beforeWipe.stopped,
          { stopped: () => readLedger(stopped.ledgerFile) },
          CATCH_UP_TIMEOUT_MS,
        ),
      ]);
      const stoppedFirst = await stopped.poller.end('SIGTERM');

      // The wipe: the "running" poller runs through it, the "stopped" one is down.
      const wipeStartedAt = Date.now();
      // The broker dies with its disk (SIGKILL) rather than being stopped: its store is thrown away
      // either way, and a graceful 5.3.3 stop spends 7 s or more in its shutdown before the wipe can start.
      await broker.killBroker();
      await broker.restartBroker({ wipeStore: true });
      await createTopics(client, broker, topics);
      const wipeMs = Date.now() - wipeStartedAt;

      // Phase 2: 200 each after the wipe; the stopped poller starts only now.
      const [afterWipeRunning, afterWipeStopped] = await Promise.all([
        produce(producer, topics.running, AFTER_WIPE, { queues: QUEUES, batch: 25 }),
        produce(producer, topics.stopped, AFTER_WIPE, { queues: QUEUES, batch: 25 }),
      ]);
      const afterWipe = { running: afterWipeRunning, stopped: afterWipeStopped };
      const runningThroughWipe = running.poller.current;
      stopped.poller.start();
      const stoppedAfterWipe = stopped.poller.current;
      await Promise.all([
        waitForLedgers(
          afterWipe.running,
          { running: () => readLedger(running.ledgerFile) },
          CATCH_UP_TIMEOUT_MS,
        ),
        waitForLedgers(
          afterWipe.stopped,
          { stopped: () => readLedger(stopped.ledgerFile) },
          CATCH_UP_TIMEOUT_MS,
        ),
      ]);
      const runningFirst = await running.poller.end('SIGTERM');

      // Phase 3: 300 while the "running" poller is stopped, then it starts again.
      const whileStopped = await produce(producer, topics.running, WHILE_STOPPED, {
        queues: QUEUES,
        batch: 25,
      });
      running.poller.start();
      await waitForLedgers(
        whileStopped,
        { running: () => readLedger(running.ledgerFile) },
        CATCH_UP_TIMEOUT_MS,
      );
      const [runningLast, stoppedLast] = await Promise.all([
        running.poller.end('SIGTERM'),
        stopped.poller.end('SIGTERM'),
      ]);

      const runningEntries = readLedger(running.ledgerFile);
      const stoppedEntries = readLedger(stopped.ledgerFile);
      const phases = {
        running: {
          beforeWipe: summarizeLedger(beforeWipe.running, runningEntries),
          afterWipe: summarizeLedger(afterWipe.running, runningEntries),
          whileStopped: summarizeLedger(whileStopped, runningEntries),
        },
        stopped: {
          beforeWipe: summarizeLedger(beforeWipe.stopped, stoppedEntries),
          afterWipe: summarizeLedger(afterWipe.stopped, stoppedEntries),
        },
      };
      const all = {
        running: summarizeLedger(
          [...beforeWipe.running, ...afterWipe.running, ...whileStopped],
          runningEntries,
        ),
        stopped: summarizeLedger([...beforeWipe.stopped, ...afterWipe.stopped], stoppedEntries),
      };
      const durationMs = Date.now() - startedAt;
      const wipe = `broker SIGKILLed, store wiped by restartBroker({ wipeStore: true }) and topics re-created in ${Math.round(wipeMs / 1000)} s`;
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (wiped while running)',
        ...all.running,
        processOutcomes: running.poller.outcomes,
        notes:
          `${QUEUES} queues; ${phaseNote('before the wipe', phases.running.beforeWipe)}; ${wipe} while it ran; ` +
          `${phaseNote('after the wipe', phases.running.afterWipe)} ` +
          `(${beyondEndWarnings(runningThroughWipe)} queues restarted from their first message); SIGTERM; ` +
          `${phaseNote('while it was stopped', phases.running.whileStopped)}, then started again`,
        durationMs,
      });
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda (wiped while stopped)',
        ...all.stopped,
        processOutcomes: stopped.poller.outcomes,
        notes:
          `${QUEUES} queues; ${phaseNote('before the wipe', phases.stopped.beforeWipe)}; SIGTERM, then ${wipe}; ` +
          `${phaseNote('after the wipe, before it started again', phases.stopped.afterWipe)} (stored offsets ` +
          `${BEFORE_WIPE / QUEUES} per queue, new queues end at ${AFTER_WIPE / QUEUES}; ` +
          `${beyondEndWarnings(stoppedAfterWipe)} queues restarted from their first message)`,
        durationMs,
      });

      for (const [name, summary] of [
        ...Object.entries(phases.running).map(([phase, s]) => [`running, ${phase}`, s] as const),
        ...Object.entries(phases.stopped).map(([phase, s]) => [`stopped, ${phase}`, s] as const),
      ]) {
        expect(summary.lost, `${name}: lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      }
      expectCleanStops(running.poller, [runningFirst, runningLast]);
      expectCleanStops(stopped.poller, [stoppedFirst, stoppedLast]);
    },
    TEST_TIMEOUT_MS,
  );
});

async function createTopics(
  client: ReturnType<typeof ownBrokerClient>,
  broker: LocalBroker,
  topics: Record<string, string>,
): Promise<void> {
  await Promise.all(Object.values(topics).map((topic) => createTopicOn(client, broker, topic, QUEUES)));
}

function phaseNote(phase: string, summary: LedgerSummary): string {
  return `${summary.sent} sent ${phase}: ${summary.delivered} delivered, ${summary.lost} lost, ${summary.duplicates} duplicates`;
}

/** Queues a poller process restarted from their first message because its offset lay beyond their end. */
function beyondEndWarnings(poller: PollerProcess): number {
  return poller.logs().filter((line) => typeof line.msg === 'string' && line.msg.startsWith(BEYOND_END_LOG))
    .length;
}

function expectCleanStops(
  poller: PollerSeries,
  exits: readonly { code: number | null; signal: string | null }[],
) {
  for (const exit of exits) expect(exit, poller.output()).toEqual({ code: 0, signal: null });
}
