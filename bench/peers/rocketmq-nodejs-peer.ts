/**
 * rocketmq-client-nodejs 1.0.8 (npm `rocketmq-client-nodejs`, Apache's Node client for RocketMQ 5 from
 * apache/rocketmq-clients) as a drain peer. It speaks gRPC only, so prepare() starts a rocketmq-proxy
 * 5.3.3 in cluster mode (src/local-broker/local-proxy.ts, 256 MiB heap) in front of the run's namesrv and
 * broker; the child connects to the proxy's gRPC port, and the proxy pops from the broker for it. Its
 * figures therefore include a hop through a second JVM on the same machine (the proxy's CPU is not the
 * child's, but it competes for the same cores): read them as "Apache's Node client as deployed with
 * RocketMQ 5", not as a like-for-like client comparison.
 *
 * Fairness, all defaults (rocketmq-nodejs-child.ts):
 * - `PushConsumer` (1.0.8 has it; the fairest peer to a push consumer), CLUSTERING as every 5.x gRPC
 *   consumer, a fresh group. It has no consume-from option: a new group's POP offset is the broker's
 *   choice, which for a fresh topic whose messages are still in memory is the first offset (5.3.3's
 *   `initPopOffsetByCheckMsgInMem`, on by default); the child counts every message, so a run that
 *   started elsewhere would time out rather than pass.
 * - Receives: the proxy answers ONE assignment per broker (queue id -1: POP over all of that broker's
 *   queues), and the client keeps one receive loop per assignment: with the one local broker, a single
 *   ReceiveMessage in flight at a time, 32 messages each (`receiveBatchSize` as the proxy's settings
 *   confirm), 20 s long polls (the proxy's setting over the client's 30 s), at most 1024 messages /
 *   64 MiB cached. Seen in a diagnostic run with the client's info/debug log on.
 * - Consumption: ONE message per listener call, every message of a received batch started at once
 *   (no concurrency cap besides the cache); each success is acked with its own AckMessage RPC.
 * - The listener counts the message and returns `ConsumeResult.SUCCESS`. Its logger drops info and
 *   debug (as our child's `warn` level does); its consume service keeps its own INFO file logger.
 * - The child is plain JavaScript compiled with the repo's TypeScript (node-child-build.ts), no loader.
 */
import { brokerVersionProfile } from '../../src/local-broker/broker-version.js';
import { type LocalProxy, startLocalProxy } from '../../src/local-broker/local-proxy.js';
import type { DrainPeer, PeerRunSpec, PreparedDrainPeer } from '../drain-peer.js';
import { benchChildren } from '../node-child-build.js';
import { assertPeerPackage } from './peer-package.js';
import type { RocketMQNodejsChildSpec } from './rocketmq-nodejs-child.js';

const PACKAGE = 'rocketmq-client-nodejs';
const VERSION = '1.0.8';
const CHILD_ENTRY = 'peers/rocketmq-nodejs-child.ts';
const PROXY_HEAP_MB = 256;

/**
 * The rocketmq-client-nodejs peer.
 *
 * @example
 * ```ts
 * const prepared = await rocketmqNodejsPeer.prepare({ namesrvAddr: broker.namesrvAddr, log: console.error });
 * try {
 *   await runChild(prepared.command, prepared.args({ topic, group, expected, timeoutMs }), { timeoutMs });
 * } finally {
 *   await prepared.stop(); // stops the proxy
 * }
 * ```
 */
export const rocketmqNodejsPeer: DrainPeer = {
  id: 'rocketmq-client-nodejs',
  // ~150-250 msgs/s here (one ack call per message through the proxy): 1M would take an hour per round.
  maxMessages: 10_000,
  // A quick run's 2,000 would take ~10 s at that rate; 200 show as well that it runs.
  quickMaxMessages: 200,
  label: `rocketmq-client-nodejs ${VERSION} PushConsumer (gRPC via rocketmq-proxy 5.3.3, cluster mode), 1 message per call`,
  version: VERSION,
  async prepare({ namesrvAddr, log }): Promise<PreparedDrainPeer> {
    log(`${PACKAGE}: starting rocketmq-proxy 5.3.3 (heap ${PROXY_HEAP_MB} MiB)...`);
    // The package check runs beside the proxy's start: a peer that cannot load stops the proxy again.
    const [packageResult, proxyResult, buildResult] = await Promise.allSettled([
      assertPeerPackage(PACKAGE, VERSION),
      startLocalProxy({ namesrvAddr, heapMb: PROXY_HEAP_MB, version: brokerVersionProfile('5.3.3-proxy') }),
      benchChildren(),
    ]);
    const proxy: LocalProxy | undefined = proxyResult.status === 'fulfilled' ? proxyResult.value : undefined;
    const failure = [packageResult, proxyResult, buildResult].find((result) => result.status === 'rejected');
    if (proxy === undefined || failure !== undefined || buildResult.status === 'rejected') {
      await proxy?.stop();
      throw failure?.reason ?? new Error('unreachable: no proxy');
    }
    log(`${PACKAGE}: proxy ready, gRPC at ${proxy.grpcAddr}`);
    const childScript = `${buildResult.value.benchDir}/${CHILD_ENTRY.replace(/\.ts$/, '.js')}`;
    return {
      command: process.execPath,
      args(spec: PeerRunSpec): string[] {
        const childSpec: RocketMQNodejsChildSpec = { ...spec, endpoints: proxy.grpcAddr };
        return [childScript, JSON.stringify(childSpec)];
      },
      stop: () => proxy.stop(),
    };
  },
};
