/**
 * A poller (re)started while DynamoDB is unreachable: found by the soak (`npm run soak`, seed 172, at
 * +00:27 of its short CI run, a poller SIGKILLed during a DynamoDB outage was started again before
 * DynamoDB came back and exited 1: `mapping ... could not start: cannot describe table ...
 * ECONNREFUSED`). An orchestrator restarting it during the outage would see it die again and again,
 * while a running poller consumes through the same outage (dynamodb-down.test.ts). It must start,
 * say that the offsets table is not reachable yet, consume, and keep its offsets once DynamoDB is back.
 */
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDurableDynalite } from '../../support/dynalite.js';
import { readLedger } from '../cli/poller-process.js';
import { sleep } from '../client/helpers.js';
import { createTopic, newClient, newProducer, produce } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import {
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';

const QUEUES = 4;
const MESSAGES = 200;
/** DynamoDB stays down this long after the poller started. */
const STILL_DOWN_MS = 5_000;

describe('DynamoDB down while a poller starts', () => {
  it('starts, consumes, and writes its offsets once DynamoDB is back (createTable on and off)', async () => {
    const dir = await scenarioDir('ddb-start');
    const db = await startDurableDynalite(path.join(dir, 'dynamodb'));
    onTestFinished(() => db.close());
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('fault_ddbstart');
    await createTopic(client, topic, QUEUES);
    const ledgerFile = path.join(dir, 'ledger');
    const offsets = { store: 'dynamodb' as const, table: 'ddbstart_offsets', endpoint: db.endpoint };
    // The table exists (a first poller made it), as in production, then DynamoDB goes away.
    const first = new PollerSeries(
      await writePollerConfig(dir, {
        offsets: { ...offsets, createTable: true },
        mappings: [ledgerMapping(dir, { topic, consumerGroup: uniqueGroup('fault_ddbstart') })],
      }),
      { LEDGER_FILE: ledgerFile },
    );
    first.start();
    await first.started();
    expect(await first.end('SIGTERM')).toEqual({ code: 0, signal: null });
    await db.stop();

    for (const createTable of [true, false]) {
      const group = uniqueGroup('fault_ddbstart');
      const poller = new PollerSeries(
        await writePollerConfig(dir, {
          offsets: { ...offsets, createTable },
          mappings: [ledgerMapping(dir, { topic, consumerGroup: group })],
        }),
        { LEDGER_FILE: ledgerFile },
      );
      poller.start();
      await poller.started();
      const producer = await newProducer(client);
      const sent = await produce(producer, topic, MESSAGES, { queues: QUEUES, batch: 10 });
      await sleep(STILL_DOWN_MS); // the rest of the outage: a fault's length, not a wait for something
      await db.start();
      await waitForLedgers(sent, { ours: () => readLedger(ledgerFile) }, 60_000);
      const warned = poller.current
        .logs()
        .some((line) => typeof line.msg === 'string' && line.msg.startsWith('offsets table not reachable'));
      expect(await poller.end('SIGTERM'), poller.output()).toEqual({ code: 0, signal: null });
      expect(summarizeLedger(sent, readLedger(ledgerFile)).lost).toBe(0);
      expect(warned, 'the poller said the offsets table was not reachable at start').toBe(true);
      await db.stop();
    }
  }, 180_000);
});
