/**
 * The limit line of the drain race (`raw-pull`): what one client process can get out of the broker
 * when it does nothing with the messages. It pulls {@link PULL_BATCH} messages per PULL_MESSAGE on every
 * queue of the topic at once (one request in flight per queue, from the first offset, no long polling),
 * through our connection pool, and never decodes a body: each response's `nextBeginOffset` minus the
 * requested offset is the number of messages it carried. Compiled and measured like consumer-child.ts
 * (DrainMeasurement); the result line adds `pulledBytes`, the PULL bodies' bytes (stored messages,
 * headers and properties included).
 *
 * Usage: node raw-pull-child.js '{"namesrvAddr":"127.0.0.1:9876","topic":"T","group":"G","expected":1000}'
 */

import { readOnlyPullHeader } from '../src/client/read-only-pull-header.js';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { parsePullMessageResponseHeader } from '../src/protocol/header-parsers.js';
import { toExtFields } from '../src/protocol/remoting-command.js';
import { RequestCode } from '../src/protocol/request-code.js';
import { ResponseCode } from '../src/protocol/response-code.js';
import { MASTER_BROKER_ID } from '../src/protocol/route-data.js';
import { DrainMeasurement, printDrainResult } from './peers/drain-measurement.js';

/** Messages per request: Java's and our consumers' default pull batch. */
const PULL_BATCH = 32;
const PULL_TIMEOUT_MS = 10_000;
/** A queue that is drained while others are not yet waits this long before asking again. */
const EMPTY_QUEUE_PAUSE_MS = 5;

/**
 * What the harness passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: RawPullChildSpec = { namesrvAddr, topic, group: 'bench-raw-1', expected: 1_000_000 };
 * ```
 */
export interface RawPullChildSpec {
  namesrvAddr: string;
  topic: string;
  group: string;
  expected: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as RawPullChildSpec;
  const measurement = new DrainMeasurement(spec.expected);
  const client = new RocketMQClient({ nameServerAddresses: spec.namesrvAddr });
  let pulledBytes = 0;
  let finished = false;

  const drainQueue = async (brokerAddr: string, brokerName: string, queueId: number): Promise<void> => {
    let queueOffset = 0;
    while (!finished) {
      const header = readOnlyPullHeader({
        consumerGroup: spec.group,
        topic: spec.topic,
        queueId,
        queueOffset,
        maxMsgNums: PULL_BATCH,
        bname: brokerName,
      });
      const response = await client.pool.request(
        brokerAddr,
        { code: RequestCode.PULL_MESSAGE, extFields: toExtFields(header) },
        PULL_TIMEOUT_MS,
      );
      if (response.code === ResponseCode.SUCCESS) {
        const { nextBeginOffset } = parsePullMessageResponseHeader(response.extFields);
        pulledBytes += response.body?.length ?? 0;
        measurement.count(nextBeginOffset - queueOffset);
        queueOffset = nextBeginOffset;
      } else if (response.code === ResponseCode.PULL_OFFSET_MOVED) {
        queueOffset = parsePullMessageResponseHeader(response.extFields).nextBeginOffset;
      } else if (
        response.code === ResponseCode.PULL_NOT_FOUND ||
        response.code === ResponseCode.PULL_RETRY_IMMEDIATELY
      ) {
        await new Promise((resolve) => setTimeout(resolve, EMPTY_QUEUE_PAUSE_MS));
      } else {
        throw new Error(
          `PULL_MESSAGE ${spec.topic}/${queueId} answered ${response.code}: ${response.remark ?? ''}`,
        );
      }
    }
  };

  measurement.started();
  const route = await client.nameServer.getRoute(spec.topic);
  const loops: Promise<void>[] = [];
  for (const queueData of route.queueDatas) {
    const brokerAddr = route.brokerDatas
      .find((broker) => broker.brokerName === queueData.brokerName)
      ?.brokerAddrs.get(MASTER_BROKER_ID);
    if (brokerAddr === undefined) throw new Error(`no master address for ${queueData.brokerName}`);
    for (let queueId = 0; queueId < queueData.readQueueNums; queueId++) {
      loops.push(drainQueue(brokerAddr, queueData.brokerName, queueId));
    }
  }
  // The loops end only with the drain: a failed one fails the run at once.
  await Promise.race([measurement.done, Promise.all(loops)]);
  finished = true;
  const result = { ...measurement.finish(), pulledBytes };
  printDrainResult(result);
  await Promise.allSettled(loops);
  await client.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
