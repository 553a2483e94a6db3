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
import { pollerVariant } from './poller-variant.js';

const QUEUES = 4;
const MESSAGES = 200;
/**
 * How often the pollers started during the outage write their offsets (the default is 5 s): every
 * second, so that the rest of the outage holds failed writes of what they consumed.
 */
const PERSIST_INTERVAL_MS = 1_000;
/**
 * DynamoDB stays down this long after the pollers started and the messages were produced: they consume
 * the messages and fail to write their offsets twice ({@link PERSIST_INTERVAL_MS}), as they failed once
 * in the 5 s this was at the default interval.
 */
const STILL_DOWN_MS = 2_000;

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

    // Both settings of createTable go through the same outage side by side, each a poller of its own
    // (own group, config and ledger) started while DynamoDB is down, as an orchestrator would restart one.
    const variants = await Promise.all(
      [true, false].map(async (createTable) => ({
        createTable,
        ...(await pollerVariant(dir, `create-table-${String(createTable)}`, (at) => ({
          offsets: { ...offsets, createTable, persistIntervalMs: PERSIST_INTERVAL_MS },
          mappings: [ledgerMapping(at, { topic, consumerGroup: uniqueGroup('fault_ddbstart') })],
        }))),
      })),
    );
    for (const { poller } of variants) poller.start();
    await Promise.all(variants.map(({ poller }) => poller.started()));
    const producer = await newProducer(client);
    const sent = await produce(producer, topic, MESSAGES, { queues: QUEUES, batch: 10 });
    await sleep(STILL_DOWN_MS); // the rest of the outage: a fault's length, not a wait for something
    await db.start();
    await Promise.all(
      variants.map(({ ledgerFile }) => waitForLedgers(sent, { ours: () => readLedger(ledgerFile) }, 60_000)),
    );
    const warned = variants.map(({ poller }) =>
      poller.current
        .logs()
        .some((line) => typeof line.msg === 'string' && line.msg.startsWith('offsets table not reachable')),
    );
    const stops = await Promise.all(variants.map(({ poller }) => poller.end('SIGTERM')));
    variants.forEach(({ createTable, ledgerFile, poller }, i) => {
      const which = `createTable ${String(createTable)}`;
      expect(stops[i], `${which}: ${poller.output()}`).toEqual({ code: 0, signal: null });
      expect(summarizeLedger(sent, readLedger(ledgerFile)).lost, which).toBe(0);
      expect(warned[i], `${which}: the poller said the offsets table was not reachable at start`).toBe(true);
    });
  }, 180_000);
});
