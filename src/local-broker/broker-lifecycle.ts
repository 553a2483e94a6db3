/**
 * The life of a started local broker: the namesrv JVM stays for its whole life, the broker JVM can be
 * killed (SIGKILL, like a crash), stopped gracefully and restarted on the same ports and configuration,
 * on its store or on a wiped one, and every restart waits until the namesrv lists the new JVM.
 */
import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from '../util/logger.js';
import {
  describeJvms,
  JvmExitedError,
  ReadinessTimeoutError,
  type RegistrationTarget,
  waitForDeregistration,
  waitForRegistration,
} from './broker-readiness.js';
import { type JvmProcess, spawnJvm } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';

/** stopBroker(): a broker stopped on purpose gets time to flush offsets and unregister. */
const DEFAULT_BROKER_STOP_GRACE_MS = 30_000;

/**
 * Options of {@link LocalBroker.restartBroker}.
 */
export interface RestartBrokerOptions {
  /**
   * Delete the broker's whole store first (commit log, queues, and `config/` with topics, subscription
   * groups, consumer offsets and ACL users), as if its disk was lost.
   * @default false
   */
  wipeStore?: boolean;
}

/**
 * A running local RocketMQ, with fault controls for its broker.
 */
export interface LocalBroker {
  /** `127.0.0.1:<port>` of the name server. */
  namesrvAddr: string;
  /** `127.0.0.1:<port>` of the broker master (what routes list under id 0); the same after restarts. */
  brokerAddr: string;
  brokerName: string;
  clusterName: string;
  /** The broker's store root (inside the temp directory). */
  storeDir: string;
  /** The temp directory (ROCKETMQ_HOME and user.home of both JVMs); removed by stop(). */
  homeDir: string;
  /** Where namesrv.log and broker.log are written (restarted brokers append to the same broker.log). */
  logDir: string;
  /** True while a broker JVM runs (false after killBroker()/stopBroker(), until restartBroker()). */
  readonly brokerRunning: boolean;
  /** The OS process id of the running broker JVM (its `/proc/<pid>`), undefined while none runs. */
  readonly brokerPid: number | undefined;
  /**
   * SIGKILLs the broker JVM (no shutdown hook, nothing flushed: like a crash); the namesrv stays up and
   * drops the broker from its routes. Resolves once the JVM has exited. No-op when no broker runs.
   */
  killBroker(): Promise<void>;
  /**
   * Stops the broker JVM gracefully (SIGTERM: it flushes, persists offsets and unregisters; ~10 s on a
   * small box), SIGKILL after `graceMs` (default 30 000). The namesrv stays up. No-op when no broker runs.
   */
  stopBroker(options?: { graceMs?: number }): Promise<void>;
  /**
   * Starts a new broker JVM on the same ports with the same configuration (stopping the running one
   * gracefully first, if any) and resolves once the namesrv lists it again, after having seen the old
   * registration go. With `wipeStore` the store is deleted first. Throws {@link LocalBrokerError} (with
   * the JVM's last output) when the new broker does not become ready; the namesrv keeps running.
   */
  restartBroker(options?: RestartBrokerOptions): Promise<void>;
  /** Stops both JVMs (SIGTERM, SIGKILL after the grace period) and removes the temp directory. */
  stop(): Promise<void>;
}

/**
 * Everything needed to (re)start the broker JVM of one local broker, prepared by startLocalBroker().
 */
export interface BrokerLaunch {
  homeDir: string;
  storeDir: string;
  logDir: string;
  env: NodeJS.ProcessEnv;
  /** Everything after `java` for the broker JVM. */
  brokerArgs: readonly string[];
  /** Log files quoted in error reports, by name. */
  logFiles: Readonly<Record<string, string>>;
  /** The broker's name and addresses, and how the probes reach the servers. */
  target: RegistrationTarget;
  clusterName: string;
  readyTimeoutMs: number;
  /** SIGTERM-to-SIGKILL grace of stop(). */
  stopGraceMs: number;
  /** Values masked in error reports. */
  secrets: readonly string[];
  log: Logger;
}

/**
 * The {@link LocalBroker} that startLocalBroker() hands out: one namesrv JVM for its life, broker JVMs
 * that come and go. Lifecycle operations run one after the other.
 */
export class RunningLocalBroker implements LocalBroker {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  readonly clusterName: string;
  readonly storeDir: string;
  readonly homeDir: string;
  readonly logDir: string;
  private readonly launch: BrokerLaunch;
  private readonly namesrv: JvmProcess;
  private broker: JvmProcess | undefined;
  /** Lifecycle operations run one after the other. */
  private queue: Promise<void> = Promise.resolve();
  private stopped: Promise<void> | undefined;

  constructor(launch: BrokerLaunch, namesrv: JvmProcess) {
    this.launch = launch;
    this.namesrv = namesrv;
    this.namesrvAddr = launch.target.namesrvAddr;
    this.brokerAddr = launch.target.brokerAddr;
    this.brokerName = launch.target.brokerName;
    this.clusterName = launch.clusterName;
    this.storeDir = launch.storeDir;
    this.homeDir = launch.homeDir;
    this.logDir = launch.logDir;
  }

  get brokerRunning(): boolean {
    return this.broker !== undefined && this.broker.exitStatus === undefined;
  }

  get brokerPid(): number | undefined {
    return this.brokerRunning ? this.broker?.pid : undefined;
  }

  /** The first broker JVM: on failure everything is stopped and the temp directory removed. */
  async startFirstBroker(startedAt: number): Promise<void> {
    try {
      await this.spawnBrokerAndWait(startedAt + this.launch.readyTimeoutMs);
    } catch (err) {
      const report = await this.report();
      await this.stop();
      const summary = this.failureSummary(err, 'starting the local broker failed');
      throw new LocalBrokerError(`${summary}\n${report}`, { cause: err });
    }
  }

  killBroker(): Promise<void> {
    return this.serialize('killBroker', async () => {
      const broker = this.broker;
      if (broker === undefined) return;
      await broker.kill();
      this.broker = undefined;
      this.launch.log.info({ brokerAddr: this.brokerAddr, pid: broker.pid }, 'local broker killed');
    });
  }

  stopBroker(options: { graceMs?: number } = {}): Promise<void> {
    return this.serialize('stopBroker', () =>
      this.stopBrokerNow(options.graceMs ?? DEFAULT_BROKER_STOP_GRACE_MS),
    );
  }

  restartBroker(options: RestartBrokerOptions = {}): Promise<void> {
    return this.serialize('restartBroker', async () => {
      const { log, readyTimeoutMs } = this.launch;
      const startedAt = Date.now();
      await this.stopBrokerNow(DEFAULT_BROKER_STOP_GRACE_MS);
      const deadline = startedAt + readyTimeoutMs;
      try {
        await waitForDeregistration(this.launch.target, this.namesrv, deadline);
      } catch (err) {
        throw new LocalBrokerError(
          `${this.failureSummary(err, 'the namesrv did not drop the old broker')}\n${await this.report()}`,
          { cause: err },
        );
      }
      if (options.wipeStore === true) {
        await rm(this.storeDir, { recursive: true, force: true });
        await mkdir(this.storeDir, { recursive: true });
      }
      try {
        await this.spawnBrokerAndWait(deadline);
      } catch (err) {
        const report = await this.report();
        await this.broker?.kill();
        this.broker = undefined;
        const summary = this.failureSummary(err, 'restarting the local broker failed');
        throw new LocalBrokerError(`${summary}\n${report}`, { cause: err });
      }
      log.info(
        {
          brokerAddr: this.brokerAddr,
          wipeStore: options.wipeStore === true,
          elapsedMs: Date.now() - startedAt,
        },
        'local broker restarted',
      );
    });
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      const { stopGraceMs } = this.launch;
      // A restart under way sees its JVM exit and fails; the queue is not awaited so stop() is prompt.
      await Promise.all([this.namesrv.stop(stopGraceMs), this.broker?.stop(stopGraceMs)]);
      this.broker = undefined;
      await rm(this.homeDir, { recursive: true, force: true });
    })();
    return this.stopped;
  }

  private async spawnBrokerAndWait(deadline: number): Promise<void> {
    const broker = spawnJvm({
      name: 'broker',
      args: this.launch.brokerArgs,
      cwd: this.homeDir,
      env: this.launch.env,
      removeDirIfOrphaned: this.homeDir,
      log: this.launch.log,
    });
    this.broker = broker;
    await waitForRegistration(this.launch.target, this.namesrv, broker, deadline);
  }

  private async stopBrokerNow(graceMs: number): Promise<void> {
    const broker = this.broker;
    if (broker === undefined) return;
    await broker.stop(graceMs);
    this.broker = undefined;
    this.launch.log.info({ brokerAddr: this.brokerAddr, pid: broker.pid }, 'local broker stopped');
  }

  private serialize(what: string, operation: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.stopped !== undefined) throw new LocalBrokerError(`${what}(): the local broker was stopped`);
      await operation();
    });
    // The next operation runs whatever this one's outcome; the caller gets the outcome from `run`.
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private failureSummary(err: unknown, fallback: string): string {
    const { namesrvAddr, brokerAddr } = this;
    if (err instanceof JvmExitedError) return err.message;
    if (err instanceof ReadinessTimeoutError) {
      return `the local broker was not ready within ${this.launch.readyTimeoutMs} ms (namesrv ${namesrvAddr}, broker ${brokerAddr})`;
    }
    return fallback;
  }

  private report(): Promise<string> {
    const jvms = this.broker === undefined ? [this.namesrv] : [this.namesrv, this.broker];
    return describeJvms(jvms, this.launch.logFiles, this.launch.secrets);
  }
}
