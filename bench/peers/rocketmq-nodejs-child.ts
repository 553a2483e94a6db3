/**
 * The rocketmq-client-nodejs peer's drain child (see rocketmq-nodejs-peer.ts for what it runs and the
 * fairness notes): Apache's gRPC `PushConsumer` on the 5.x proxy's gRPC endpoint, a fresh group, every
 * option at its default; its listener counts the message and returns `ConsumeResult.SUCCESS` (the
 * client then acks it). Prints one `BENCH_RESULT {json}` line (drain-measurement.ts).
 *
 * Usage: node rocketmq-nodejs-child.js '{"endpoints":"127.0.0.1:8081","topic":"T","group":"G","expected":1000,"timeoutMs":60000}'
 */
import { ConsumeResult, FilterExpression, PushConsumer } from 'rocketmq-client-nodejs';
import { type PeerChildBase, parsePeerChildSpec, runPeerChild } from './peer-child-run.js';

/**
 * What the peer passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: RocketMQNodejsChildSpec = { endpoints: proxy.grpcAddr, topic, group, expected: 20_000, timeoutMs: 120_000 };
 * ```
 */
export interface RocketMQNodejsChildSpec extends PeerChildBase {
  /** The proxy's gRPC `host:port`. */
  readonly endpoints: string;
}

/**
 * Its warnings and errors go to stderr, the rest is dropped: what our child's `warn` level keeps. (Its
 * consume service still opens its own INFO file logger under ~/logs/rocketmq, as it always does.)
 */
const stderrLogger = {
  info: (): void => undefined,
  debug: (): void => undefined,
  warn(...args: unknown[]): void {
    console.error('rocketmq-client-nodejs warn:', ...args);
  },
  error(...args: unknown[]): void {
    console.error('rocketmq-client-nodejs error:', ...args);
  },
};

const spec = parsePeerChildSpec<RocketMQNodejsChildSpec>(process.argv[2], ['endpoints']);
runPeerChild(spec, async (measurement) => {
  const consumer = new PushConsumer({
    endpoints: spec.endpoints,
    namespace: '',
    consumerGroup: spec.group,
    subscriptions: new Map([[spec.topic, FilterExpression.SUB_ALL]]),
    messageListener: {
      consume(): ConsumeResult {
        measurement.count(1);
        return ConsumeResult.SUCCESS;
      },
    },
    logger: stderrLogger,
  });
  await consumer.startup();
  return { close: () => consumer.shutdown() };
});
