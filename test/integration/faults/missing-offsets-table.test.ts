/**
 * Fault scenario "offsets table missing": our poller with DynamoDB offsets and `createTable` off,
 * against a DynamoDB (dynalite) without the table. That is a deployment mistake no retry cures: the
 * poller must stop at once (exit 1) with a line naming the table and `offsets.createTable`, having
 * consumed nothing. Then the same poller allowed to create the table consumes every message.
 */
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { readLedger } from '../cli/poller-process.js';
import { createTopic, newClient, newProducer, produce } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import {
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { exitWithin } from './poller-exit.js';
import { causeOf } from './poller-variant.js';

const TEST_TIMEOUT_MS = 90_000;
const SCENARIO = 'offsets table missing';
const QUEUES = 4;
const MESSAGES = 400;
const TABLE = 'fault_missing_offsets';
/** "A few seconds": the table check is the first thing a mapping does. */
const REFUSAL_WITHIN_MS = 15_000;
const CATCH_UP_TIMEOUT_MS = 60_000;

describe(SCENARIO, () => {
  it(
    'exits 1 at once naming the table and offsets.createTable; with createTable it consumes everything',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('table');
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('fault_table');
      const group = uniqueGroup('fault_table');
      await createTopic(client, topic, QUEUES);
      const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES, batch: 50 });
      const ledgerFile = path.join(dir, 'ledger');
      const env = { LEDGER_FILE: ledgerFile, ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(dir, 'health') };
      const mapping = ledgerMapping(dir, { topic, consumerGroup: group });

      const refused = new PollerSeries(
        await writePollerConfig(dir, {
          offsets: { store: 'dynamodb', table: TABLE, endpoint: db.endpoint },
          mappings: [mapping],
        }),
        env,
      );
      const refusedStartedAt = Date.now();
      const refusedProcess = refused.start();
      const refusedExit = await exitWithin(refused, REFUSAL_WITHIN_MS);
      const refusalMs = Date.now() - refusedStartedAt;
      // Still running: ended here so that it cannot consume alongside the next poller (the test fails below).
      if (refusedExit === undefined) await refused.end('SIGKILL');
      const lastLine = refusedProcess.stderr().trim().split('\n').at(-1) ?? '';
      const deliveredWhileRefused = summarizeLedger(sent, readLedger(ledgerFile)).delivered;

      const allowed = new PollerSeries(
        await writePollerConfig(dir, {
          offsets: { store: 'dynamodb', table: TABLE, endpoint: db.endpoint, createTable: true },
          mappings: [mapping],
        }),
        env,
      );
      allowed.start();
      await allowed.started();
      await waitForLedgers(sent, { ours: () => readLedger(ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      const allowedStop = await allowed.end('SIGTERM');

      const summary = summarizeLedger(sent, readLedger(ledgerFile));
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...summary,
        processOutcomes: [...refused.outcomes, ...allowed.outcomes],
        notes:
          `DynamoDB offsets, table ${TABLE} absent, createTable off: ${refusedExit === undefined ? 'still running' : `exit ${String(refusedExit.code)}`} after ` +
          `${(refusalMs / 1000).toFixed(1)} s (process start included), ${deliveredWhileRefused} of ${MESSAGES} ` +
          `consumed (a refusal, not a loss): "${causeOf(lastLine)}"; then createTable: true consumed all`,
        durationMs: Date.now() - startedAt,
      });

      expect(refusedExit, refused.output()).toEqual({ code: 1, signal: null });
      expect(lastLine).toContain(TABLE);
      expect(lastLine).toContain('offsets.createTable');
      expect(deliveredWhileRefused).toBe(0);
      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(allowedStop, allowed.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});
