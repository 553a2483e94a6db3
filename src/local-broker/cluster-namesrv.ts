/**
 * The name server JVM of a local cluster, which can be stopped and started again on the same port (a
 * name server restart, as the soak run's fault schedule applies it: test/support/soak/soak-runner.ts). A
 * restarted name server knows no broker until each registers again (every `registerNameServerPeriod`,
 * broker-config.ts), so clients see missing routes for a while: the bad day this reproduces.
 *
 * Broker readiness checks fail fast when the name server's JVM exits; {@link ClusterNamesrv.watched} lists
 * it only while it is meant to run, so a deliberate stop does not fail a broker restart in progress (that
 * one waits until the new name server lists its broker, or its deadline).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JvmProcess } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';
import { type ProbeConnectOptions, probeTopicRoute } from './route-probe.js';

/** How often start() probes the new JVM until it answers. */
const ANSWER_POLL_MS = 100;
const PROBE_TIMEOUT_MS = 2000;

/**
 * Options of {@link ClusterNamesrv}.
 */
export interface ClusterNamesrvOptions {
  /** Spawns a name server JVM (same port, configuration and logs every time). */
  spawn: () => JvmProcess;
  namesrvAddr: string;
  connect: ProbeConnectOptions;
}

/**
 * The running (or deliberately stopped) name server of a local cluster.
 */
export class ClusterNamesrv {
  private jvm: JvmProcess | undefined;
  private closed = false;
  private readonly options: ClusterNamesrvOptions;

  constructor(options: ClusterNamesrvOptions) {
    this.options = options;
    this.jvm = options.spawn();
  }

  /** True while a name server JVM is meant to run (started, not stopped). */
  get running(): boolean {
    return this.jvm !== undefined;
  }

  /** The JVMs whose exit means the name server died: none while it is stopped on purpose. */
  watched(): readonly JvmProcess[] {
    return this.jvm === undefined ? [] : [this.jvm];
  }

  /**
   * Stops the name server JVM: SIGTERM, SIGKILL after `graceMs` (0: SIGKILL at once, a crash). Every
   * broker keeps running and re-registers once a name server listens again. No-op when stopped.
   */
  async stop(graceMs: number): Promise<void> {
    const jvm = this.jvm;
    if (jvm === undefined) return;
    this.jvm = undefined;
    if (graceMs <= 0) await jvm.kill();
    else await jvm.stop(graceMs);
  }

  /**
   * Starts a new name server JVM on the same port and resolves once it answers a route request (it
   * knows no broker yet: each registers on its own period). Rejects when the JVM exits first or does not
   * answer by `deadline`. No-op when running.
   */
  async start(deadline: number): Promise<void> {
    if (this.closed) throw new LocalBrokerError('start(): the local cluster was stopped');
    if (this.jvm !== undefined) return;
    const jvm = this.options.spawn();
    this.jvm = jvm;
    let lastError: unknown;
    while (Date.now() < deadline) {
      if (jvm.exitStatus !== undefined) {
        this.jvm = undefined;
        throw new LocalBrokerError(
          // No output tail here: the JVMs' output is only quoted with secrets masked (describeJvms).
          `the restarted namesrv JVM exited (exit code ${String(jvm.exitStatus.exitCode)}); its output is in namesrv.log of the cluster's log directory`,
        );
      }
      try {
        await probeTopicRoute(this.options.namesrvAddr, 'TBW102', {
          ...this.options.connect,
          timeoutMs: PROBE_TIMEOUT_MS,
        });
        return;
      } catch (err) {
        lastError = err;
      }
      await sleep(ANSWER_POLL_MS);
    }
    throw new LocalBrokerError(
      `the restarted namesrv did not answer on ${this.options.namesrvAddr} in time`,
      { cause: lastError },
    );
  }

  /** Stops it for good (the cluster's stop()). */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    await this.stop(graceMs);
  }

  /** The current JVM, for error reports (none while stopped). */
  current(): JvmProcess | undefined {
    return this.jvm;
  }
}
