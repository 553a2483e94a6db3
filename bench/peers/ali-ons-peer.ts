/**
 * ali-ons 3.12.0 (npm `ali-ons`, Alibaba's pure-JavaScript RocketMQ remoting client) as a drain peer:
 * its push consumer talks to the run's namesrv directly (`nameSrv`, no HTTP name server lookup) and
 * pulls from the broker over remoting, like ours and Java's.
 *
 * Fairness, all ali-ons defaults except where the race needs otherwise (ali-ons-child.ts):
 * - `consumeFromWhere: CONSUME_FROM_FIRST_OFFSET` (its default is the last offset), fresh group,
 *   CLUSTERING, offsets committed to the broker (RemoteBrokerOffsetStore, every 5 s and with pulls).
 * - Pulls: `pullBatchSize` 32 messages per PULL_MESSAGE (ours: the broker's default of 32 as well,
 *   Java: 32), 15 s long polls, one pull loop per queue; a queue stops pulling above
 *   `pullThresholdForQueue` 500 cached messages and then sleeps 5 s (`pullTimeDelayMillsWhenFlowControl`).
 * - Consumption: ONE message per handler call (`consumeMessageBatchMaxSize` 1) and ONE message in
 *   flight per queue (`parallelConsumeLimit` 1), the queues visited in turn by a single loop per topic:
 *   effectively serial consumption (ours: batches of up to 100, 10 in flight; Java: 1 per call on 20
 *   threads).
 * - It also subscribes `%RETRY%<group>` and starts a default producer for send-back, as always.
 * - The listener is an `async` function that counts the message and returns (success).
 * - The child is plain JavaScript compiled with the repo's TypeScript (node-child-build.ts), no loader.
 */
import type { DrainPeer, PeerRunSpec, PreparedDrainPeer } from '../drain-peer.js';
import { benchChildren } from '../node-child-build.js';
import type { AliOnsChildSpec } from './ali-ons-child.js';
import { assertPeerPackage } from './peer-package.js';

const PACKAGE = 'ali-ons';
const VERSION = '3.12.0';
const CHILD_ENTRY = 'peers/ali-ons-child.ts';

/**
 * The ali-ons peer.
 *
 * @example
 * ```ts
 * const prepared = await aliOnsPeer.prepare({ namesrvAddr: broker.namesrvAddr, log: console.error });
 * await runChild(prepared.command, prepared.args({ topic, group, expected, timeoutMs }), { timeoutMs });
 * ```
 */
export const aliOnsPeer: DrainPeer = {
  id: 'ali-ons',
  // ~4-6k msgs/s here: the whole 1M backlog would take minutes per round.
  maxMessages: 200_000,
  label: `ali-ons ${VERSION} push consumer (remoting, pure JS), CONSUME_FROM_FIRST_OFFSET, 1 message per call, 1 in flight per queue`,
  version: VERSION,
  async prepare({ namesrvAddr }): Promise<PreparedDrainPeer> {
    const [, { benchDir }] = await Promise.all([assertPeerPackage(PACKAGE, VERSION), benchChildren()]);
    const childScript = `${benchDir}/${CHILD_ENTRY.replace(/\.ts$/, '.js')}`;
    return {
      command: process.execPath,
      args(spec: PeerRunSpec): string[] {
        const childSpec: AliOnsChildSpec = { ...spec, namesrvAddr };
        return [childScript, JSON.stringify(childSpec)];
      },
      async stop(): Promise<void> {
        // Nothing was started: the compiled child stays in the shared build (node-child-build.ts).
      },
    };
  },
};
