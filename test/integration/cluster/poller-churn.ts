/**
 * Poller churn on a 2-group master/slave cluster: a topic with 4 queues on each master, one consumer
 * group of `rocketmq-lambda run` pollers (offsets in DynamoDB, dynalite), 3 of them at first. While a
 * producer streams steadily over both masters for a bit over 2 minutes, every 10 s a poller joins or
 * leaves (12 changes, 2 to 4 members): leaves alternate between a graceful SIGTERM and a SIGKILL, the
 * member up longest leaves. After the stream the last members drain the topic.
 *
 * What it proves: at-least-once across every membership change (lost 0), and where duplicates come
 * from (duplicate-attribution.ts): after a SIGKILL, the crashed poller's batches since the last offset
 * the broker or the store kept come again; a graceful hand-over that degrades (batches still running
 * when a queue is given up, a final offset not written: it happens on a machine this loaded) says so
 * in the log. Asserted bounds: no message handled more than 1 + (SIGKILLs) times, and at most one
 * mapping batch per queue and membership change that neither a SIGKILL nor a logged degradation
 * explains. Duplicates are printed per membership change with their causes, and the pollers' log lines
 * about any queue with unexplained duplicates.
 *
 * It runs in the cluster of cluster.test.ts (a topic, a group and a dynalite of its own): a cluster start
 * is five JVMs booting on two cores, the most expensive setup of the integration suite. Run it alone with
 * `npx vitest run --project integration test/integration/cluster/cluster.test.ts -t churn`.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import type { LocalCluster } from '../../../src/local-broker/local-cluster.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { waitFor } from '../../support/wait-for.js';
import { sleep } from '../client/helpers.js';
import { summarizeLedger } from '../faults/delivery-ledger.js';
import { ledgerLines, scenarioDir, writePollerConfig } from '../faults/fault-scenario.js';
import { ClusterPoller, clusterLedgerMapping, inHandlingOrder, type PollerEnd } from './cluster-poller.js';
import { startClusterStream } from './cluster-stream.js';
import {
  attributeDuplicates,
  formatWindows,
  type MembershipChange,
  queueLogLines,
} from './duplicate-attribution.js';
import { clusterClient } from './own-cluster.js';

/** About 140 s of stream and churn, the pollers' boots (up to 3 min on two loaded cores), the drain. */
const TEST_TIMEOUT_MS = 900_000;
const QUEUES_PER_GROUP = 4;
const FIRST_MEMBERS = 3;
/** A membership change this often, from the stream's start. */
const CHANGE_EVERY_MS = 10_000;
/** 12 changes: 6 joins, 3 SIGKILLs, 3 SIGTERMs; members after each: 4 3 2 3 4 3 2 3 2 3 4 3. */
const CHANGES: readonly ('join' | PollerEnd)[] = [
  'join',
  'SIGKILL',
  'SIGTERM',
  'join',
  'join',
  'SIGTERM',
  'SIGKILL',
  'join',
  'SIGKILL',
  'join',
  'join',
  'SIGTERM',
];
const MESSAGES_PER_SECOND = 50;
/** The stream runs on this long once the last change is made and every member consumes. */
const STREAM_TAIL_MS = 5_000;
/** A poller boots in seconds; on two cores shared with five JVMs it has taken 40 s. */
const STARTUP_TIMEOUT_MS = 180_000;
const SEND_BATCH = 10;
/** The mapping's batch, and how long the handler takes for one: batches are in flight at every change. */
const BATCH_SIZE = 10;
const HANDLER_DELAY_MS = 30;
const DRAIN_TIMEOUT_MS = 180_000;

/**
 * Registers the churn test on `cluster()`, a started 2-group master/slave cluster (startOwnCluster's
 * defaults) that the calling file stops.
 *
 * @example
 * ```ts
 * describePollerChurn(() => cluster);
 * ```
 */
export function describePollerChurn(sharedCluster: () => LocalCluster): void {
  describe('poller churn in a 2-group master/slave cluster', () => {
    it(
      'loses nothing while pollers join and leave (SIGTERM and SIGKILL) every 10 s, and its duplicates come from the kills',
      async () => {
        const cluster = sharedCluster();
        const scenarioStartedAt = Date.now();
        const db = await startDynalite();
        onTestFinished(() => db.close());
        const client = clusterClient(cluster);
        onTestFinished(() => client.close());
        const dir = await scenarioDir('churn');
        const topic = uniqueTopic('cl_churn');
        await cluster.createTopic(topic, QUEUES_PER_GROUP);
        const configFile = await writePollerConfig(dir, {
          nameServer: cluster.namesrvAddr,
          offsets: { store: 'dynamodb', table: 'churn_offsets', endpoint: db.endpoint, createTable: true },
          mappings: [
            clusterLedgerMapping(dir, {
              topic,
              consumerGroup: uniqueGroup('cl_churn'),
              batchSize: BATCH_SIZE,
              maximumBatchingWindowMs: 50,
            }),
          ],
        });

        const pollers: ClusterPoller[] = [];
        /** The members in the order they joined (the first one has been up longest). */
        const members: ClusterPoller[] = [];
        const startups = new Map<ClusterPoller, Promise<void>>();
        const join = (): ClusterPoller => {
          const poller = new ClusterPoller(dir, `p${pollers.length + 1}`, configFile, {
            HANDLER_DELAY_MS: String(HANDLER_DELAY_MS),
          });
          pollers.push(poller);
          poller.start();
          const started = poller.started(STARTUP_TIMEOUT_MS);
          // Awaited before the poller leaves and before the stream ends; kept from being unhandled meanwhile.
          started.catch(() => undefined);
          startups.set(poller, started);
          members.push(poller);
          return poller;
        };
        /** A poller is a working member once it has handled messages (it took queues over). */
        const working = async (poller: ClusterPoller): Promise<void> => {
          await startups.get(poller);
          await waitFor(
            `${poller.name} to handle messages`,
            STARTUP_TIMEOUT_MS,
            () => (ledgerLines(poller.ledgerFile) > 0 ? true : undefined),
            { intervalMs: 500 },
          );
        };
        // The first members one after another: three tsx boots at once starve the brokers on two cores.
        for (let i = 0; i < FIRST_MEMBERS; i++) await startups.get(join());

        const producer = new Producer({ client });
        await producer.start();
        onTestFinished(() => producer.shutdown());
        const stream = startClusterStream(producer, {
          topic,
          messagesPerSecond: MESSAGES_PER_SECOND,
          batchSize: SEND_BATCH,
          concurrentBatches: 2 * QUEUES_PER_GROUP,
        });
        onTestFinished(() => stream.stop());
        const streamStartedAt = Date.now();
        const changes: MembershipChange[] = [];
        const leaveExits: { poller: string; signal: PollerEnd; exit: unknown; output: string }[] = [];
        for (const [i, change] of CHANGES.entries()) {
          const dueAt = streamStartedAt + (i + 1) * CHANGE_EVERY_MS;
          if (Date.now() < dueAt) await sleep(dueAt - Date.now());
          if (stream.failure() !== undefined) break;
          let atMs = Date.now() - streamStartedAt;
          let what: string;
          if (change === 'join') {
            // Not awaited: a poller boots for seconds (tens of seconds on a loaded machine) and the
            // schedule goes on meanwhile, as an autoscaler's does.
            what = `${join().name} joins`;
          } else {
            // The member up longest leaves: it has held queues through the most rebalances. One still
            // booting or not yet consuming is waited for (a process killed before it consumed tests nothing).
            const leaving = members.shift();
            if (leaving === undefined) throw new Error('no member left to leave');
            await working(leaving);
            atMs = Date.now() - streamStartedAt;
            const exit = await leaving.end(change);
            leaveExits.push({ poller: leaving.name, signal: change, exit, output: leaving.output() });
            what = `${leaving.name} ${change === 'SIGKILL' ? 'SIGKILLed' : 'leaves (SIGTERM)'}`;
          }
          const membersAfter = members.map((p) => `${p.name}${p.runningAtMs === undefined ? '*' : ''}`);
          changes.push({ index: i + 1, atMs, what, membersAfter });
        }
        // The last joiners consume from the stream before it ends.
        await Promise.all(members.map(working));
        await sleep(STREAM_TAIL_MS);
        stream.stop();
        const sent = await stream.done;
        const streamMs = Date.now() - streamStartedAt;

        const readAll = () => inHandlingOrder(pollers.map((p) => p.entries()));
        const sentIds = new Set(sent);
        await waitFor(
          `all ${sent.length} messages handled`,
          DRAIN_TIMEOUT_MS,
          () => {
            const handled = new Set(readAll().map((e) => e.messageId));
            let missing = 0;
            for (const id of sentIds) if (!handled.has(id)) missing++;
            if (missing > 0) throw new Error(`${missing} not handled yet`);
            return true;
          },
          { intervalMs: 500 },
        );
        const drainedMs = Date.now() - streamStartedAt;
        for (const poller of [...members]) {
          const exit = await poller.end('SIGTERM');
          leaveExits.push({ poller: poller.name, signal: 'SIGTERM', exit, output: poller.output() });
        }

        const entries = readAll();
        const summary = summarizeLedger(sent, entries);
        const killed = new Set(pollers.filter((p) => p.ended?.signal === 'SIGKILL').map((p) => p.name));
        const logs = new Map(pollers.map((p) => [p.name, p.logs()]));
        const attribution = attributeDuplicates({
          entries,
          changes,
          streamStartedAt,
          firstMembers: pollers.slice(0, FIRST_MEMBERS).map((p) => p.name),
          killed,
          logs,
          topic,
        });
        console.info(
          `[cluster] poller churn: scenario ${((Date.now() - scenarioStartedAt) / 1000).toFixed(0)} s; ${sent.length} sent in ${(streamMs / 1000).toFixed(0)} s at ${MESSAGES_PER_SECOND}/s ` +
            `(${[...stream.perBroker].map(([b, n]) => `${b} ${n}`).join(', ')}), drained ` +
            `${((drainedMs - streamMs) / 1000).toFixed(0)} s after the last send; ledger: sent ${summary.sent}, ` +
            `delivered ${summary.delivered}, lost ${summary.lost}, duplicates ${summary.duplicates}, ` +
            `max handlings of one message ${attribution.maxHandlings}; boot to \`poller started\` ` +
            pollers
              .map(
                (p) =>
                  `${p.name} ${(((p.runningAtMs ?? Number.NaN) - (p.startedAtMs ?? 0)) / 1000).toFixed(1)} s`,
              )
              .join(', ') +
            '; handled per poller ' +
            pollers
              .map((p) => `${p.name} ${p.entries().length}${p.ended ? ` (${p.ended.signal})` : ''}`)
              .join(', '),
        );
        console.info(
          `[cluster] poller churn, duplicates per membership change (window = from the change to the next; * = no \`poller started\` line yet, though it may consume already):\n${formatWindows(attribution.windows)}`,
        );
        console.info(
          `[cluster] poller churn, duplicates by the SIGKILLed poller that had handled them first: ${
            [...attribution.byKilledPoller].map(([p, n]) => `${p} ${n}`).join(', ') || 'none'
          }; redelivery announced in the logs for ${attribution.announcedFor.join(' ') || 'nothing'}; leaves: ${leaveExits
            .map((l) => `${l.poller} ${l.signal} -> ${JSON.stringify(l.exit)}`)
            .join(', ')}`,
        );

        if (attribution.unexplained > 0) {
          const lines = queueLogLines(logs, topic, attribution.unexplainedQueues, streamStartedAt);
          console.info(
            `[cluster] poller churn, the pollers' log lines about ${attribution.unexplainedQueues.join(' ')}, ` +
              `the queues of unexplained duplicates (s from the stream's start):\n${lines.slice(-80).join('\n')}`,
          );
        }

        expect(stream.failure(), 'the stream kept sending').toBeUndefined();
        expect(changes).toHaveLength(CHANGES.length);
        expect(stream.perBroker.get('broker-a') ?? 0, 'broker-a got messages').toBeGreaterThan(0);
        expect(stream.perBroker.get('broker-b') ?? 0, 'broker-b got messages').toBeGreaterThan(0);
        expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
        expect(summary.delivered).toBe(sent.length);
        expect(summary.unexpected).toBe(0);
        for (const leave of leaveExits) {
          if (leave.signal === 'SIGTERM')
            expect(leave.exit, `${leave.poller} stopped gracefully\n${leave.output}`).toEqual({
              code: 0,
              signal: null,
            });
        }
        // Each crash repeats a message at most once more (the successor starts past what the crashed
        // poller's pulls or persists committed, never before an earlier owner's released offset).
        expect(attribution.maxHandlings).toBeLessThanOrEqual(1 + killed.size);
        // A queue that changes hands without a hand-over restarts at the offset the old owner's last pull
        // committed: at this stream rate it pulls about once per batch, so at most one batch comes again.
        expect(
          attribution.maxUnexplainedPerQueueAndWindow,
          `duplicates neither after a SIGKILL nor announced, e.g. ${attribution.unexplainedExamples.join('; ')}`,
        ).toBeLessThanOrEqual(BATCH_SIZE);
      },
      TEST_TIMEOUT_MS,
    );
  });
}
