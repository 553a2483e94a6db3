/**
 * The ali-ons peer's drain child (see ali-ons-peer.ts for what it runs and the fairness notes): an
 * ali-ons `Consumer` (MQPushConsumer, CLUSTERING, remote broker offset store) on the run's namesrv,
 * `CONSUME_FROM_FIRST_OFFSET`, every other option at its default; its `async` handler counts the message
 * and returns (success). Prints one `BENCH_RESULT {json}` line (drain-measurement.ts).
 *
 * Usage: node ali-ons-child.js '{"namesrvAddr":"127.0.0.1:9876","topic":"T","group":"G","expected":1000,"timeoutMs":60000}'
 */
import { Consumer } from 'ali-ons';
import { type PeerChildBase, parsePeerChildSpec, runPeerChild } from './peer-child-run.js';

/**
 * What the peer passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: AliOnsChildSpec = { namesrvAddr, topic, group: 'bench-ali-ons-1', expected: 20_000, timeoutMs: 120_000 };
 * ```
 */
export interface AliOnsChildSpec extends PeerChildBase {
  readonly namesrvAddr: string;
}

/** ali-ons asserts an HTTP client exists even with `nameSrv`; it only calls it for the `onsAddr` lookup. */
const noHttpClient = {
  request(url: string): Promise<never> {
    return Promise.reject(new Error(`no HTTP name server lookup in the bench (asked for ${url})`));
  },
};

const spec = parsePeerChildSpec<AliOnsChildSpec>(process.argv[2], ['namesrvAddr']);
runPeerChild(spec, async (measurement) => {
  // ali-ons starts itself in its constructor: the measured start is right before it.
  const consumer = new Consumer({
    consumerGroup: spec.group,
    nameSrv: spec.namesrvAddr,
    httpclient: noHttpClient,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  // Errors it emits (pull failures it retries by itself, ...) go to stderr; a failed start rejects ready().
  consumer.on('error', (error: Error) => console.error('ali-ons error:', error.message));
  await consumer.ready();
  consumer.subscribe(spec.topic, '*', async () => {
    measurement.count(1);
  });
  return { close: () => consumer.close() };
});
