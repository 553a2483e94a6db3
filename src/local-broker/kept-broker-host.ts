/**
 * The process that keeps a local broker up between dev sessions (kept-broker.ts starts it detached, in
 * a session of its own, its output to `host.log`). It starts a local RocketMQ as `npm run broker` does,
 * writes `state.json` once the broker is ready, and then checks `lease.json` every second: once the
 * lease's `until` has passed (or the file is gone), or on SIGTERM/SIGINT, it removes `state.json` first
 * (so no session picks the broker up while it stops) and then stops the JVMs and exits 0. A broker JVM
 * that dies on its own ends the host too (exit 1): the next session starts a new one.
 *
 * The JVMs' own watchdogs (jvm-process.ts) kill them should this process die in any way.
 *
 * Usage (by kept-broker.ts): node [--import <tsx's loader, from the sources>] kept-broker-host.(ts|js)
 * '{"dir":"<absolute dir>"}'
 */
import path from 'node:path';
import { describeError } from '../util/describe-error.js';
import { componentLogger } from '../util/logger.js';
import { selectedBrokerVersion } from './broker-version.js';
import {
  KEPT_BROKER_FILES,
  keptBrokerLeaseSchema,
  keptBrokerPath,
  keptBrokerStateSchema,
  readKeptBrokerFile,
  removeKeptBrokerFile,
  writeKeptBrokerFile,
} from './kept-broker-files.js';
import { startLocalBroker } from './local-broker.js';

/** How often the lease is read. */
const LEASE_CHECK_MS = 1000;

async function main(): Promise<number> {
  const log = componentLogger('kept-broker-host');
  const spec = JSON.parse(process.argv[2] ?? '{}') as { dir?: unknown };
  if (typeof spec.dir !== 'string' || !path.isAbsolute(spec.dir)) {
    log.error({ argv: process.argv.slice(2) }, 'usage: kept-broker-host \'{"dir":"<absolute dir>"}\'');
    return 2;
  }
  const dir = spec.dir;
  let stopRequested: NodeJS.Signals | undefined;
  let wake: (() => void) | undefined;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      stopRequested = signal;
      wake?.();
    });
  }
  // A terminal's hang-up does not concern a host that outlives its sessions.
  process.on('SIGHUP', () => undefined);

  const version = selectedBrokerVersion();
  const broker = await startLocalBroker({
    logDir: path.join(dir, KEPT_BROKER_FILES.brokerLogs),
    log: componentLogger('local-broker'),
  });
  const stateFile = keptBrokerPath(dir, 'state');
  let reason: string;
  let code = 0;
  try {
    if (stopRequested === undefined) {
      await writeKeptBrokerFile(stateFile, {
        version: 1,
        hostPid: process.pid,
        namesrvAddr: broker.namesrvAddr,
        brokerAddr: broker.brokerAddr,
        brokerName: broker.brokerName,
        clusterName: broker.clusterName,
        rocketmqVersion: version.name,
        startedAt: new Date().toISOString(),
      });
      log.info({ namesrvAddr: broker.namesrvAddr, brokerAddr: broker.brokerAddr }, 'kept local broker ready');
    }
    for (;;) {
      if (stopRequested !== undefined) {
        reason = `${stopRequested} received`;
        break;
      }
      if (!broker.brokerRunning) {
        reason = 'the broker JVM is gone';
        code = 1;
        break;
      }
      const lease = await readKeptBrokerFile(keptBrokerPath(dir, 'lease'), keptBrokerLeaseSchema);
      if (lease.value === undefined) {
        reason = lease.problem ?? 'lease.json is gone';
        break;
      }
      if (lease.value.until <= Date.now()) {
        reason = `the lease ended at ${new Date(lease.value.until).toISOString()}`;
        break;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, LEASE_CHECK_MS);
      });
    }
  } finally {
    // First the state: a session starting now must not take a broker that is stopping. Only this host's
    // own (a host is started only once the one before is gone, but a hand-edited directory may differ).
    const state = await readKeptBrokerFile(stateFile, keptBrokerStateSchema);
    if (state.value?.hostPid === process.pid) await removeKeptBrokerFile(stateFile);
  }
  log.info({ reason }, 'stopping the kept local broker');
  await broker.stop();
  log.info('kept local broker stopped');
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // The message alone: kept-broker.ts puts it into the error of the session that started this host.
    componentLogger('kept-broker-host').error({ err: error }, describeError(error));
    process.exit(1);
  },
);
