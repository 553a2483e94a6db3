/**
 * The broker a bench run measures on: a local RocketMQ started for the run (namesrv + broker, a small
 * heap, the C2 JIT; a quick run's broker is leaner), or one already running (`--namesrv` / `--broker`: CI's test broker), so that a quick
 * run in CI needs no second broker. An external broker is only used: never restarted, never stopped.
 */
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { ROCKETMQ_TIMER_FLUSH_INTERVAL_MS } from '../src/local-broker/broker-config.js';
import { type LocalBroker, startLocalBroker } from '../src/local-broker/local-broker.js';
import { MASTER_BROKER_ID } from '../src/protocol/route-data.js';
import { createBenchTopic } from './bench-topic.js';

/** SIGTERM-to-SIGKILL grace of a lean broker's stop (the launcher's default is 3 s). */
const LEAN_STOP_GRACE_MS = 1000;

/**
 * The run's broker.
 *
 * @example
 * ```ts
 * const { broker, release } = await startBenchBroker(options);
 * try { ... } finally { await release(); }
 * ```
 */
export interface BenchBroker {
  /** For an external broker, its lifecycle methods reject: it is not ours to restart. */
  readonly broker: LocalBroker;
  /** `local (-Xmx512m)` or `external at host:port`, for the report. */
  readonly description: string;
  /** Stops a broker the run started; nothing for an external one. */
  release(): Promise<void>;
}

/**
 * Starts a local broker with `heapMb`, or connects to `external` and learns its broker and cluster
 * names from the route of a fresh one-queue topic. `lean` (a quick run, whose figures only show that
 * the harness works) spares the machine's CPU for the run itself: the local launcher's C1-only JIT
 * instead of C2 (whose compilations cost far more), and the test brokers' timer wheel flushed once a
 * minute instead of every second (`TEST_TIMER_FLUSH_INTERVAL_MS` in src/local-broker/broker-config.ts).
 * A measured run sets both back as deployed brokers have them.
 *
 * @example
 * ```ts
 * const own = await startBenchBroker({ heapMb: 512, lean: false, external: undefined });
 * ```
 */
export async function startBenchBroker(options: {
  heapMb: number;
  lean: boolean;
  external: { namesrvAddr: string; brokerAddr: string } | undefined;
}): Promise<BenchBroker> {
  if (options.external === undefined) {
    const broker = await startLocalBroker({
      heapMb: options.heapMb,
      extraJvmOptions: options.lean ? [] : ['-XX:TieredStopAtLevel=4'],
      brokerConfig: options.lean ? undefined : { timerFlushIntervalMs: ROCKETMQ_TIMER_FLUSH_INTERVAL_MS },
      // Its store is thrown away: no need to wait the default 3 s for a graceful shutdown.
      ...(options.lean ? { stopGraceMs: LEAN_STOP_GRACE_MS } : {}),
    });
    return {
      broker,
      description: `local, one namesrv and one broker (-Xmx${options.heapMb}m, ${options.lean ? 'C1-only JIT, timer wheel flushed every minute' : 'C2 JIT'}), same machine`,
      release: () => broker.stop(),
    };
  }
  const { namesrvAddr, brokerAddr } = options.external;
  const client = new RocketMQClient({ nameServerAddresses: namesrvAddr });
  try {
    const probe = `BenchRoute-${Date.now()}`;
    await createBenchTopic(client, externalBroker(namesrvAddr, brokerAddr, '', ''), probe, 1);
    const route = await client.nameServer.getRoute(probe, { refresh: true });
    const data = route.brokerDatas.find((entry) => entry.brokerAddrs.get(MASTER_BROKER_ID) === brokerAddr);
    if (data === undefined) {
      throw new Error(`the name server at ${namesrvAddr} routes no master at ${brokerAddr}`);
    }
    return {
      broker: externalBroker(namesrvAddr, brokerAddr, data.brokerName, data.cluster),
      description: `external (namesrv ${namesrvAddr}, broker ${brokerAddr}), same machine`,
      release: async () => undefined,
    };
  } finally {
    await client.close();
  }
}

function externalBroker(
  namesrvAddr: string,
  brokerAddr: string,
  brokerName: string,
  clusterName: string,
): LocalBroker {
  const refuse = async (): Promise<void> => {
    throw new Error(`the bench uses an external broker at ${brokerAddr}: it cannot stop or restart it`);
  };
  return {
    namesrvAddr,
    brokerAddr,
    brokerName,
    clusterName,
    storeDir: '',
    homeDir: '',
    logDir: '',
    brokerRunning: true,
    // Not ours, and maybe not on this machine: its CPU is not measured.
    brokerPid: undefined,
    killBroker: refuse,
    stopBroker: refuse,
    restartBroker: refuse,
    stop: async () => undefined,
  };
}
