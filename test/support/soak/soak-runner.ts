/**
 * A soak run (`npm run soak`, and the short seeded soak of test/integration/soak): a 2-group
 * master/slave cluster (slave reads on), dynalite on disk, the test Invoke API serving the soak's
 * functions (soak-functions.ts), and several `rocketmq-lambda run` pollers of one service with four
 * mappings (concurrent, orderly, POP, and one with a tag filter). A producer sends at a fixed rate
 * while the seeded schedule (soak-schedule.ts) applies its faults; every fault's start and end is
 * logged. After the run the pollers drain, every poller is stopped with SIGTERM, and the verdict
 * (soak-verdict.ts) is computed, printed and written as JSON.
 *
 * One poller at a time reaches the brokers through toxiproxy (a name server of ours relays the real
 * one, naming each broker's proxy in the routes): the TCP faults act on the path between that poller
 * and one broker group.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Producer } from '../../../src/client/producer.js';
import type { RunConfigInput } from '../../../src/config/config-schema.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import type { LocalCluster } from '../../../src/local-broker/local-cluster.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { ClusterPoller } from '../../integration/cluster/cluster-poller.js';
import { clusterClient, startOwnCluster } from '../../integration/cluster/own-cluster.js';
import { FakeNameServer } from '../../integration/faults/fake-name-server.js';
import { scenarioDir } from '../../integration/faults/fault-scenario.js';
import { residentBytes } from '../../integration/faults/rss-sampler.js';
import { uniqueGroup, uniqueTopic } from '../broker.js';
import { type DurableDynaliteHandle, startDurableDynalite } from '../dynalite.js';
import { type LambdaApiFault, LambdaApiServer } from '../lambda-api-server.js';
import { waitFor } from '../wait-for.js';
import {
  registerSoakFunctions,
  SOAK_MAPPINGS,
  type SoakHandling,
  type SoakMapping,
  type SoakRole,
  soakFunctionName,
} from './soak-functions.js';
import {
  clock,
  formatSchedule,
  planSoakSchedule,
  SOAK_FAULT_KINDS,
  type SoakFault,
  type SoakFaultKind,
} from './soak-schedule.js';
import {
  formatVerdict,
  SOAK_FILTER_TAG,
  type SoakAppliedFault,
  type SoakMemorySample,
  type SoakPollerExit,
  type SoakSent,
  type SoakVerdict,
  soakVerdict,
} from './soak-verdict.js';
import { type Toxic, Toxiproxy } from './toxiproxy.js';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  seed: number;
  minutes: number;
  /** Gap between fault starts. @default 30-90 s */
  gapMs?: readonly [number, number];
  kinds?: readonly SoakFaultKind[];
  /** Messages per second over all topics. @default 30 */
  messagesPerSecond?: number;
  /** Pollers at the start (and the floor of scale-in and kills). @default 3 */
  pollers?: number;
  /** Where the verdict JSON goes. */
  verdictFile?: string;
  /**
   * The run's directory (each poller's config, health file and JSON log lines, dynalite's store), kept after the run for a
   * post-mortem; by default a temporary directory removed when the test ends.
   */
  keepDir?: string;
  /** How long the drain after the run may take. @default 240 s */
  drainTimeoutMs?: number;
  /**
   * The brokers' `messageDelayLevel` (the 18 delays of a retried message's levels; a concurrent
   * consumer's retry n waits level 3 + n). The short CI soak sets seconds, so its fail-always messages
   * reach the DLQ in seconds, not the 10 s + 30 s of the default levels. @default the broker's own
   */
  messageDelayLevel?: string;
  log?: (line: string) => void;
}

const QUEUES_PER_GROUP = 4;
const MIN_POLLERS = 1;
const MAX_POLLERS = 5;
/** The mappings' functionTimeoutMs (the smallest allowed); a timed-out invoke is given up 10 s later. */
const FUNCTION_TIMEOUT_MS = 1_000;
/** A "timeout" invoke answers after the poller gave up on it. */
const PAST_TIMEOUT_MS = FUNCTION_TIMEOUT_MS + 10_000 + 1_000;
/** Retries before the DLQ: 10 s then 30 s (delay levels 3 and 4). */
const MAX_RECONSUME_TIMES = 2;
/** More than any burst can use; what is left is cleared when it ends. */
const BURST_FAULTS = 20_000;
const STARTUP_TIMEOUT_MS = 180_000;
const MEMORY_SAMPLE_MS = 5_000;
const ORDERLY_KEYS = 16;
const ORDERLY_LANES = 4;
/** One message in this many of the concurrent topic is ~3 MiB of incompressible bytes. */
const HUGE_ONE_IN = 600;
const HUGE_BYTES = 3 * 1024 * 1024;
/** Compressed by the producer (zlib over 4 KiB). */
const COMPRESSED_BYTES = 16 * 1024;

/**
 * Runs a soak and resolves with its verdict (also printed through `log` and written to `verdictFile`).
 * Call it inside a vitest test: what it starts is stopped when the test ends.
 */
export async function runSoak(options: SoakOptions): Promise<SoakVerdict> {
  const log = options.log ?? ((line: string) => console.info(line));
  const runMs = options.minutes * 60_000;
  const schedule = planSoakSchedule({
    seed: options.seed,
    runMs,
    ...(options.gapMs ? { gapMs: options.gapMs } : {}),
    kinds: options.kinds ?? SOAK_FAULT_KINDS,
    pollerSlots: options.pollers ?? 3,
  });
  log(`[soak] seed ${options.seed}, ${options.minutes} min, ${schedule.length} faults:`);
  for (const line of formatSchedule(schedule)) log(`[soak]   ${line}`);

  const setupStartedAt = Date.now();
  const { onTestFinished } = await import('vitest');
  /** Stopped when the test ends, whether or not the rest of the setup got through. */
  const started = async <T>(start: Promise<T>, stop: (it: T) => unknown): Promise<T> => {
    const it = await start;
    onTestFinished(async () => {
      await stop(it);
    });
    return it;
  };
  const dir = options.keepDir ?? (await scenarioDir('soak'));
  if (options.keepDir !== undefined) {
    await mkdir(options.keepDir, { recursive: true });
    log(`[soak] the run's directory is kept: ${options.keepDir}`);
  }
  // What does not need the cluster starts while its five JVMs boot: dynalite, the Invoke API and, when
  // the schedule has TCP faults, toxiproxy (its first build takes a minute or two).
  const [clusterStart, dbStart, lambdaStart, toxiproxyStart] = await Promise.allSettled([
    started(
      startOwnCluster({
        brokerConfig: {
          waitTimeMillsInSendQueue: 5000,
          slaveReadEnable: true,
          ...(options.messageDelayLevel === undefined
            ? {}
            : { messageDelayLevel: options.messageDelayLevel }),
        },
      }),
      (c) => c.stop(),
    ),
    started(startDurableDynalite(path.join(dir, 'dynamodb')), (d) => d.close()),
    started(LambdaApiServer.start(), (l) => l.close()),
    schedule.some((f) => f.kind.startsWith('tcp-')) ? startToxiproxy(log) : Promise.resolve(undefined),
  ]);
  const cluster = fulfilled(clusterStart);
  const db = fulfilled(dbStart);
  const lambda = fulfilled(lambdaStart);
  const toxiproxy = fulfilled(toxiproxyStart);
  const handlings: SoakHandling[] = [];
  registerSoakFunctions(lambda, handlings);
  const client = clusterClient(cluster);
  onTestFinished(() => client.close());

  const topics = {
    concurrent: uniqueTopic('soak_conc'),
    orderly: uniqueTopic('soak_ord'),
    pop: uniqueTopic('soak_pop'),
  };
  for (const topic of Object.values(topics)) await cluster.createTopic(topic, QUEUES_PER_GROUP);
  const groups: Record<SoakMapping, string> = {
    concurrent: uniqueGroup('soak_conc'),
    orderly: uniqueGroup('soak_ord'),
    pop: uniqueGroup('soak_pop'),
    filter: uniqueGroup('soak_filter'),
  };

  // A "name server restart" stops the cluster's namesrv JVM and starts a new one on the same port
  // (src/local-broker/cluster-namesrv.ts): it knows no broker until each registers again.
  const tcp =
    toxiproxy === undefined ? undefined : await startTcpPath(toxiproxy, cluster, cluster.namesrvAddr);
  const pollers = new PollerPool(dir, {
    cluster,
    db,
    lambda,
    topics,
    groups,
    nameServer: cluster.namesrvAddr,
    proxiedNameServer: tcp?.nameServer.address,
  });
  const target = options.pollers ?? 3;
  // One after another: several tsx boots at once starve the brokers on two cores.
  for (let i = 0; i < target; i++) await pollers.add('start');
  log(
    `[soak] setup took ${((Date.now() - setupStartedAt) / 1000).toFixed(0)} s; pollers ${pollers.names().join(' ')}`,
  );

  const memory = new Map<string, SoakMemorySample[]>();
  const sampler = setInterval(() => {
    for (const p of pollers.running()) {
      const pid = p.pid();
      const rss = pid === undefined ? undefined : residentBytes(pid);
      if (rss === undefined) continue;
      const atMs = Date.now();
      void heapUsedBytes(p.metricsUrl()).then((heapBytes) => {
        const samples = memory.get(p.poller.name) ?? [];
        samples.push({ atMs, rssBytes: rss, heapBytes });
        memory.set(p.poller.name, samples);
      });
    }
  }, MEMORY_SAMPLE_MS);
  onTestFinished(() => clearInterval(sampler));

  const producer = new Producer({ client });
  await producer.start();
  onTestFinished(() => producer.shutdown());
  const runStartedAtMs = Date.now();
  const sent: SoakSent[] = [];
  const stream = startSoakStream(producer, topics, options.messagesPerSecond ?? 30, sent, options.seed);
  onTestFinished(() => stream.stop());

  const applied: SoakAppliedFault[] = [];
  const faults = new FaultApplier({
    cluster,
    db,
    lambda,
    pollers,
    tcp,
    log,
    runStartedAtMs,
    minPollers: MIN_POLLERS,
  });
  const timers: NodeJS.Timeout[] = [];
  const running: Promise<void>[] = [];
  for (const fault of schedule) {
    timers.push(
      setTimeout(() => {
        running.push(faults.run(fault, applied));
      }, fault.startMs),
    );
  }
  onTestFinished(() => {
    for (const t of timers) clearTimeout(t);
  });
  await sleep(runMs);
  for (const t of timers) clearTimeout(t);
  faults.endAll();
  await Promise.allSettled(running);
  stream.stop();
  await stream.done;
  log(
    `[soak] +${clock(Date.now() - runStartedAtMs)} run over: ${sent.length} sent, ${stream.failures()} send failures; draining`,
  );

  // At least the starting count of pollers drain.
  while (pollers.running().length < target) await pollers.add('drain');
  const dlqIds = new Map<SoakMapping, Set<string>>(SOAK_MAPPINGS.map((m) => [m, new Set<string>()]));
  const drainStartedAt = Date.now();
  let verdict = compute(Date.now());
  try {
    await waitFor(
      'the drain (every expected message delivered, every fail-always one in the DLQ)',
      options.drainTimeoutMs ?? 240_000,
      async () => {
        for (const mapping of SOAK_MAPPINGS)
          for (const id of await readDlq(client, cluster, groups[mapping])) dlqIds.get(mapping)?.add(id);
        verdict = compute(Date.now());
        if (verdict.lost > 0 || verdict.pastRetryLimitOutsideDlq > 0)
          throw new Error(`lost so far ${verdict.lost}, outside the DLQ ${verdict.pastRetryLimitOutsideDlq}`);
        return true;
      },
      // Each check reads the four DLQs on both masters: a few pulls.
      { intervalMs: 1_000 },
    );
  } catch (error) {
    log(
      `[soak] drain incomplete after ${((Date.now() - drainStartedAt) / 1000).toFixed(0)} s: ${String(error)}`,
    );
  }
  log(`[soak] drained in ${((Date.now() - drainStartedAt) / 1000).toFixed(0)} s`);
  clearInterval(sampler);
  await pollers.stopAll();
  if (options.keepDir !== undefined) await pollers.writeLogs();
  verdict = compute(Date.now());
  log(formatVerdict(verdict));
  if (options.verdictFile !== undefined) {
    await writeFile(
      options.verdictFile,
      `${JSON.stringify({ ...verdict, schedule, faultLog: applied }, null, 2)}\n`,
    );
    log(`[soak] verdict written to ${options.verdictFile}`);
  }
  return verdict;

  function compute(runEndedAtMs: number): SoakVerdict {
    return soakVerdict({
      seed: options.seed,
      minutes: options.minutes,
      runStartedAtMs,
      runEndedAtMs,
      sent,
      handlings,
      dlqIds,
      faults: applied,
      memory,
      exits: pollers.exits,
    });
  }
}

/** The proxied path of one poller to the brokers. */
interface TcpPath {
  toxiproxy: Toxiproxy;
  nameServer: FakeNameServer;
  /** Proxy names per broker group index (its master's and slaves'). */
  proxiesOfGroup: string[][];
}

/** The value of a settled start, or its error thrown. */
function fulfilled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** Toxiproxy, or undefined (logged: the TCP faults are skipped) when it cannot be built or started. */
async function startToxiproxy(log: (line: string) => void): Promise<Toxiproxy | undefined> {
  try {
    return await Toxiproxy.start();
  } catch (error) {
    log(`[soak] toxiproxy unavailable, TCP faults will be skipped: ${String(error)}`);
    return undefined;
  }
}

async function startTcpPath(
  toxiproxy: Toxiproxy,
  cluster: LocalCluster,
  nameServer: string,
): Promise<TcpPath> {
  const addresses = new Map<string, string>();
  const proxiesOfGroup: string[][] = [];
  for (const group of cluster.groups) {
    const names: string[] = [];
    for (const node of [group.master, ...group.slaves]) {
      const name = `${group.brokerName}-${node.brokerId}`;
      addresses.set(node.address, await toxiproxy.proxy(name, node.address));
      names.push(name);
    }
    proxiesOfGroup.push(names);
  }
  const relay = await FakeNameServer.start('garbage');
  relay.forwardTo(nameServer, addresses);
  return { toxiproxy, nameServer: relay, proxiesOfGroup };
}

interface PoolContext {
  cluster: LocalCluster;
  db: DurableDynaliteHandle;
  lambda: LambdaApiServer;
  topics: { concurrent: string; orderly: string; pop: string };
  groups: Record<SoakMapping, string>;
  /** What the pollers use as their name server (our proxy in front of the real one). */
  nameServer: string;
  proxiedNameServer: string | undefined;
}

interface PoolMember {
  poller: ClusterPoller;
  proxied: boolean;
  pid(): number | undefined;
  /** Its `/metrics` URL, once it logged its port. */
  metricsUrl(): string | undefined;
}

/** The soak's pollers: started with a config of their own (their name is the functions' qualifier). */
class PollerPool {
  readonly exits: SoakPollerExit[] = [];
  readonly #dir: string;
  readonly #context: PoolContext;
  readonly #members: PoolMember[] = [];
  /** Every poller started, ended ones included (their logs, for a kept run directory). */
  readonly #everyPoller: ClusterPoller[] = [];
  #count = 0;

  constructor(dir: string, context: PoolContext) {
    this.#dir = dir;
    this.#context = context;
  }

  running(): readonly PoolMember[] {
    return this.#members;
  }

  names(): string[] {
    return this.#members.map((m) => `${m.poller.name}${m.proxied ? '(proxied)' : ''}`);
  }

  /** Starts one more poller and waits for `poller started`; the first without a proxied peer is proxied. */
  async add(_why: string): Promise<PoolMember> {
    const name = `p${++this.#count}`;
    const proxied = this.#context.proxiedNameServer !== undefined && !this.#members.some((m) => m.proxied);
    const configFile = path.join(this.#dir, `${name}.json`);
    await writeFile(configFile, JSON.stringify(this.#config(name, proxied), null, 2));
    const poller = new ClusterPoller(this.#dir, name, configFile);
    this.#everyPoller.push(poller);
    poller.start();
    const member: PoolMember = {
      poller,
      proxied,
      pid: () => {
        const first = poller.logs()[0];
        return typeof first?.pid === 'number' ? first.pid : undefined;
      },
      metricsUrl: () => {
        const serving = poller.logs().find((line) => line.msg === 'serving /metrics, /healthz and /readyz');
        return typeof serving?.port === 'number' ? `http://127.0.0.1:${serving.port}/metrics` : undefined;
      },
    };
    this.#members.push(member);
    await poller.started(STARTUP_TIMEOUT_MS);
    return member;
  }

  /** Writes each poller's JSON log lines to `<dir>/<name>.log`. */
  async writeLogs(): Promise<void> {
    for (const poller of this.#everyPoller) {
      const lines = poller.logs().map((line) => JSON.stringify(line));
      await writeFile(path.join(this.#dir, `${poller.name}.log`), `${lines.join('\n')}\n`);
    }
  }

  /** Ends the member at `slot` (modulo the running count) with `signal`. */
  async end(slot: number, signal: 'SIGKILL' | 'SIGTERM', cause: string): Promise<string | undefined> {
    const member = this.#members[slot % this.#members.length];
    if (member === undefined) return undefined;
    this.#members.splice(this.#members.indexOf(member), 1);
    const exit = await member.poller.end(signal);
    this.exits.push({
      poller: member.poller.name,
      cause,
      code: exit.code,
      signal: exit.signal,
      ...(exit.code !== null && exit.code !== 0 ? { errors: lastErrors(member.poller.logs()) } : {}),
    });
    return member.poller.name;
  }

  proxiedMember(): PoolMember | undefined {
    return this.#members.find((m) => m.proxied);
  }

  async stopAll(): Promise<void> {
    while (this.#members.length > 0) await this.end(0, 'SIGTERM', 'end of run');
  }

  #config(name: string, proxied: boolean): RunConfigInput {
    const { db, lambda, topics, groups } = this.#context;
    const base = {
      startingPosition: 'TRIM_HORIZON' as const,
      functionTimeoutMs: FUNCTION_TIMEOUT_MS,
      batchSize: 10,
      maximumBatchingWindowMs: 50,
      maxReconsumeTimes: MAX_RECONSUME_TIMES,
    };
    const fn = (mapping: SoakMapping) => `${soakFunctionName(mapping)}:${name}`;
    return {
      nameServer: proxied
        ? (this.#context.proxiedNameServer ?? this.#context.nameServer)
        : this.#context.nameServer,
      shutdownTimeoutMs: 10_000,
      offsets: { store: 'dynamodb', table: 'soak_offsets', endpoint: db.endpoint, createTable: true },
      lambda: { endpoint: lambda.endpoint, region: 'us-east-1' },
      // The heap used, for the verdict's memory slopes (nodejs_heap_size_used_bytes).
      metrics: { prometheus: { port: 0, host: '127.0.0.1' } },
      mappings: [
        {
          ...base,
          name: 'soak-concurrent',
          topic: topics.concurrent,
          consumerGroup: groups.concurrent,
          function: fn('concurrent'),
        },
        {
          ...base,
          name: 'soak-orderly',
          topic: topics.orderly,
          consumerGroup: groups.orderly,
          function: fn('orderly'),
          orderly: true,
        },
        {
          ...base,
          name: 'soak-pop',
          topic: topics.pop,
          consumerGroup: groups.pop,
          function: fn('pop'),
          consumeMode: 'POP',
        },
        {
          ...base,
          name: 'soak-filter',
          topic: topics.concurrent,
          consumerGroup: groups.filter,
          function: fn('filter'),
          filter: SOAK_FILTER_TAG,
        },
      ],
    };
  }
}

interface FaultContext {
  cluster: LocalCluster;
  db: DurableDynaliteHandle;
  lambda: LambdaApiServer;
  pollers: PollerPool;
  tcp: TcpPath | undefined;
  log: (line: string) => void;
  runStartedAtMs: number;
  minPollers: number;
}

/** Applies faults: start, wait the fault's duration (or the end of the run), end. */
class FaultApplier {
  readonly #c: FaultContext;
  readonly #ends = new Set<() => void>();
  /** What is down now, so that an overlapping fault of the same thing is skipped, not doubled. */
  readonly #busy = new Set<string>();

  constructor(context: FaultContext) {
    this.#c = context;
  }

  /** Cuts every running fault short (the run is over). */
  endAll(): void {
    for (const end of this.#ends) end();
  }

  async run(fault: SoakFault, applied: SoakAppliedFault[]): Promise<void> {
    const c = this.#c;
    const at = () => `+${clock(Date.now() - c.runStartedAtMs)}`;
    const record: SoakAppliedFault = {
      index: fault.index,
      kind: fault.kind,
      target: String(fault.target),
      startedAtMs: Date.now(),
      endedAtMs: undefined,
    };
    applied.push(record);
    try {
      const plan = await this.#start(fault, record);
      if (plan === undefined) {
        record.endedAtMs = Date.now();
        c.log(`[soak] ${at()} fault #${fault.index} ${fault.kind} skipped: ${record.skipped}`);
        return;
      }
      c.log(`[soak] ${at()} fault #${fault.index} ${fault.kind} ${record.target} started`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, fault.durationMs);
        const ends = this.#ends;
        function done() {
          clearTimeout(timer);
          ends.delete(done);
          resolve();
        }
        ends.add(done);
      });
      await plan.end();
      record.endedAtMs = Date.now();
      c.log(
        `[soak] ${at()} fault #${fault.index} ${fault.kind} ${record.target} ended${plan.note ? `: ${plan.note()}` : ''}`,
      );
    } catch (error) {
      record.endedAtMs ??= Date.now();
      // Not applied (or not wholly): the verdict lists it with the skipped ones.
      record.skipped ??= `failed: ${String(error)}`;
      c.log(`[soak] ${at()} fault #${fault.index} ${fault.kind} failed: ${String(error)}`);
    }
  }

  /** Starts the fault; undefined (with `record.skipped` set) when it cannot apply now. */
  async #start(
    fault: SoakFault,
    record: SoakAppliedFault,
  ): Promise<{ end: () => Promise<void>; note?: () => string } | undefined> {
    const c = this.#c;
    const skip = (why: string) => {
      record.skipped = why;
      return undefined;
    };
    const claim = (what: string) => {
      if (this.#busy.has(what)) return false;
      this.#busy.add(what);
      return true;
    };
    const release = (what: string) => this.#busy.delete(what);
    switch (fault.kind) {
      case 'poller-sigkill':
      case 'poller-sigterm-restart': {
        if (c.pollers.running().length <= c.minPollers) return skip('no poller above the floor');
        const signal = fault.kind === 'poller-sigkill' ? 'SIGKILL' : 'SIGTERM';
        const name = await c.pollers.end(fault.target, signal, `fault #${fault.index} ${signal}`);
        record.target = name ?? '?';
        return { end: async () => void (await c.pollers.add(`after fault #${fault.index}`)) };
      }
      case 'scale-out': {
        if (c.pollers.running().length >= MAX_POLLERS) return skip(`already ${MAX_POLLERS} pollers`);
        const member = await c.pollers.add(`fault #${fault.index}`);
        record.target = member.poller.name;
        return {
          end: async () => {
            const slot = c.pollers.running().indexOf(member);
            if (slot >= 0 && c.pollers.running().length > c.minPollers)
              await c.pollers.end(slot, 'SIGTERM', `fault #${fault.index} scale back in`);
          },
        };
      }
      case 'scale-in': {
        if (c.pollers.running().length <= c.minPollers) return skip('no poller above the floor');
        record.target =
          (await c.pollers.end(fault.target, 'SIGTERM', `fault #${fault.index} scale-in`)) ?? '?';
        return { end: async () => void (await c.pollers.add(`after fault #${fault.index}`)) };
      }
      case 'master-sigkill':
      case 'slave-sigkill': {
        const group = c.cluster.groups[fault.target % c.cluster.groups.length];
        const node = fault.kind === 'master-sigkill' ? group?.master : group?.slaves[0];
        if (group === undefined || node === undefined) return skip('no such broker');
        const what = `${group.brokerName}-${node.brokerId}`;
        // One broker of a group down at a time: both down is a lost group, not this fault.
        if (!claim(group.brokerName)) return skip(`${group.brokerName} is already down`);
        record.target = what;
        await node.kill();
        return {
          end: async () => {
            try {
              await node.restart();
            } finally {
              release(group.brokerName);
            }
          },
        };
      }
      case 'namesrv-restart': {
        if (!claim('namesrv')) return skip('the name server is already down');
        record.target = 'namesrv JVM';
        await c.cluster.stopNamesrv();
        return {
          end: async () => {
            try {
              await c.cluster.startNamesrv();
            } finally {
              release('namesrv');
            }
          },
        };
      }
      case 'dynamodb-outage': {
        if (!claim('dynamodb')) return skip('DynamoDB is already down');
        record.target = 'dynalite';
        await c.db.stop();
        return {
          end: async () => {
            try {
              await c.db.start();
            } finally {
              release('dynamodb');
            }
          },
        };
      }
      case 'lambda-errors':
      case 'lambda-throttles':
      case 'lambda-timeouts': {
        if (!claim('lambda')) return skip('a Lambda burst is already on');
        const injected: LambdaApiFault =
          fault.kind === 'lambda-errors'
            ? { kind: 'function-error', errorMessage: `soak burst #${fault.index}` }
            : fault.kind === 'lambda-throttles'
              ? { kind: 'throttle' }
              : { kind: 'slow', delayMs: PAST_TIMEOUT_MS };
        record.target = 'all functions';
        const before = c.lambda.calls().length;
        // One at a time: spread into one call, this many arguments overflow the stack.
        for (const mapping of SOAK_MAPPINGS)
          for (let i = 0; i < BURST_FAULTS; i++) c.lambda.injectFaults(soakFunctionName(mapping), injected);
        return {
          end: async () => {
            for (const mapping of SOAK_MAPPINGS) c.lambda.clearFaults(soakFunctionName(mapping));
            release('lambda');
          },
          note: () => `${c.lambda.calls().length - before} invokes met it`,
        };
      }
      case 'tcp-latency':
      case 'tcp-bandwidth':
      case 'tcp-reset':
      case 'tcp-blackhole': {
        const tcp = c.tcp;
        if (tcp === undefined) return skip('toxiproxy is not available');
        const proxied = c.pollers.proxiedMember();
        if (proxied === undefined) return skip('no proxied poller is running');
        const groupIndex = fault.target % tcp.proxiesOfGroup.length;
        if (!claim(`tcp-${groupIndex}`)) return skip('a TCP fault is already on that path');
        const toxic = toxicOf(fault.kind, `soak-${fault.index}`);
        const proxies = tcp.proxiesOfGroup[groupIndex] ?? [];
        record.target = `${proxied.poller.name} -> ${c.cluster.groups[groupIndex]?.brokerName}`;
        for (const proxy of proxies) await tcp.toxiproxy.addToxic(proxy, toxic);
        return {
          end: async () => {
            try {
              for (const proxy of proxies) await tcp.toxiproxy.removeToxic(proxy, toxic.name);
            } finally {
              release(`tcp-${groupIndex}`);
            }
          },
        };
      }
      default:
        return skip('unknown kind');
    }
  }
}

function toxicOf(kind: SoakFaultKind, name: string): Toxic {
  switch (kind) {
    case 'tcp-latency':
      return { name, type: 'latency', stream: 'downstream', attributes: { latency: 1_500, jitter: 500 } };
    case 'tcp-bandwidth':
      // KB/s: a 3 MiB message takes minutes.
      return { name, type: 'bandwidth', stream: 'downstream', attributes: { rate: 32 } };
    case 'tcp-reset':
      return { name, type: 'reset_peer', stream: 'upstream', attributes: { timeout: 0 } };
    default:
      // Data is dropped and the connection never closes while the toxic is on.
      return { name, type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } };
  }
}

/** The ids of the messages in `%DLQ%<group>` on every master (queue 0). */
async function readDlq(
  client: ReturnType<typeof clusterClient>,
  cluster: LocalCluster,
  group: string,
): Promise<string[]> {
  const ids: string[] = [];
  const topic = dlqTopicOf(group);
  for (const g of cluster.groups) {
    let offset = 0;
    for (;;) {
      let result: Awaited<ReturnType<typeof client.broker.pullMessage>>;
      try {
        result = await client.broker.pullMessage(g.master.address, {
          consumerGroup: `${group}_dlqreader`,
          topic,
          queueId: 0,
          queueOffset: offset,
          maxMsgNums: 32,
          sysFlag: buildPullSysFlag({ suspend: false, subscription: true }),
          commitOffset: 0,
          suspendTimeoutMillis: 0,
          subscription: '*',
          expressionType: 'TAG',
          subVersion: 0,
          bname: g.brokerName,
        });
      } catch {
        break; // no DLQ on that master (yet), or the master is down: read again at the next check
      }
      if (result.status !== 'FOUND') break;
      for (const m of result.messages) ids.push(m.msgId);
      if (result.nextBeginOffset <= offset) break;
      offset = result.nextBeginOffset;
    }
  }
  return ids;
}

interface SoakStream {
  readonly done: Promise<void>;
  stop(): void;
  failures(): number;
}

/**
 * The soak's producer: the concurrent topic gets `ok` messages with a share failing once or always,
 * some compressed, a few huge; a third carry the filter's tag. The orderly topic gets per-key
 * sequences, one send in flight per lane (a lane owns its keys: order per key is send order). The POP
 * topic gets small messages. Sizes and roles are drawn from the seed.
 */
function startSoakStream(
  producer: Producer,
  topics: { concurrent: string; orderly: string; pop: string },
  messagesPerSecond: number,
  sent: SoakSent[],
  seed: number,
): SoakStream {
  let stopped = false;
  let failures = 0;
  let random = seed >>> 0;
  const next = () => {
    random = (Math.imul(random, 1_103_515_245) + 12_345) >>> 0;
    return random / 4_294_967_296;
  };
  const startedAt = Date.now();
  const share = { concurrent: 0.5, orderly: 0.3, pop: 0.2 };
  const due = (part: number, done: number) =>
    Math.floor(((Date.now() - startedAt) / 1000) * messagesPerSecond * part) - done;
  const record = (
    id: string,
    topic: string,
    mappings: SoakMapping[],
    role: SoakRole,
    result: { brokerName: string; queueId: number; queueOffset?: number },
    shardKey?: string,
  ) => {
    sent.push({
      id,
      topic,
      mappings,
      role,
      brokerName: result.brokerName,
      queueId: result.queueId,
      queueOffset: result.queueOffset,
      sentAtMs: Date.now(),
      shardKey,
    });
  };
  const send = async (fn: () => Promise<void>) => {
    // A send the cluster refuses (a master just died) is tried again: the ledger counts what was sent.
    for (let attempt = 0; !stopped || attempt === 0; attempt++) {
      try {
        await fn();
        return;
      } catch {
        failures++;
        await sleep(500);
      }
    }
  };
  let concurrentDone = 0;
  let popDone = 0;
  const concurrentLoop = async () => {
    let n = 0;
    while (!stopped) {
      const count = due(share.concurrent, concurrentDone);
      if (count <= 0) {
        await sleep(20);
        continue;
      }
      const batch = Math.min(count, 8);
      concurrentDone += batch;
      await Promise.all(
        Array.from({ length: batch }, () => {
          const i = n++;
          const roll = next();
          const role: SoakRole = roll < 0.03 ? 'fail-once' : roll < 0.035 ? 'fail-always' : 'ok';
          const keep = next() < 1 / 3;
          const size = i % HUGE_ONE_IN === HUGE_ONE_IN - 1 ? 'huge' : next() < 0.1 ? 'compressed' : 'small';
          const body =
            size === 'huge'
              ? randomBytes(HUGE_BYTES, i)
              : size === 'compressed'
                ? Buffer.from(`soak ${i} `.repeat(COMPRESSED_BYTES / 8).slice(0, COMPRESSED_BYTES))
                : Buffer.from(`soak ${i}`);
          return send(async () => {
            const result = await producer.send({
              topic: topics.concurrent,
              body,
              tags: keep ? SOAK_FILTER_TAG : 'other',
              properties: { soak: role, size },
            });
            record(
              result.msgId,
              topics.concurrent,
              keep ? ['concurrent', 'filter'] : ['concurrent'],
              role,
              result,
            );
          });
        }),
      );
    }
  };
  const popLoop = async () => {
    let n = 0;
    while (!stopped) {
      const count = due(share.pop, popDone);
      if (count <= 0) {
        await sleep(20);
        continue;
      }
      const batch = Math.min(count, 4);
      popDone += batch;
      await Promise.all(
        Array.from({ length: batch }, () => {
          const i = n++;
          return send(async () => {
            const result = await producer.send({
              topic: topics.pop,
              body: `pop ${i}`,
              properties: { soak: 'ok' },
            });
            record(result.msgId, topics.pop, ['pop'], 'ok', result);
          });
        }),
      );
    }
  };
  const orderlyLoop = async (lane: number) => {
    const seqs = new Map<string, number>();
    let done = 0;
    let k = 0;
    while (!stopped) {
      if (due(share.orderly / ORDERLY_LANES, done) <= 0) {
        await sleep(20);
        continue;
      }
      done++;
      const key = `k${lane + ORDERLY_LANES * (k++ % (ORDERLY_KEYS / ORDERLY_LANES))}`;
      const seq = seqs.get(key) ?? 0;
      let ok = false;
      await send(async () => {
        const result = await producer.send(
          {
            topic: topics.orderly,
            body: `${key} ${seq}`,
            properties: { soak: 'ok', shardKey: key, seq: String(seq) },
          },
          { shardingKey: key },
        );
        record(result.msgId, topics.orderly, ['orderly'], 'ok', result, key);
        ok = true;
      });
      if (ok) seqs.set(key, seq + 1);
    }
  };
  const done = Promise.all([
    concurrentLoop(),
    popLoop(),
    ...Array.from({ length: ORDERLY_LANES }, (_, lane) => orderlyLoop(lane)),
  ]).then(() => undefined);
  return {
    done,
    stop() {
      stopped = true;
    },
    failures: () => failures,
  };
}

/** `nodejs_heap_size_used_bytes` from a poller's `/metrics`, or undefined when it cannot be read. */
async function heapUsedBytes(url: string | undefined): Promise<number | undefined> {
  if (url === undefined) return undefined;
  try {
    const text = await (await fetch(url, { signal: AbortSignal.timeout(2_000) })).text();
    const value = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1];
    return value === undefined ? undefined : Number(value);
  } catch {
    return undefined;
  }
}

/** Incompressible bytes, different per message. */
function randomBytes(size: number, salt: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let x = (salt * 2_654_435_761) >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes.writeUInt32LE(x >>> 0, i);
  }
  return bytes;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The last error-level (pino level >= 50) lines of a poller's log: message and error message. */
function lastErrors(logs: readonly Record<string, unknown>[], count = 3): string[] {
  return logs
    .filter((line) => typeof line.level === 'number' && line.level >= 50)
    .slice(-count)
    .map((line) => {
      const err = line.err as { message?: unknown } | undefined;
      const mapping = typeof line.mapping === 'string' ? `${line.mapping}: ` : '';
      return `${mapping}${String(line.msg)}${typeof err?.message === 'string' ? `: ${err.message}` : ''}`;
    });
}
