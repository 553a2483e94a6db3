/**
 * Fault scenario "poller SIGKILL ×3 during a stream": messages stream over 8 queues at a steady
 * rate while our poller (`rocketmq-lambda run`, offsets in DynamoDB) and, in the same run, Apache
 * RocketMQ's Java DefaultMQPushConsumer (its own group, same topic) are each SIGKILLed three times
 * and started again. The kills come at 25, 50 and 75 % of the stream, each once both consumers'
 * current processes have handled 1,000 messages (a process killed while still starting tests
 * nothing). Neither may lose a message; the duplicates of both are recorded side by side, with the
 * time each took to handle again after a restart.
 *
 * The stream has no fixed end: it runs until the last restarted consumers have handled a message and at
 * least {@link MESSAGES} were sent. With a fixed count, a loaded machine (slow restarts, slow first 1,000
 * of each process) reached the last kill after the stream had ended: the restarted poller, already at the
 * end of every queue, had nothing left to handle and the scenario timed out waiting for it.
 */
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { type JavaLedgerConsumer, startJavaLedgerConsumer } from '../../support/java-interop.js';
import { readLedger } from '../cli/poller-process.js';
import { sleep } from '../client/helpers.js';
import { createTopic, newClient, newProducer, waitFor } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import {
  exitOutcome,
  ledgerLines,
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 240_000;
const SCENARIO = 'poller SIGKILL ×3 during a stream';
const QUEUES = 8;
/** The stream's length at least; the kills come at each quarter of it. */
const MESSAGES = 20_000;
/** The stream's ceiling: a minute at the rate; it is stopped long before (see the file comment). */
const MAX_MESSAGES = 60_000;
const MESSAGES_PER_SECOND = 1_000;
const KILLS = 3;
/** The mapping's batch size (the default). */
const BATCH_SIZE = 100;
/** After the stream: time for both consumers to catch up (restarts, rebalances, redeliveries). */
const CATCH_UP_TIMEOUT_MS = 120_000;
/** Each process handles this many messages before it is killed (the first kill waits for both). */
const MIN_HANDLED_BEFORE_KILL = 1_000;
/**
 * After both processes have handled their share, the kill waits this long, so that it lands at a moment
 * unrelated to a ledger write, as a crash does. Killing right when a ledger reaches a count catches a
 * consumer in the middle of the write burst that made it reach the count: for ours, the batches whose
 * handler just wrote their lines but whose results are not yet applied.
 */
const KILL_DELAY_MS = 1_000;
/** Time a (re)started consumer may take to handle its first messages. */
const PROGRESS_TIMEOUT_MS = 60_000;

describe(SCENARIO, () => {
  it(
    "loses nothing, ours and Apache's Java push consumer alike, and records the duplicates of both",
    async () => {
      const startedAt = Date.now();
      const { namesrvAddr } = testBroker();
      const dir = await scenarioDir('sigkill');
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('fault_kill');
      const ourGroup = uniqueGroup('fault_kill_ours');
      const javaGroup = uniqueGroup('fault_kill_java');
      await createTopic(client, topic, QUEUES);
      const ourLedger = path.join(dir, 'ours.ledger');
      const javaLedger = path.join(dir, 'java.ledger');
      const config = await writePollerConfig(dir, {
        offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
        mappings: [ledgerMapping(dir, { topic, consumerGroup: ourGroup, batchSize: BATCH_SIZE })],
      });

      const poller = new PollerSeries(config, { LEDGER_FILE: ourLedger });
      const javaOutcomes: string[] = [];
      const startJava = () =>
        startJavaLedgerConsumer(namesrvAddr, { topic, group: javaGroup, ledgerFile: javaLedger });
      poller.start();
      let java: JavaLedgerConsumer = await startJava();
      onTestFinished(async () => {
        await java.kill();
      });
      await poller.started();

      const abort = new AbortController();
      onTestFinished(() => abort.abort());
      // Stops the stream once the last restarts have handled a message and MESSAGES were sent.
      const enough = new AbortController();
      const stream = startSteadyStream(await newProducer(client), {
        topic,
        count: MAX_MESSAGES,
        queues: QUEUES,
        messagesPerSecond: MESSAGES_PER_SECOND,
        signal: AbortSignal.any([abort.signal, enough.signal]),
      });
      const streamStartedAt = Date.now();
      // Also when stopped (`done` rejects then; a send failure is rethrown where `sent` is awaited).
      const streamEndedAt = stream.done.then(
        () => Date.now(),
        () => Date.now(),
      );
      // Ledger lines when each process ended: each process handled its share before its kill.
      const ourCuts: number[] = [];
      const javaCuts: number[] = [];
      const sentAtKill: number[] = [];
      const firstHandlingMs = { ours: [] as number[], java: [] as number[] };
      /** Our poller's `poller started` log line, after each restart. */
      const startedLogMs: number[] = [];
      for (let kill = 1; kill <= KILLS; kill++) {
        await stream.sent(Math.round((MESSAGES * kill) / (KILLS + 1)));
        // A process killed before it handled anything tests nothing: each one must be consuming.
        const since = { ours: ourCuts.at(-1) ?? 0, java: javaCuts.at(-1) ?? 0 };
        await waitFor(
          `both consumers to handle ${MIN_HANDLED_BEFORE_KILL} messages before kill ${kill}`,
          PROGRESS_TIMEOUT_MS,
          async () =>
            ledgerLines(ourLedger) - since.ours >= MIN_HANDLED_BEFORE_KILL &&
            ledgerLines(javaLedger) - since.java >= MIN_HANDLED_BEFORE_KILL
              ? true
              : undefined,
        );
        await sleep(KILL_DELAY_MS);
        const [, javaExit] = await Promise.all([poller.end('SIGKILL'), java.kill()]);
        sentAtKill.push(stream.sentIds.length);
        javaOutcomes.push(exitOutcome(javaExit));
        ourCuts.push(ledgerLines(ourLedger));
        javaCuts.push(ledgerLines(javaLedger));
        const restartedAt = Date.now();
        poller.start();
        const pollerStartedAt = poller.started().then(() => Date.now());
        java = await startJava();
        const first = await firstHandlings(
          { ours: ourLedger, java: javaLedger },
          { ours: ourCuts.at(-1) ?? 0, java: javaCuts.at(-1) ?? 0 },
        ).catch((error: unknown) => {
          throw new Error(`after kill ${kill}, our poller's ${poller.output()}`, { cause: error });
        });
        startedLogMs.push((await pollerStartedAt) - restartedAt);
        firstHandlingMs.ours.push(first.ours - restartedAt);
        firstHandlingMs.java.push(first.java - restartedAt);
      }
      await stream.sent(MESSAGES);
      enough.abort();
      // The batches in flight at the stop complete first: every id in sentIds was acknowledged.
      const sent = await stream.done.catch((error: unknown) => {
        if (error === enough.signal.reason) return [...stream.sentIds];
        throw error;
      });
      const streamRate = Math.round(sent.length / (((await streamEndedAt) - streamStartedAt) / 1000));
      await waitForLedgers(
        sent,
        { ours: () => readLedger(ourLedger), java: () => readLedger(javaLedger) },
        CATCH_UP_TIMEOUT_MS,
      );
      const ourStop = await poller.end('SIGTERM');
      javaOutcomes.push(exitOutcome(await java.stop()));

      const ourEntries = readLedger(ourLedger);
      const javaEntries = readLedger(javaLedger);
      ourCuts.push(ourEntries.length);
      javaCuts.push(javaEntries.length);
      const restarts = (ms: readonly number[]) => ms.map((m) => (m / 1000).toFixed(1)).join('/');
      const ours = summarizeLedger(sent, ourEntries);
      const theirs = summarizeLedger(sent, javaEntries);
      const durationMs = Date.now() - startedAt;
      const ratio =
        theirs.duplicates === 0
          ? 'Java had none'
          : `×${(ours.duplicates / theirs.duplicates).toFixed(1)} Java's`;
      const setup = `${QUEUES} queues, ~${streamRate} msgs/s, killed after ${sentAtKill.map(count).join('/')} sent`;
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...ours,
        processOutcomes: poller.outcomes,
        notes: `${setup}; handled per process ${perProcess(ourCuts)}; after each restart \`poller started\` at ${restarts(startedLogMs)} s, first handling at ${restarts(firstHandlingMs.ours)} s; offsets in DynamoDB (dynalite); duplicates ${ratio}`,
        durationMs,
      });
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'Java DefaultMQPushConsumer 5.3.3',
        ...theirs,
        processOutcomes: javaOutcomes,
        notes: `${setup}; handled per process ${perProcess(javaCuts)}; after each restart first handling at ${restarts(firstHandlingMs.java)} s (JVM start included); same run, own group; Java's default offset persistence (to the broker every 5 s, and with every pull)`,
        durationMs,
      });

      expect(ours.lost, `ours lost e.g. ${ours.lostIds.join(', ')}`).toBe(0);
      expect(ours.delivered).toBe(sent.length);
      expect(theirs.lost, `Java lost e.g. ${theirs.lostIds.join(', ')}`).toBe(0);
      expect(theirs.delivered).toBe(sent.length);
      expect(ourStop, poller.output()).toEqual({ code: 0, signal: null });
      // No more duplicates than Java's, give or take the batches in flight at each kill: a batch whose
      // function ran is delivered again as a whole (Lambda's unit), where Java's threads hold one message each.
      expect(ours.duplicates).toBeLessThanOrEqual(theirs.duplicates + KILLS * BATCH_SIZE);
    },
    TEST_TIMEOUT_MS,
  );
});

/** Ledger lines per process from the line counts at each process's end: `5012/4980/5100/5008`. */
function perProcess(cuts: readonly number[]): string {
  return cuts.map((cut, i) => cut - (i === 0 ? 0 : (cuts[i - 1] ?? 0))).join('/');
}

/** When each ledger first grew past its line count at the restart (`Date.now()` per ledger). */
async function firstHandlings(
  files: { ours: string; java: string },
  since: { ours: number; java: number },
): Promise<{ ours: number; java: number }> {
  const seen: { ours?: number; java?: number } = {};
  return waitFor('both consumers to handle a message after the restart', PROGRESS_TIMEOUT_MS, async () => {
    if (seen.ours === undefined && ledgerLines(files.ours) > since.ours) seen.ours = Date.now();
    if (seen.java === undefined && ledgerLines(files.java) > since.java) seen.java = Date.now();
    if (seen.ours !== undefined && seen.java !== undefined) return { ours: seen.ours, java: seen.java };
    // Thrown, it is the timeout error's cause: which consumer has not handled anything yet.
    throw new Error(
      `not yet handled since the restart: ${[seen.ours === undefined ? 'ours' : '', seen.java === undefined ? 'Java' : ''].filter(Boolean).join(' and ')}`,
    );
  });
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
