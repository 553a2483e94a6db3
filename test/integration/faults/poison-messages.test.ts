/**
 * Fault scenario "poison messages" (issue 29, the decompression bomb): during a steady stream, a producer
 * writes bombs to the topic: bodies of about 60 KB, flagged zlib-compressed, that inflate to 60 MiB each.
 * The broker stores them as sent (it never inflates a body), so any client allowed to write the topic can
 * do this. Before the inflation limits, one pull of 32 of them took a poller past 2 GB. Our poller process
 * must keep its memory bounded, never inflate a bomb, hand each to the DLQ (where it stays exactly as
 * sent), consume every other message, and stop cleanly.
 */

import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { waitFor } from '../../support/wait-for.js';
import { readLedger } from '../cli/poller-process.js';
import { pullHeader } from '../client/helpers.js';
import { createTopic, newClient, newProducer, sendStoredBody } from '../consumer/helpers.js';
import { summarizeLedger } from './delivery-ledger.js';
import {
  ledgerMapping,
  PollerSeries,
  scenarioDir,
  waitForLedgers,
  writePollerConfig,
} from './fault-scenario.js';
import { RssSampler } from './rss-sampler.js';
import { startSteadyStream } from './steady-stream.js';

const SCENARIO = 'poison messages (decompression bombs)';
const TEST_TIMEOUT_MS = 150_000;
const QUEUES = 4;
const MESSAGES = 2_000;
const MESSAGES_PER_SECOND = 400;
/** Bombs per queue, sent back to back once the stream is under way: more than one pull's worth. */
const BOMBS_PER_QUEUE = 40;
const MiB = 1024 * 1024;
/** What each bomb inflates to: under the old 64 MiB cap, ten times the new 6 MiB one. */
const BOMB_BYTES = 60 * MiB;
/** A poller idles at ~100-150 MB (the hostile name server scenario allows 300 MB too). */
const RSS_LIMIT_BYTES = 300 * MiB;
const CATCH_UP_TIMEOUT_MS = 90_000;

describe(SCENARIO, () => {
  it(
    'keeps memory bounded, dead-letters every bomb uninflated, and consumes everything else',
    async () => {
      const startedAt = Date.now();
      const dir = await scenarioDir('poison');
      const db = await startDynalite();
      onTestFinished(() => db.close());
      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('fault_poison');
      const group = uniqueGroup('fault_poison');
      await createTopic(client, topic, QUEUES);
      const ledgerFile = path.join(dir, 'ledger');
      const config = await writePollerConfig(dir, {
        offsets: { store: 'dynamodb', table: 'fault_offsets', endpoint: db.endpoint, createTable: true },
        mappings: [ledgerMapping(dir, { topic, consumerGroup: group })],
      });
      const poller = new PollerSeries(config, {
        LEDGER_FILE: ledgerFile,
        ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(dir, 'health'),
      });
      const rss = new RssSampler({ intervalMs: 100 });
      rss.watch(poller.start().child.pid);
      await poller.started();

      const abort = new AbortController();
      onTestFinished(() => abort.abort());
      const stream = startSteadyStream(await newProducer(client), {
        topic,
        count: MESSAGES,
        queues: QUEUES,
        messagesPerSecond: MESSAGES_PER_SECOND,
        signal: abort.signal,
      });
      await stream.sent(MESSAGES / 4);
      const bomb = deflateSync(Buffer.alloc(BOMB_BYTES), { level: 9 });
      const bombIds: string[] = [];
      for (let queueId = 0; queueId < QUEUES; queueId++) {
        for (let i = 0; i < BOMBS_PER_QUEUE; i++) {
          const id = `B0MB${String(queueId).padStart(4, '0')}${String(i).padStart(24, '0')}`;
          await sendStoredBody(client, topic, { id, stored: bomb, queueId });
          bombIds.push(id);
        }
      }
      const sent = await stream.done;
      await waitForLedgers(sent, { ours: () => readLedger(ledgerFile) }, CATCH_UP_TIMEOUT_MS);
      const inDlq = await waitFor(`${bombIds.length} bombs in the DLQ`, 30_000, async () => {
        const ids = await dlqIds(client, group);
        return ids.length >= bombIds.length ? ids : undefined;
      });
      const logs = poller.current.logs();
      const tooLargeLines = logs.filter(
        (line) => line.msg === 'messages too large to inflate: sent to the DLQ',
      );
      const stop = await poller.end('SIGTERM');
      rss.stop();

      const entries = [...readLedger(ledgerFile)];
      const summary = summarizeLedger(sent, entries);
      const bombsDelivered = entries.filter((entry) => bombIds.includes(entry.messageId)).length;
      // One line per pull names the pull's bombs; `count` says how many it sent to the DLQ.
      const tooLargeTotal = tooLargeLines.reduce(
        (sum, line) => sum + (typeof line.count === 'number' ? line.count : 0),
        0,
      );
      await recordFaultOutcome({
        scenario: SCENARIO,
        consumer: 'rocketmq-lambda',
        ...summary,
        processOutcomes: poller.outcomes,
        notes:
          `${bombIds.length} bombs (${bomb.length} bytes stored, ${BOMB_BYTES / MiB} MiB inflated each) among ` +
          `${MESSAGES} messages on ${QUEUES} queues; bombs in the DLQ ${inDlq.length}, delivered ${bombsDelivered}; ` +
          `peak VmRSS ${Math.round(rss.peakBytes / MiB)} MB over ${rss.samples} samples (limit ${RSS_LIMIT_BYTES / MiB} MB); ` +
          `"too large to inflate" log lines ${tooLargeLines.length} naming ${tooLargeTotal} bombs`,
        durationMs: Date.now() - startedAt,
      });

      expect(rss.peakBytes, `peak VmRSS ${Math.round(rss.peakBytes / MiB)} MB`).toBeLessThan(RSS_LIMIT_BYTES);
      expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
      expect(bombsDelivered).toBe(0);
      expect([...inDlq].sort()).toEqual([...bombIds].sort());
      expect(tooLargeTotal, `${tooLargeLines.length} lines`).toBeGreaterThanOrEqual(bombIds.length);
      expect(stop, poller.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});

/** The ids of everything in the group's DLQ: too large for the default limit, read without inflating. */
async function dlqIds(client: RocketMQClient, group: string): Promise<string[]> {
  const ids: string[] = [];
  let offset = 0;
  for (;;) {
    const result = await client.broker.pullMessage(
      testBroker().brokerAddr,
      pullHeader({
        group: uniqueGroup('dlqreader'),
        topic: dlqTopicOf(group),
        queueId: 0,
        queueOffset: offset,
      }),
    );
    if (result.status !== 'FOUND') return ids;
    const found = [...result.messages, ...(result.tooLarge ?? []).map((t) => t.message)];
    if (found.length === 0) return ids;
    for (const message of found) ids.push(message.msgId);
    offset = Math.max(...found.map((m) => m.queueOffset)) + 1;
  }
}
