/**
 * vitest globalSetup of the integration project: one real RocketMQ (namesrv + broker) for the whole
 * run, its addresses handed to tests with `provide` (read them with testBroker()), and the Java
 * interop peer built once, and the PyPI tools (cfn-lint, moto) installed meanwhile. The broker is stopped (and its temp dir removed) on teardown.
 * The RocketMQ version is the one `ROCKETMQ_LAMBDA_BROKER_VERSION` selects (5.3.3 when unset; see
 * src/local-broker/broker-version.ts); for a `-proxy` version a 5.x proxy in cluster mode is started in
 * front of the broker and its remoting address is what tests get as their name server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type BrokerVersionName, selectedBrokerVersion } from '../../src/local-broker/broker-version.js';
import { type LocalBroker, startLocalBroker } from '../../src/local-broker/local-broker.js';
import { type LocalProxy, startLocalProxy } from '../../src/local-broker/local-proxy.js';
import { ensureRocketMQJars } from '../../src/local-broker/rocketmq-jars.js';
import { ensureCfnLint } from '../support/cfn-lint.js';
import { ensureJavaInteropBuilt } from '../support/java-interop.js';
import { ensureMotoServer } from '../support/moto-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    namesrvAddr: string;
    brokerAddr: string;
    brokerName: string;
    brokerVersion: BrokerVersionName;
    /** The proxy's remoting address for a `-proxy` version (then also `namesrvAddr`), '' otherwise. */
    proxyAddr: string;
    /** A directory of this run's, removed on teardown: where files shared across test files live. */
    runTempDir: string;
  }
}

/**
 * Fetches the jars if needed, then starts the broker and builds the interop peer (in parallel), provides the addresses, and returns
 * the teardown.
 *
 * @example
 * ```ts
 * // vitest.config.ts, integration project
 * { test: { globalSetup: ['test/setup/global-setup.ts'] } }
 * ```
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const startedAt = Date.now();
  // First, so that a mistyped ROCKETMQ_LAMBDA_BROKER_VERSION fails the run before anything starts.
  const version = selectedBrokerVersion();
  // Jars first: two Maven runs resolving into the same local repository at once can collide; once
  // the broker's jars are in, the interop build only adds its (small) plugins.
  await ensureRocketMQJars();
  const [brokerResult, buildResult, ...toolResults] = await Promise.allSettled([
    // traceTopicEnable: the broker creates RMQ_SYS_TRACE_TOPIC, where the message trace tests' Java
    // producer and our poller write trace records (test/integration/consumer/message-trace.test.ts).
    startLocalBroker({ brokerConfig: { traceTopicEnable: true } }),
    ensureJavaInteropBuilt(),
    // PyPI tools of some tests (cached after the first run), installed while the broker starts.
    ensureCfnLint(),
    ensureMotoServer(),
  ]);
  const broker: LocalBroker | undefined =
    brokerResult.status === 'fulfilled' ? brokerResult.value : undefined;
  if (brokerResult.status === 'rejected' || buildResult.status === 'rejected') {
    await broker?.stop();
    throw brokerResult.status === 'rejected'
      ? brokerResult.reason
      : (buildResult as PromiseRejectedResult).reason;
  }
  if (!broker) throw new Error('unreachable: broker start settled without a broker');
  let proxy: LocalProxy | undefined;
  if (version.proxy) {
    try {
      proxy = await startLocalProxy({
        namesrvAddr: broker.namesrvAddr,
        clusterName: broker.clusterName,
        version,
      });
    } catch (err) {
      await broker.stop();
      throw err;
    }
  }
  for (const result of toolResults) {
    // The tests that need the tool install it again and fail with this reason; the others can run.
    if (result.status === 'rejected') process.stdout.write(`[integration] ${String(result.reason)}\n`);
  }
  process.stdout.write(
    `[integration] RocketMQ ${version.name} ready in ${Date.now() - startedAt} ms: namesrv ${broker.namesrvAddr}, broker ${broker.brokerAddr}` +
      `${proxy === undefined ? '' : `, proxy ${proxy.remotingAddr} (the tests' name server)`}\n`,
  );
  // Behind a proxy, clients find everything through it; admin requests the proxy does not serve
  // (creating topics and groups) still go straight to the broker at brokerAddr.
  project.provide('namesrvAddr', proxy?.remotingAddr ?? broker.namesrvAddr);
  project.provide('brokerAddr', broker.brokerAddr);
  project.provide('brokerName', broker.brokerName);
  project.provide('brokerVersion', version.name);
  project.provide('proxyAddr', proxy?.remotingAddr ?? '');
  const runTempDir = await mkdtemp(path.join(tmpdir(), 'rl-run-'));
  project.provide('runTempDir', runTempDir);
  return async () => {
    await proxy?.stop();
    await broker.stop();
    await rm(runTempDir, { recursive: true, force: true });
  };
}
