/**
 * A master SIGKILLed mid-drain, in a cluster of two broker groups of a master and a slave. 3,000
 * messages wait on both masters (4 queues each) and the slaves have caught up; a consumer drains them
 * slowly, failing 1 message in 20 on its first delivery (send-back to `%RETRY%<group>`). A sixth into
 * the drain broker-a's master is SIGKILLed: the name server drops it from the route, the consumer's
 * pulls of broker-a's queues go to its slave (Java's fall-back when the master is absent), a failed
 * broker-a message is produced to `%RETRY%<group>` on broker-b instead of being sent back (Java's
 * fall-back, message-send-back.ts), and offset commits of broker-a wait for the master. It comes back on its store after a while; the
 * ledger then must show every message handled (lost 0), duplicates reported, and broker-a's master must
 * hold the group's offsets at the ends of its queues again.
 *
 * It runs in the cluster of cluster.test.ts (a topic and a group of its own), last, as it restarts
 * broker-a's master. Run it alone with
 * `npx vitest run --project integration test/integration/cluster/cluster.test.ts -t "master SIGKILL"`.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import type { LocalCluster } from '../../../src/local-broker/local-cluster.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { waitFor } from '../../support/wait-for.js';
import { sleep } from '../client/helpers.js';
import { FAST, Ledger } from '../consumer/helpers.js';
import { summarizeLedger } from '../faults/delivery-ledger.js';
import { clusterClient, spyOnPulls } from './own-cluster.js';

const TEST_TIMEOUT_MS = 540_000;
const QUEUES_PER_GROUP = 4;
const MESSAGES = 3_000;
/** broker-a's master is killed once this many messages were handled. */
const KILL_AFTER_HANDLED = 500;
/** How long the master stays dead before its restart (which takes its own 15-40 s on 2 cores). */
const DOWN_MS = 10_000;
/** One message in this many fails its first delivery. */
const FAIL_ONE_IN = 20;
/** Each batch takes this long: the drain outlasts the kill. */
const BATCH_MS = 150;
const BATCH_SIZE = 8;

/** The scenario, on the cluster `sharedCluster` returns; the last one to use it (it restarts a master). */
export function describeMasterSigkill(sharedCluster: () => LocalCluster): void {
  describe('master SIGKILL mid-drain in a 2-group master/slave cluster', () => {
    it(
      "keeps consuming broker-a's queues from its slave, loses nothing, and commits to the master once it is back",
      async () => {
        const cluster = sharedCluster();
        const client = clusterClient(cluster);
        onTestFinished(() => client.close());
        const topic = uniqueTopic('cl_kill');
        const group = uniqueGroup('cl_kill');
        await cluster.createTopic(topic, QUEUES_PER_GROUP);
        const brokerA = cluster.groups[0];
        const slaveA = brokerA?.slaves[0];
        if (brokerA === undefined || slaveA === undefined) throw new Error('no broker-a group');
        const masterA = brokerA.master;

        const producer = new Producer({ client });
        await producer.start();
        onTestFinished(() => producer.shutdown());
        const sent: string[] = [];
        const brokerOf = new Map<string, string>();
        for (let i = 0; i < MESSAGES; i += 25) {
          const results = await Promise.all(
            Array.from({ length: Math.min(25, MESSAGES - i) }, (_, k) =>
              producer.send({ topic, body: `m${i + k}` }),
            ),
          );
          for (const result of results) {
            sent.push(result.msgId);
            brokerOf.set(result.msgId, result.brokerName);
          }
        }
        const sentToA = sent.filter((id) => brokerOf.get(id) === brokerA.brokerName).length;
        const syncStartedAt = Date.now();
        await waitFor('broker-a slave caught up', 60_000, async () => {
          for (let queueId = 0; queueId < QUEUES_PER_GROUP; queueId++) {
            const master = await client.broker.getMaxOffset(masterA.address, { topic, queueId });
            if ((await client.broker.getMaxOffset(slaveA.address, { topic, queueId })) !== master)
              return undefined;
          }
          return true;
        });
        const syncMs = Date.now() - syncStartedAt;

        const consumerClient = clusterClient(cluster);
        const pulls = spyOnPulls(consumerClient);
        const retryProducer = new Producer({ client: consumerClient });
        await retryProducer.start();
        let masterDown = false;
        let failedFromAWhileDown = 0;
        const ledger = new Ledger();
        const handledFromA: number[] = [];
        let failedOnPurpose = 0;
        const runtime = new ConsumerRuntime(
          {
            name: 'master-kill',
            ...FAST,
            topic,
            consumerGroup: group,
            startingPosition: 'TRIM_HORIZON',
            batchSize: BATCH_SIZE,
            pullDelayOnErrorMs: 500,
            // Little prefetch: what is handled while the master is dead must mostly come from its slave.
            pullThresholdForQueue: 48,
            pullBatchSize: 16,
          },
          {
            client: consumerClient,
            offsetStore: new MemoryOffsetStore(),
            retryProducer,
            listener: {
              async consume(messages) {
                await sleep(BATCH_MS);
                const failedIndexes: number[] = [];
                const handled = messages.filter((m, index) => {
                  if (m.message.reconsumeTimes === 0 && failsFirstDelivery(m.message.msgId)) {
                    failedIndexes.push(index);
                    return false;
                  }
                  return true;
                });
                failedOnPurpose += failedIndexes.length;
                if (masterDown) {
                  failedFromAWhileDown += failedIndexes.filter(
                    (index) => brokerOf.get(messages[index]?.message.msgId ?? '') === brokerA.brokerName,
                  ).length;
                }
                // Only successful handlings go to the ledger: a message whose retry never came is lost.
                ledger.record(handled);
                for (const m of handled)
                  if (brokerOf.get(m.message.msgId) === brokerA.brokerName) handledFromA.push(Date.now());
                return failedIndexes.length === 0
                  ? { status: 'SUCCESS' }
                  : { status: 'PARTIAL', failedIndexes, reason: 'fails its first delivery on purpose' };
              },
            },
          },
        );
        onTestFinished(async () => {
          await runtime.stop();
          await consumerClient.close();
        });
        await runtime.start();

        await waitFor(`${KILL_AFTER_HANDLED} handled`, 120_000, async () =>
          ledger.counts.size >= KILL_AFTER_HANDLED ? true : undefined,
        );
        const handledAtKill = ledger.counts.size;
        await masterA.kill();
        masterDown = true;
        const killedAt = Date.now();
        const pullsAtKill = pulls.length;
        await sleep(DOWN_MS);
        const restartStartedAt = Date.now();
        await masterA.restart();
        masterDown = false;
        const backAt = Date.now();
        const whileDown = pulls.slice(pullsAtKill).filter((p) => p.topic === topic);
        // Pulls that went out before the restart finished (the restart call covers the JVM's boot).
        const slaveServed = whileDown.filter((p) => p.address === slaveA.address && p.found > 0);
        const handledFromAWhileDown = handledFromA.filter(
          (at) => at > killedAt && at < restartStartedAt,
        ).length;
        const sendBackFailuresWhileDown = (await runtime.status()).counters.sendBackFailures;

        await waitFor(
          `all ${MESSAGES} handled`,
          240_000,
          async () => (ledger.counts.size >= sent.length ? true : undefined),
          {
            intervalMs: 500,
          },
        );
        const drainedAt = Date.now();
        // Offsets commit to broker-a's master again: it learns the queue ends (pull commit offsets and the
        // oneway offset updates of the consumer).
        await waitFor("broker-a master holds the group's offsets at its queue ends", 60_000, async () => {
          for (let queueId = 0; queueId < QUEUES_PER_GROUP; queueId++) {
            const end = await client.broker.getMaxOffset(masterA.address, { topic, queueId });
            const committed = await client.broker.queryConsumerOffset(masterA.address, {
              consumerGroup: group,
              topic,
              queueId,
            });
            if (committed !== end) return undefined;
          }
          return true;
        });
        const counters = (await runtime.status()).counters;
        // broker-a messages retried from broker-b's %RETRY% queues: only the producer fall-back puts them there.
        const retriedOnB = ledger.deliveries.filter(
          (d) =>
            brokerOf.get(d.message.msgId) === brokerA.brokerName &&
            d.queue.brokerName !== brokerA.brokerName &&
            d.queue.topic.startsWith('%RETRY%'),
        ).length;
        const summary = summarizeLedger(
          sent,
          ledger.deliveries.map((d) => ({
            messageId: d.message.msgId,
            queueId: d.queue.queueId,
            queueOffset: d.message.queueOffset,
          })),
        );
        console.info(
          `[cluster] master SIGKILL: ${MESSAGES} sent (${sentToA} to broker-a), slave caught up ${syncMs} ms after the sends; ` +
            `killed ${masterA.address} after ${handledAtKill} handled; down ${Math.round((backAt - killedAt) / 1000)} s ` +
            `(${DOWN_MS / 1000} s + restart ${Math.round((backAt - restartStartedAt) / 1000)} s); while down: ` +
            `${whileDown.length} pulls, ${slaveServed.length} FOUND from slave ${slaveA.address} ` +
            `(${slaveServed.reduce((n, p) => n + p.found, 0)} messages), ${handledFromAWhileDown} broker-a messages handled, ` +
            `${sendBackFailuresWhileDown} send-back failures; drained ${Math.round((drainedAt - backAt) / 1000)} s after the restart; ` +
            `ledger: sent ${summary.sent}, delivered ${summary.delivered}, lost ${summary.lost}, duplicates ${summary.duplicates}, ` +
            `failed on purpose ${failedOnPurpose} (${failedFromAWhileDown} from broker-a while its master was down, ${retriedOnB} of them retried from broker-b's retry queues), ` +
            `send-back failures ${counters.sendBackFailures}, pull errors ${counters.pullErrors}`,
        );

        expect(summary.lost, `lost e.g. ${summary.lostIds.join(', ')}`).toBe(0);
        expect(summary.delivered).toBe(sent.length);
        expect(summary.unexpected).toBe(0);
        expect(failedOnPurpose, 'send-backs went through the retry topic').toBeGreaterThan(0);
        expect(slaveServed.length, "broker-a's slave served pulls while its master was dead").toBeGreaterThan(
          0,
        );
        expect(
          handledFromAWhileDown,
          'broker-a messages were handled while its master was dead',
        ).toBeGreaterThan(0);
        for (const pull of pulls.filter((p) => p.address === slaveA.address))
          expect(pull.commitOffset).toBe(0);
        // The producer fall-back: failures of broker-a messages while its master was dead went to the
        // retry topic on broker-b. A send in flight at the kill can still fail both ways (then the message
        // is consumed again locally); without the fall-back every one of them would.
        expect(failedFromAWhileDown, 'broker-a messages failed while its master was dead').toBeGreaterThan(0);
        expect(retriedOnB, "broker-a messages retried from broker-b's %RETRY% queues").toBeGreaterThan(0);
        expect(sendBackFailuresWhileDown).toBeLessThan(failedFromAWhileDown);
      },
      TEST_TIMEOUT_MS,
    );
  });
}

/** The fixed rule: one message id in {@link FAIL_ONE_IN} (by a sum of its characters) fails its first delivery. */
function failsFirstDelivery(messageId: string): boolean {
  let sum = 0;
  for (let i = 0; i < messageId.length; i++) sum += messageId.charCodeAt(i) * (i + 1);
  return sum % FAIL_ONE_IN === 0;
}
