/**
 * One broker JVM of a local cluster (a master or a slave of one broker group), with the fault controls
 * the cluster tests need: SIGKILL it, stop it gracefully, start it again on the same ports and store
 * (or a wiped one). Every (re)start waits until the namesrv lists the JVM under its broker id.
 */
import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from '../util/logger.js';
import {
  askToRegister,
  describeJvms,
  JvmExitedError,
  ReadinessTimeoutError,
  type RegistrationTarget,
  waitForDeregistration,
  waitForRegistration,
} from './broker-readiness.js';
import type { ClusterNamesrv } from './cluster-namesrv.js';
import { type JvmProcess, spawnJvm } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';

/** A broker stopped on purpose gets time to flush, persist offsets and unregister. */
const DEFAULT_NODE_STOP_GRACE_MS = 30_000;

/**
 * One broker of a {@link LocalCluster}: its identity, addresses and controls.
 */
export interface LocalClusterNode {
  brokerName: string;
  /** 0 for the master, 1.. for its slaves. */
  brokerId: number;
  role: 'master' | 'slave';
  /** `127.0.0.1:<listenPort>`: what routes list under {@link brokerId}; the same after restarts. */
  address: string;
  /** The HA port (listenPort + 1): a master accepts its slaves' replication connections there. */
  haPort: number;
  storeDir: string;
  /** This broker's log file (restarts append to it). */
  logFile: string;
  /** True while its JVM runs. */
  readonly running: boolean;
  /** SIGKILLs the JVM (nothing flushed, no unregistration); resolves once it exited. No-op when down. */
  kill(): Promise<void>;
  /** SIGTERM (it flushes and unregisters), SIGKILL after `graceMs` (default 30 000). No-op when down. */
  stop(options?: { graceMs?: number }): Promise<void>;
  /**
   * Starts a new JVM with the same configuration (stopping a running one gracefully first) and resolves
   * once the namesrv lists it again. With `wipeStore` its store is deleted first.
   */
  restart(options?: { wipeStore?: boolean }): Promise<void>;
}

/** What a {@link ClusterBrokerNode} needs to (re)start its JVM. */
export interface ClusterNodeLaunch {
  brokerId: number;
  haPort: number;
  storeDir: string;
  logFile: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  /** Everything after `java`. */
  args: readonly string[];
  target: RegistrationTarget;
  namesrv: ClusterNamesrv;
  namesrvLogFile: string;
  readyTimeoutMs: number;
  /** SIGTERM-to-SIGKILL grace when the whole cluster stops. */
  stopGraceMs: number;
  log: Logger;
  /** Values masked in the log tails of errors (ACL secret keys, key passwords). */
  secrets?: readonly string[] | undefined;
}

/**
 * The {@link LocalClusterNode} a local cluster hands out. Lifecycle operations run one after the other.
 */
export class ClusterBrokerNode implements LocalClusterNode {
  readonly brokerName: string;
  readonly brokerId: number;
  readonly role: 'master' | 'slave';
  readonly address: string;
  readonly haPort: number;
  readonly storeDir: string;
  readonly logFile: string;
  private readonly launch: ClusterNodeLaunch;
  private jvm: JvmProcess | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(launch: ClusterNodeLaunch) {
    this.launch = launch;
    this.brokerName = launch.target.brokerName;
    this.brokerId = launch.brokerId;
    this.role = launch.brokerId === 0 ? 'master' : 'slave';
    this.address = launch.target.brokerAddr;
    this.haPort = launch.haPort;
    this.storeDir = launch.storeDir;
    this.logFile = launch.logFile;
  }

  get running(): boolean {
    return this.jvm !== undefined && this.jvm.exitStatus === undefined;
  }

  /** The first JVM: throws {@link LocalBrokerError} with the JVMs' last output when it is not ready by `deadline`. */
  async start(deadline: number): Promise<void> {
    await this.spawnAndWait(deadline, 'starting');
  }

  kill(): Promise<void> {
    return this.serialize('kill', async () => {
      const jvm = this.jvm;
      if (jvm === undefined) return;
      await jvm.kill();
      this.jvm = undefined;
      this.launch.log.info(
        { brokerAddr: this.address, brokerId: this.brokerId, pid: jvm.pid },
        'broker killed',
      );
    });
  }

  stop(options: { graceMs?: number } = {}): Promise<void> {
    return this.serialize('stop', () => this.stopNow(options.graceMs ?? DEFAULT_NODE_STOP_GRACE_MS));
  }

  restart(options: { wipeStore?: boolean } = {}): Promise<void> {
    return this.serialize('restart', async () => {
      const startedAt = Date.now();
      const deadline = startedAt + this.launch.readyTimeoutMs;
      await this.stopNow(DEFAULT_NODE_STOP_GRACE_MS);
      try {
        await waitForDeregistration(this.launch.target, () => this.launch.namesrv.watched(), deadline);
      } catch (err) {
        throw await this.failure(err, 'the namesrv did not drop the old broker');
      }
      if (options.wipeStore === true) {
        await rm(this.storeDir, { recursive: true, force: true });
        await mkdir(this.storeDir, { recursive: true });
      }
      await this.spawnAndWait(deadline, 'restarting');
      this.launch.log.info(
        { brokerAddr: this.address, brokerId: this.brokerId, elapsedMs: Date.now() - startedAt },
        'broker restarted',
      );
    });
  }

  /** Stops the JVM for good (the cluster's stop()); later operations fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.jvm?.stop(this.launch.stopGraceMs);
    this.jvm = undefined;
  }

  /** Makes the broker register now (a slave then learns its master's HA address); see askToRegister(). */
  async register(): Promise<void> {
    await askToRegister(this.launch.target);
  }

  private async spawnAndWait(deadline: number, what: string): Promise<void> {
    const jvm = spawnJvm({
      name: `${this.brokerName}-${this.brokerId}`,
      args: this.launch.args,
      cwd: this.launch.homeDir,
      env: this.launch.env,
      removeDirIfOrphaned: this.launch.homeDir,
      log: this.launch.log,
    });
    this.jvm = jvm;
    try {
      await waitForRegistration(this.launch.target, () => this.launch.namesrv.watched(), jvm, deadline);
    } catch (err) {
      const failure = await this.failure(err, `${what} ${this.brokerName}-${this.brokerId} failed`);
      await jvm.kill();
      this.jvm = undefined;
      throw failure;
    }
  }

  private async stopNow(graceMs: number): Promise<void> {
    const jvm = this.jvm;
    if (jvm === undefined) return;
    await jvm.stop(graceMs);
    this.jvm = undefined;
  }

  private serialize(what: string, operation: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.closed) throw new LocalBrokerError(`${what}(): the local cluster was stopped`);
      await operation();
    });
    // The next operation runs whatever this one's outcome; the caller gets the outcome from `run`.
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async failure(err: unknown, fallback: string): Promise<LocalBrokerError> {
    const namesrv = this.launch.namesrv.current();
    const jvms = [namesrv, this.jvm].filter((jvm) => jvm !== undefined);
    const report = await describeJvms(
      jvms,
      {
        'namesrv.log': this.launch.namesrvLogFile,
        [`${this.brokerName}-${this.brokerId}.log`]: this.logFile,
      },
      this.launch.secrets ?? [],
    );
    let summary = fallback;
    if (err instanceof JvmExitedError) summary = err.message;
    else if (err instanceof ReadinessTimeoutError) {
      summary = `${this.brokerName}-${this.brokerId} (${this.address}) was not registered within ${this.launch.readyTimeoutMs} ms`;
    }
    return new LocalBrokerError(`${summary}\n${report}`, { cause: err });
  }
}
