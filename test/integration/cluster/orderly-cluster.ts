/**
 * An orderly mapping (`orderly: true`) over a topic spread over both groups of a 2-group master/slave
 * cluster, consumed by two `rocketmq-lambda run` pollers of one group (offsets in DynamoDB, dynalite).
 * Messages carry a sharding key and a per-key sequence number; the producer sends each key's messages
 * one after another to the queue its key hashes to (Java's SelectMessageQueueByHash), so every key lives
 * in one queue of one broker group and its sequence follows the queue's offsets. Mid-drain one poller is
 * SIGKILLed while it holds its queues' broker locks: the survivor may take its queues only once the
 * masters let the dead poller's locks expire, and then carries on from the last offset kept.
 *
 * The broker's lock lease (`rocketmq.broker.rebalance.lockMaxLiveTime`, 60 s by default) is set to 25 s on
 * the cluster's JVMs ({@link ORDERLY_CLUSTER_JVM_OPTIONS}) so that the takeover fits a CI run: still longer than the 20 s at which a live
 * poller renews its locks (queue-lock-manager.ts), so a live poller never loses a lock it holds.
 *
 * What it proves, with the ledger of both pollers merged in handling order (orderly-ledger.ts defines
 * each check): lost 0; order violations 0 per queue and per key (first handlings in order without a gap,
 * every batch a consecutive run, a redelivery only over an already-handled prefix); no two batches of one
 * queue by different pollers at the same time; the survivor handles every queue the dead poller held;
 * every duplicate is a message the dead poller had handled, at most once more.
 *
 * It runs in the cluster of cluster.test.ts (a topic, a group and a dynalite of its own), which starts its
 * JVMs with {@link ORDERLY_CLUSTER_JVM_OPTIONS}. Run it alone with
 * `npx vitest run --project integration test/integration/cluster/cluster.test.ts -t orderly`.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import type { LocalCluster } from '../../../src/local-broker/local-cluster.js';
import { describeError } from '../../../src/util/describe-error.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { waitFor } from '../../support/wait-for.js';
import { sleep } from '../client/helpers.js';
import { summarizeLedger } from '../faults/delivery-ledger.js';
import { scenarioDir, writePollerConfig } from '../faults/fault-scenario.js';
import { ClusterPoller, clusterLedgerMapping, inHandlingOrder, queueName } from './cluster-poller.js';
import { checkOrder } from './orderly-ledger.js';
import { clusterClient } from './own-cluster.js';

/** The scenario: about a minute, several on two loaded cores. */
const TEST_TIMEOUT_MS = 360_000;
const QUEUES_PER_GROUP = 4;
/** The broker's queue lock lease on this cluster (see the file comment). */
const LOCK_LEASE_MS = 25_000;
/** The JVM options the shared cluster starts with for this scenario: the lock lease above. */
export const ORDERLY_CLUSTER_JVM_OPTIONS: readonly string[] = [
  `-Drocketmq.broker.rebalance.lockMaxLiveTime=${LOCK_LEASE_MS}`,
];
const KEYS = 40;
const MESSAGES_PER_KEY = 60;
/** Small batches that take a while: the drain lasts long enough to kill a poller in its middle. */
const BATCH_SIZE = 5;
const HANDLER_DELAY_MS = 300;
/** After both pollers are in the group: time for the rebalance that splits the queues between them. */
const SETTLE_MS = 5000;
/** The victim is killed once it has handled this many (and the survivor some). */
const KILL_AFTER_HANDLED = 300;
/** After that, the kill waits this long: it lands at a moment unrelated to a ledger write, as a crash does. */
const KILL_DELAY_MS = 700;
/** Lease expiry, the survivor's lock retries and the rest of the drain. */
const DRAIN_TIMEOUT_MS = 150_000;

/** The scenario, on the cluster `sharedCluster` returns (started with {@link ORDERLY_CLUSTER_JVM_OPTIONS}). */
export function describeOrderlyCluster(sharedCluster: () => LocalCluster): void {
  describe('orderly mapping across two broker groups with a poller SIGKILLed', () => {
    it(
      "keeps every queue's and key's order, loses nothing, and the survivor takes over once the dead poller's locks expire",
      async () => {
        const cluster = sharedCluster();
        const scenarioStartedAt = Date.now();
        const db = await startDynalite();
        onTestFinished(() => db.close());
        const client = clusterClient(cluster);
        onTestFinished(() => client.close());
        const dir = await scenarioDir('orderly-cluster');
        const topic = uniqueTopic('cl_order');
        await cluster.createTopic(topic, QUEUES_PER_GROUP);

        const group = uniqueGroup('cl_order');
        const configFile = await writePollerConfig(dir, {
          nameServer: cluster.namesrvAddr,
          offsets: { store: 'dynamodb', table: 'orderly_offsets', endpoint: db.endpoint, createTable: true },
          mappings: [
            clusterLedgerMapping(dir, {
              topic,
              consumerGroup: group,
              orderly: true,
              batchSize: BATCH_SIZE,
              maximumBatchingWindowMs: 50,
            }),
          ],
        });
        // Both pollers hold their share of the queues before the messages come: a poller that boots
        // while the other drains a backlog finds nothing left (tsx boots take tens of seconds on a loaded
        // machine), and the kill must find both consuming.
        const env = { HANDLER_DELAY_MS: String(HANDLER_DELAY_MS) };
        const victim = new ClusterPoller(dir, 'victim', configFile, env);
        const survivor = new ClusterPoller(dir, 'survivor', configFile, env);
        victim.start();
        await victim.started();
        survivor.start();
        await survivor.started();
        await waitFor('both pollers in the group on both masters', 60_000, async () => {
          for (const g of cluster.groups) {
            if ((await client.broker.getConsumerListByGroup(g.master.address, group)).length !== 2)
              return undefined;
          }
          return true;
        });
        // The rebalance after the second poller registered: the first hands its half over (unlocks it).
        await sleep(SETTLE_MS);
        const pollersStartedAt = Date.now();

        // Each key's messages one after another (so seq order is offset order), the keys side by side.
        // In the background: the victim is killed when it has handled its share, sends or not.
        const producer = new Producer({ client });
        await producer.start();
        onTestFinished(() => producer.shutdown());
        const sent: string[] = [];
        const queueOfKey = new Map<string, Set<string>>();
        const lastOffsetOfKey = new Map<string, number>();
        let keyOffsetsBackwards = 0;
        const keys = Array.from({ length: KEYS }, (_, k) => `key-${String(k).padStart(2, '0')}`);
        const produceStartedAt = Date.now();
        const producing = (async () => {
          for (let seq = 0; seq < MESSAGES_PER_KEY; seq++) {
            const results = await Promise.all(
              keys.map((shardKey) =>
                producer.send(
                  { topic, body: `${shardKey} ${seq}`, properties: { shardKey, seq: String(seq) } },
                  { shardingKey: shardKey },
                ),
              ),
            );
            for (const [k, result] of results.entries()) {
              const key = keys[k] as string;
              sent.push(result.msgId);
              const queues = queueOfKey.get(key) ?? new Set<string>();
              queues.add(queueName(result));
              queueOfKey.set(key, queues);
              if (result.queueOffset <= (lastOffsetOfKey.get(key) ?? -1)) keyOffsetsBackwards++;
              lastOffsetOfKey.set(key, result.queueOffset);
            }
          }
          return Date.now() - produceStartedAt;
        })();
        // Awaited after the kill; kept from being unhandled meanwhile.
        producing.catch(() => undefined);

        await waitFor(`the victim to handle ${KILL_AFTER_HANDLED} and the survivor some`, 120_000, () => {
          const handled = { victim: victim.entries().length, survivor: survivor.entries().length };
          if (handled.victim < KILL_AFTER_HANDLED || handled.survivor === 0)
            throw new Error(`handled: victim ${handled.victim}, survivor ${handled.survivor}`);
          return true;
        }).catch((error: unknown) => {
          throw new Error(
            `${describeError(error)}\nvictim ${victim.output()}\nsurvivor ${survivor.output()}`,
            {
              cause: error,
            },
          );
        });
        await sleep(KILL_DELAY_MS);
        const killedAt = Date.now();
        await victim.end('SIGKILL');
        const beforeKill = inHandlingOrder([victim.entries(), survivor.entries()]);
        // The queues the victim held at its death: those whose latest handling was its own.
        const lastPoller = new Map<string, string>();
        for (const entry of beforeKill) lastPoller.set(queueName(entry), entry.poller);
        const victimQueues = [...lastPoller].filter(([, poller]) => poller === victim.name).map(([q]) => q);
        const handledAtKill = new Set(beforeKill.map((e) => e.messageId)).size;
        const sentAtKill = sent.length;
        const produceMs = await producing;
        const keyQueues = new Set([...queueOfKey.values()].flatMap((queues) => [...queues]));
        // The producer side: each key in one queue, in seq order, keys on both broker groups.
        expect([...queueOfKey.values()].every((queues) => queues.size === 1)).toBe(true);
        expect(keyOffsetsBackwards).toBe(0);
        expect(new Set([...keyQueues].map((q) => q.split(':')[0]))).toEqual(
          new Set(['broker-a', 'broker-b']),
        );

        await waitFor(
          `all ${sent.length} messages handled`,
          DRAIN_TIMEOUT_MS,
          () => {
            const handled = new Set(
              inHandlingOrder([victim.entries(), survivor.entries()]).map((e) => e.messageId),
            );
            const missing = sent.filter((id) => !handled.has(id)).length;
            if (missing > 0) throw new Error(`${missing} not handled yet`);
            return true;
          },
          { intervalMs: 1000 },
        ).catch((error: unknown) => {
          throw new Error(`${describeError(error)}\nsurvivor ${survivor.output()}`, { cause: error });
        });
        const drainedAt = Date.now();
        // The survivor's refused lock attempts on the victim's queues after the kill: the masters kept the
        // dead poller's locks until their lease ran out (reported, not asserted: it depends on timing).
        const refusedAfterKill = survivor.logs().filter((line) => {
          const queue = line.queue as { topic?: string; brokerName?: string; queueId?: number } | undefined;
          return (
            typeof line.msg === 'string' &&
            line.msg.startsWith('orderly: queue lock refused') &&
            typeof line.time === 'number' &&
            line.time >= killedAt &&
            queue?.topic === topic &&
            victimQueues.includes(`${queue.brokerName}:${queue.queueId}`)
          );
        }).length;
        const survivorStop = await survivor.end('SIGTERM');
        const scenarioMs = Date.now() - scenarioStartedAt;

        const entries = inHandlingOrder([victim.entries(), survivor.entries()]);
        const summary = summarizeLedger(sent, entries);
        const check = checkOrder(entries, { batchMs: HANDLER_DELAY_MS });
        const takeoverMs = victimQueues.map((queue) => {
          const first = entries.find(
            (e) => queueName(e) === queue && e.poller === survivor.name && e.atMs >= killedAt,
          );
          return first === undefined ? undefined : first.atMs - killedAt;
        });
        const handledByVictim = new Set(victim.entries().map((e) => e.messageId));
        const counts = new Map<string, number>();
        for (const entry of entries) counts.set(entry.messageId, (counts.get(entry.messageId) ?? 0) + 1);
        const duplicatesNotOfVictim = [...counts]
          .filter(([id, n]) => n > 1 && !handledByVictim.has(id))
          .map(([id]) => id);
        const maxHandlings = Math.max(...counts.values());
        console.info(
          `[cluster] orderly: scenario ${(scenarioMs / 1000).toFixed(0)} s; ` +
            `${sent.length} messages (${KEYS} keys x ${MESSAGES_PER_KEY}) on ${keyQueues.size} queues ` +
            `(${[...keyQueues].sort().join(' ')}) produced in ${(produceMs / 1000).toFixed(1)} s; victim SIGKILLed ` +
            `${((killedAt - pollersStartedAt) / 1000).toFixed(1)} s into the drain with ${sentAtKill} sent and ${handledAtKill} handled, ` +
            `holding ${victimQueues.join(' ') || 'no queue'}; survivor's first handling of each: ` +
            `${takeoverMs.map((ms) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`)).join(' / ')} after the kill ` +
            `(lease ${LOCK_LEASE_MS / 1000} s; ${refusedAfterKill} lock attempts of the survivor refused before); drained ${((drainedAt - killedAt) / 1000).toFixed(1)} s after the kill; ` +
            `ledger: sent ${summary.sent}, delivered ${summary.delivered}, lost ${summary.lost}, duplicates ${summary.duplicates} ` +
            `(max ${maxHandlings} handlings of one message, ${check.redeliveredBatches} redelivered batches), ` +
            `queue order violations ${check.queueViolations}, key order violations ${check.keyViolations}, ` +
            `concurrent batches of one queue ${check.concurrentBatches}; handled per queue ` +
            [...check.handledPerQueue]
              .sort()
              .map(([q, n]) => `${q} ${n}`)
              .join(', '),
        );

        expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
        expect(summary.delivered).toBe(sent.length);
        expect(summary.unexpected).toBe(0);
        expect(check.queueViolations, check.queueViolationExamples.join('\n')).toBe(0);
        expect(check.keyViolations, check.keyViolationExamples.join('\n')).toBe(0);
        expect(check.keysInSeveralQueues).toEqual([]);
        expect(check.concurrentBatches, check.concurrentBatchExamples.join('\n')).toBe(0);
        expect(victimQueues.length, 'the victim held queues when it was killed').toBeGreaterThan(0);
        expect(
          takeoverMs.every((ms) => ms !== undefined),
          "the survivor handled every queue the victim held after the kill (when the victim's queue had messages left)",
        ).toBe(true);
        expect(duplicatesNotOfVictim, 'only what the dead poller had handled comes again').toEqual([]);
        expect(maxHandlings).toBeLessThanOrEqual(2);
        expect(survivorStop, survivor.output()).toEqual({ code: 0, signal: null });
      },
      TEST_TIMEOUT_MS,
    );
  });
}
