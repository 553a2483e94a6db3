/**
 * Fault scenario "hostile name servers": our poller's name server list starts with five fake name
 * servers, each answering every route lookup with one kind of nonsense (2,147,483,647 queues, 100,000
 * broker groups, a frame that never finishes, a length prefix above the 16 MiB cap, well-framed
 * garbage), and ends with the real one. A lookup tries them in that order, so every start of the poller
 * meets all five before the real name server answers. The poller is started twice during a steady
 * stream: its memory (VmRSS) must stay bounded, it must never crash, and with the real name server in
 * the list it must consume every message.
 */
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { readLedger } from '../cli/poller-process.js';
import { createTopic, newClient, newProducer } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import { FAKE_NAME_SERVER_FACES, FakeNameServer } from './fake-name-server.js';
import {
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { RssSampler } from './rss-sampler.js';
import { startSteadyStream } from './steady-stream.js';

/** The whole scenario, with slack for a loaded machine. */
const TEST_TIMEOUT_MS = 180_000;
const SCENARIO = 'hostile name servers';
const QUEUES = 4;
const MESSAGES = 4_000;
const MESSAGES_PER_SECOND = 200;
/** The poller is stopped gracefully and started again (a second round of lookups) at this many sent. */
const RESTART_AT = 2_000;
/** A poller idles at ~100-150 MB; 2,147,483,647 queues once took one to 2.4 GB in 15 s. */
const RSS_LIMIT_BYTES = 300 * 1024 * 1024;
const CATCH_UP_TIMEOUT_MS = 90_000;
const MiB = 1024 * 1024;

describe(SCENARIO, () => {
  it(
    'stays bounded in memory, never crashes, and consumes everything through the real name server',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('hostile');
      const fakes = await Promise.all(FAKE_NAME_SERVER_FACES.map((face) => FakeNameServer.start(face)));
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('fault_hostile');
      await createTopic(client, topic, QUEUES);
      const ledgerFile = path.join(dir, 'ledger');
      const config = await writePollerConfig(dir, {
        nameServer: [...fakes.map((fake) => fake.address), testBroker().namesrvAddr],
        offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
        mappings: [ledgerMapping(dir, { topic, consumerGroup: uniqueGroup('fault_hostile') })],
      });
      const poller = new PollerSeries(config, {
        LEDGER_FILE: ledgerFile,
        ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(dir, 'health'),
      });
      const rss = new RssSampler();
      const startTimesMs: number[] = [];
      const startOnce = async () => {
        const at = Date.now();
        rss.watch(poller.start().child.pid);
        await poller.started();
        startTimesMs.push(Date.now() - at);
      };
      await startOnce();
      const firstProcess = poller.current;

      const abort = new AbortController();
      onTestFinished(() => abort.abort());
      const stream = startSteadyStream(await newProducer(client), {
        topic,
        count: MESSAGES,
        queues: QUEUES,
        messagesPerSecond: MESSAGES_PER_SECOND,
        signal: abort.signal,
      });
      await stream.sent(RESTART_AT);
      const firstStop = await poller.end('SIGTERM');
      const requestsAfterFirstRun = fakes.map((fake) => fake.requests);
      await startOnce();
      const sent = await stream.done;
      await waitForLedgers(sent, { ours: () => readLedger(ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      const warnings = distinctWarnings([...firstProcess.logs(), ...poller.current.logs()]);
      const secondStop = await poller.end('SIGTERM');
      rss.stop();

      const summary = summarizeLedger(sent, readLedger(ledgerFile));
      const faces = fakes.map((fake) => `${fake.face} ${fake.requests}`).join(', ');
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...summary,
        processOutcomes: poller.outcomes,
        notes:
          `nameServer: 5 fakes then the real one; lookups answered by each fake: ${faces}; ` +
          `peak VmRSS ${Math.round(rss.peakBytes / MiB)} MB over ${rss.samples} samples (limit ${RSS_LIMIT_BYTES / MiB} MB); ` +
          `\`poller started\` after ${startTimesMs.map((ms) => (ms / 1000).toFixed(1)).join('/')} s; ` +
          `SIGTERM and restart after ${RESTART_AT} sent; warnings: ${warnings.join(' / ')}`,
        durationMs: Date.now() - startedAt,
      });

      for (const [i, fake] of fakes.entries()) {
        expect(requestsAfterFirstRun[i], `${fake.face}: asked by the first poller`).toBeGreaterThan(0);
        expect(fake.requests, `${fake.face}: asked again by the second poller`).toBeGreaterThan(
          requestsAfterFirstRun[i] ?? 0,
        );
      }
      expect(rss.peakBytes, `peak VmRSS ${Math.round(rss.peakBytes / MiB)} MB`).toBeLessThan(RSS_LIMIT_BYTES);
      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(firstStop, poller.output()).toEqual({ code: 0, signal: null });
      expect(secondStop, poller.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});

/** The distinct warn/error messages of a poller's logs, with the error message when there is one. */
function distinctWarnings(logs: readonly Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const line of logs) {
    if (typeof line.level !== 'number' || line.level < 40) continue;
    const err = line.err as { message?: unknown } | undefined;
    const detail = typeof err?.message === 'string' ? `: ${err.message.slice(0, 120)}` : '';
    seen.add(`${String(line.msg)}${detail}`);
  }
  return [...seen];
}
