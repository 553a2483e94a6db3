/**
 * PopConsumer: one mapping consumed with RocketMQ 5's POP (consumeMode POP). Instead of owning queues
 * (rebalance, offsets kept by the client), every poller long-polls every master of the topic for any
 * queue, and the broker hands each message to one of them, invisible to the others until acked or its
 * invisible time is over. So more pollers than queues all get work, and no offset store is involved.
 *
 * Composed of a {@link TopicRouteTable} (which brokers, their masters; refreshed on a timer), one
 * {@link PopBrokerLoop} per broker group, {@link InFlightSlots} (at most `maxConcurrency` batches popped
 * and unsettled) and a {@link PopBatchSettler} (ack, change invisible time, DLQ). Batches go to the same
 * {@link MessageListener} the pull consumer uses, with the same result contract.
 */
import { PopClient } from '../../client/pop-client.js';
import type { RemotingTransport } from '../../client/transport.js';
import { buildSubscriptionData, type SubscriptionData } from '../../protocol/subscription.js';
import { describeError } from '../../util/describe-error.js';
import { childLogger, componentLogger, type Logger } from '../../util/logger.js';
import { PeriodicTask } from '../../util/periodic-task.js';
import { settlesWithin } from '../../util/settles-within.js';
import { assessPopConsumeState, type ConsumeState } from '../consume-state.js';
import type { ConsumerBrokerCalls, ConsumerClient } from '../consumer-client.js';
import { type ConsumerCounters, newConsumerCounters, snapshotCounters } from '../consumer-counters.js';
import { isFatalListenerError } from '../consumer-errors.js';
import type { ConsumerHealth } from '../consumer-health.js';
import type { ConsumerLag } from '../consumer-lag.js';
import { ConsumerLifecycle } from '../consumer-lifecycle.js';
import type { ConsumerRuntimeEvent, ConsumerState } from '../consumer-status.js';
import type { MappingConsumer } from '../mapping-consumer.js';
import { ConsumerHeartbeat } from '../membership/consumer-heartbeat.js';
import { MembershipRecovery } from '../membership/membership-recovery.js';
import { TopicRouteTable } from '../membership/topic-route-table.js';
import type { ConsumeResult, MessageListener } from '../message-listener.js';
import { ConsumerRefusedError, isPermanentRefusal, RefusalWatch } from '../refusal-watch.js';
import { InFlightSlots } from './in-flight-slots.js';
import { measurePopBacklog, type PopBacklog } from './pop-backlog.js';
import { PopBatchSettler, type PopDelivery } from './pop-batch-settler.js';
import { PopBrokerLoop } from './pop-broker-loop.js';
import {
  type NormalizedPopConsumerOptions,
  normalizePopConsumerOptions,
  type PopConsumerOptions,
} from './pop-consumer-options.js';
import { popLag } from './pop-lag.js';
import { buildPopRunningInfo } from './pop-running-info.js';
import { assessPopHealth, newPopCounters, type PopConsumerStatus, type PopCounters } from './pop-status.js';

/** What a POP consumer needs of the client layer; a `RocketMQClient` satisfies it. */
export interface PopConsumerClient {
  readonly clientId: string;
  readonly nameServer: ConsumerClient['nameServer'];
  /** CONSUMER_SEND_MSG_BACK (the DLQ), registration, and what the backlog is read with. */
  readonly broker: Pick<
    ConsumerBrokerCalls,
    | 'consumerSendMsgBack'
    | 'heartbeat'
    | 'unregisterClient'
    | 'getConsumerListByGroup'
    | 'getMaxOffset'
    | 'getMinOffset'
    | 'queryConsumerOffset'
  >;
  /** Carries the POP calls. */
  readonly pool: RemotingTransport;
  /** Where the consumer's answer to GET_CONSUMER_RUNNING_INFO is registered (`status` asks it); absent: no answer. */
  readonly requestHandler?: Pick<ConsumerClient['requestHandler'], 'setRunningInfoProvider'> | undefined;
}

/** What a POP consumer is built from besides its options. */
export interface PopConsumerDeps {
  /** Shared by the consumers of one poller; not closed by the consumer. */
  client: PopConsumerClient;
  listener: MessageListener;
  logger?: Logger | undefined;
  /** The POP calls; default: a {@link PopClient} over `client.pool`. */
  pop?: Pick<PopClient, 'popMessage' | 'ackMessage' | 'changeInvisibleTime'> | undefined;
}

/** One batch being consumed. */
interface InFlightBatch {
  readonly size: number;
  readonly controller: AbortController;
  /** Settles once the batch is consumed and settled (or given up). */
  done: Promise<void>;
}

/**
 * The POP consumer of one mapping.
 */
export class PopConsumer implements MappingConsumer {
  readonly mode = 'POP';
  readonly options: NormalizedPopConsumerOptions;
  readonly counters: ConsumerCounters = newConsumerCounters();
  readonly popCounters: PopCounters = newPopCounters();
  private readonly client: PopConsumerClient;
  private readonly listener: MessageListener;
  private readonly log: Logger;
  private readonly pop: Pick<PopClient, 'popMessage' | 'ackMessage' | 'changeInvisibleTime'>;
  private readonly routes: TopicRouteTable;
  private readonly subscription: SubscriptionData;
  private readonly slots: InFlightSlots;
  private readonly settler: PopBatchSettler;
  private readonly refusals: RefusalWatch;
  private readonly routeTask: PeriodicTask;
  private readonly heartbeat: ConsumerHeartbeat;
  private unregisterRunningInfo: (() => void) | undefined;
  private readonly heartbeatTask: PeriodicTask;
  /** Fast retries of the route and the heartbeats while one of them is missing. */
  private readonly recovery: MembershipRecovery;
  private readonly loops = new Map<string, PopBrokerLoop>();
  private readonly inFlight = new Set<InFlightBatch>();
  private readonly lifecycle: ConsumerLifecycle;

  constructor(options: PopConsumerOptions, deps: PopConsumerDeps) {
    this.options = normalizePopConsumerOptions(options);
    const o = this.options;
    this.client = deps.client;
    this.listener = deps.listener;
    this.log = childLogger(componentLogger('consumer.pop', deps.logger), {
      mapping: o.name,
      consumerGroup: o.consumerGroup,
    });
    this.lifecycle = new ConsumerLifecycle({
      noun: 'consumer',
      log: this.log,
      stop: () => this.release(),
      started: () =>
        this.log.info({ brokers: [...this.loops.keys()], clientId: this.clientId }, 'POP consumer started'),
      stopped: () => this.log.info({ counters: this.popCounters }, 'POP consumer stopped'),
    });
    this.pop = deps.pop ?? new PopClient({ transport: deps.client.pool });
    this.routes = new TopicRouteTable({
      nameServer: deps.client.nameServer,
      log: this.log,
      // A broker new to the route is heartbeated and popped from at once, not at the next periods.
      onBrokersAdded: () => this.recovery.kick(),
    });
    this.subscription = buildSubscriptionData(o.topic, o.filter.expression, o.filter.type);
    this.slots = new InFlightSlots(o.maxConcurrency);
    this.refusals = new RefusalWatch((error) => this.onFatal(error));
    this.settler = new PopBatchSettler({
      pop: this.pop,
      broker: deps.client.broker,
      listener: deps.listener,
      consumerGroup: o.consumerGroup,
      topic: o.topic,
      maxReconsumeTimes: o.maxReconsumeTimes,
      retryDelaysMs: o.retryDelaysMs,
      counters: this.counters,
      popCounters: this.popCounters,
      log: this.log,
    });
    // After each periodic task, the recovery checks whether something went missing (no I/O when not).
    this.routeTask = new PeriodicTask(
      'route refresh',
      o.routeRefreshIntervalMs,
      () => this.syncBrokers().finally(() => this.recovery.kick()),
      this.log,
    );
    // Registered as CONSUME_POP: the broker lists the pollers of the group (operators' consumer
    // connections, and the member count that divides the backlog, see backlog()). POP itself does not
    // need it: a pop is answered without registration.
    this.heartbeat = new ConsumerHeartbeat({
      clientId: deps.client.clientId,
      broker: deps.client.broker,
      routes: this.routes,
      options: {
        consumerGroup: o.consumerGroup,
        messageModel: 'CLUSTERING',
        startingPosition: o.startingPosition,
      },
      consumeType: 'CONSUME_POP',
      subscriptions: [this.subscription],
      log: this.log,
      outcomes: this.refusals,
    });
    this.heartbeatTask = new PeriodicTask(
      'heartbeat',
      o.heartbeatIntervalMs,
      async () => {
        await this.heartbeat.sendToAll().finally(() => this.recovery.kick());
      },
      this.log,
    );
    // POP has no rebalance: its counterpart is a pop loop per broker group serving the topic, which
    // syncLoops starts (a broker group that a route refreshed by a loop's stale-route hint adds gets its
    // loop there, not 30 s later at the next route refresh).
    this.recovery = new MembershipRecovery({
      topic: o.topic,
      routes: this.routes,
      refreshRoutes: () => this.syncBrokers(),
      heartbeat: this.heartbeat,
      rebalance: () => this.syncLoops(),
      decided: () => this.loopsInPlace(),
      log: this.log,
    });
  }

  /** The lifecycle state. */
  get state(): ConsumerState {
    return this.lifecycle.state;
  }

  /** The client id of the client this consumer uses. */
  get clientId(): string {
    return this.client.clientId;
  }

  /** Subscribes to lifecycle events (`started`, `fatal`, `stopped`); returns the unsubscribe function. */
  onEvent(listener: (event: ConsumerRuntimeEvent) => void): () => void {
    return this.lifecycle.onEvent(listener);
  }

  /**
   * Looks up the topic's route and starts popping from every master that serves it. A name server
   * that refuses us for good stops the start; a topic without a route yet is waited for (the route
   * refresh picks it up).
   */
  start(): Promise<void> {
    return this.lifecycle.start(() => this.connect());
  }

  private async connect(): Promise<void> {
    // The running info `status` asks each poller of the group for (pop-running-info.ts).
    this.unregisterRunningInfo = this.client.requestHandler?.setRunningInfoProvider(
      this.options.consumerGroup,
      async () =>
        buildPopRunningInfo(await this.status(), [this.subscription], {
          maxConcurrency: this.options.maxConcurrency,
        }),
    );
    await this.syncBrokers();
    const failure = this.routes.lastFailure(this.options.topic);
    if (isPermanentRefusal(failure))
      throw new ConsumerRefusedError('the name servers refuse this consumer', failure);
    if (this.loops.size === 0)
      this.log.warn({ topic: this.options.topic }, 'topic has no readable broker yet: waiting');
    await this.heartbeat.sendToAll();
    this.routeTask.start();
    this.heartbeatTask.start();
    // A route or a broker missing now is retried within seconds, not periods.
    this.recovery.start();
  }

  /**
   * Stops popping, lets batches in flight finish and settle (up to `shutdownTimeoutMs`; an aborted batch
   * is not settled and comes back after its invisible time). Resolves when all is done; idempotent.
   */
  stop(): Promise<void> {
    return this.lifecycle.stop();
  }

  /** A snapshot of state, brokers, in-flight work and counters. */
  async status(): Promise<PopConsumerStatus> {
    return this.snapshot();
  }

  private snapshot(): PopConsumerStatus {
    const o = this.options;
    let inFlightMessages = 0;
    for (const batch of this.inFlight) inFlightMessages += batch.size;
    return {
      mode: 'POP',
      name: o.name,
      consumerGroup: o.consumerGroup,
      topic: o.topic,
      clientId: this.clientId,
      state: this.lifecycle.state,
      error: this.lifecycle.fatalError,
      startedAtMs: this.lifecycle.startedAtMs,
      brokers: [...this.loops.values()].map((loop) => loop.progress()),
      inFlightBatches: this.inFlight.size,
      inFlightMessages,
      counters: snapshotCounters(this.counters),
      popCounters: { ...this.popCounters },
    };
  }

  /**
   * The group's backlog on every readable queue of the topic and on its POP retry queues (failed messages
   * waiting for their next delivery), and the pollers sharing it (pop-backlog.ts). Never throws; a queue that cannot be read carries its error.
   */
  backlog(): Promise<PopBacklog> {
    const o = this.options;
    return measurePopBacklog({
      topic: o.topic,
      consumerGroup: o.consumerGroup,
      startingPosition: o.startingPosition,
      routes: this.routes,
      broker: this.client.broker,
    });
  }

  /**
   * This poller's share of the group's backlog (pop-lag.ts): the pollers of a POP group pop every queue,
   * so none holds one.
   */
  async lag(): Promise<ConsumerLag> {
    return popLag(this.options, await this.backlog());
  }

  /** Whether the consumer is doing its job (pop-status.ts). */
  health(nowMs = Date.now()): ConsumerHealth {
    const snapshot = this.snapshot();
    return assessPopHealth(snapshot, nowMs, {
      state: this.consumeState(snapshot),
      graceMs: this.options.readinessGraceMs,
    });
  }

  /** What the consumer can do now: pop, or not and why (consume-state.ts). */
  consumeState(snapshot: PopConsumerStatus = this.snapshot()): ConsumeState {
    const o = this.options;
    return assessPopConsumeState({
      lifecycle: snapshot.state,
      topic: o.topic,
      consumerGroup: o.consumerGroup,
      startedAtMs: snapshot.startedAtMs,
      routeKnown: this.routes.route(o.topic) !== undefined,
      routeFailure: this.routes.lastFailure(o.topic),
      routeFailingSinceMs: this.routes.failingSinceMs(o.topic),
      brokers: snapshot.brokers,
    });
  }

  /** The stop's work (nothing in it makes the stop unclean). */
  private async release(): Promise<undefined> {
    await Promise.all([this.recovery.stop(), this.routeTask.stop(), this.heartbeatTask.stop()]);
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()));
    const pending = () => Promise.all([...this.inFlight].map((batch) => batch.done));
    if (!(await settlesWithin(pending(), this.options.shutdownTimeoutMs))) {
      this.log.warn({ batches: this.inFlight.size }, 'shutdown timeout: aborting the batches in flight');
      for (const batch of this.inFlight) batch.controller.abort();
      await pending();
    }
    // The other pollers of the group then count one less (their backlog share grows at once).
    await this.heartbeat.unregisterFromAll();
    this.unregisterRunningInfo?.();
    this.unregisterRunningInfo = undefined;
    this.settler.flushLogs();
    return undefined;
  }

  /** Refreshes the route, then {@link syncLoops}. */
  private async syncBrokers(): Promise<void> {
    await this.routes.refresh(this.options.topic);
    await this.syncLoops();
  }

  /** The broker groups the known route has serve the topic (readable queues). */
  private servingBrokers(): Set<string> {
    return new Set((this.routes.readableQueues(this.options.topic) ?? []).map((queue) => queue.brokerName));
  }

  /** Every broker group serving the topic has its loop, and no other has one. */
  private loopsInPlace(): boolean {
    const serving = this.servingBrokers();
    if (serving.size !== this.loops.size) return false;
    for (const brokerName of serving) if (!this.loops.has(brokerName)) return false;
    return true;
  }

  /** Starts a loop for every broker group serving the topic in the known route, stops the others. */
  private async syncLoops(): Promise<void> {
    const o = this.options;
    if (!this.lifecycle.active) return;
    const serving = this.servingBrokers();
    for (const [brokerName, loop] of this.loops) {
      if (serving.has(brokerName)) continue;
      this.loops.delete(brokerName);
      this.log.info({ broker: brokerName }, 'broker no longer serves the topic: stopped popping there');
      await loop.stop();
    }
    for (const brokerName of serving) {
      if (this.loops.has(brokerName)) continue;
      const loop = new PopBrokerLoop({
        brokerName,
        masterAddress: () => this.routes.masterAddress(brokerName),
        pop: this.pop,
        settler: this.settler,
        options: o,
        subscription: this.subscription,
        slots: this.slots,
        dispatch: (address, batch) => this.consumeBatch(address, batch),
        counters: this.counters,
        popCounters: this.popCounters,
        outcomes: this.refusals,
        onStaleRoute: () => {
          this.routes
            .refreshSoon(o.topic)
            .catch((error: unknown) => this.log.warn({ err: error }, 'route refresh failed'));
        },
        log: childLogger(this.log, { broker: brokerName }),
      });
      this.loops.set(brokerName, loop);
      loop.start();
    }
  }

  /** Hands a batch to the listener and settles it; a fatal listener error stops the consumer. */
  private consumeBatch(address: string, batch: PopDelivery[]): Promise<void> {
    const entry: InFlightBatch = {
      size: batch.length,
      controller: new AbortController(),
      done: Promise.resolve(),
    };
    this.inFlight.add(entry);
    entry.done = this.runBatch(address, batch, entry.controller.signal).finally(() =>
      this.inFlight.delete(entry),
    );
    return entry.done;
  }

  private async runBatch(address: string, batch: PopDelivery[], signal: AbortSignal): Promise<void> {
    const o = this.options;
    this.counters.batchesDispatched++;
    let result: ConsumeResult;
    try {
      result = await this.listener.consume(
        batch.map((d) => d.consumed),
        { consumerGroup: o.consumerGroup, orderly: false, signal },
      );
    } catch (error) {
      if (isFatalListenerError(error)) {
        // Left unsettled: the messages come back after their invisible time, to whoever pops then.
        this.onFatal(error);
        return;
      }
      result = { status: 'FAILED', reason: describeError(error) };
    }
    if (signal.aborted) {
      this.counters.discardedResults += batch.length;
      return;
    }
    await this.settler.settle(address, batch, result);
  }

  private onFatal(error: unknown): void {
    if (!this.lifecycle.fail(error, 'popping stopped')) return;
    for (const loop of this.loops.values()) {
      loop
        .stop()
        .catch((stopError: unknown) => this.log.error({ err: stopError }, 'stopping a pop loop failed'));
    }
  }
}
