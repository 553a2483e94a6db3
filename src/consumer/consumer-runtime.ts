/**
 * ConsumerRuntime: RocketMQ's push consumer for one mapping, composed of narrow collaborators: a
 * {@link TopicRouteTable} (routes, broker addresses), {@link ConsumerHeartbeat} (registration), a
 * {@link Rebalancer} (queue assignment, one {@link PullLoop} per queue), a {@link ConsumeService}
 * (concurrent by default) and an {@link OffsetStore}; timers for heartbeat, route refresh, rebalance and
 * offset persistence. It knows nothing of Lambda: batches go to a {@link MessageListener}.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BrokerError } from '../client/broker-error.js';
import type { Producer } from '../client/producer.js';
import { isSilentPeerClose } from '../network/errors.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import { OffsetStoreError } from '../offsets/offset-store-error.js';
import type { HeartbeatSubscription } from '../protocol/bodies.js';
import { DEAD_LETTER_DELAY_LEVEL } from '../protocol/dead-letter-delay-level.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { buildSubscriptionData, type SubscriptionData } from '../protocol/subscription.js';
import { childLogger, componentLogger, type Logger } from '../util/logger.js';
import { PeriodicTask } from '../util/periodic-task.js';
import { sharedThrottledLog } from '../util/shared-throttled-log.js';
import { markStartupPhase } from '../util/startup-timeline.js';
import { BrokerOffsetSync } from './consume/broker-offset-sync.js';
import { ConsumeConcurrentlyService } from './consume/concurrently/consume-concurrently-service.js';
import type { ConsumeService, ConsumeServiceFactory } from './consume/consume-service.js';
import { notifyFinalFailure } from './consume/final-failure.js';
import { MessageSendBack } from './consume/message-send-back.js';
import { ConsumeOrderlyService } from './consume/orderly/consume-orderly-service.js';
import { assessPushConsumeState, type ConsumeState } from './consume-state.js';
import type { ConsumerClient } from './consumer-client.js';
import { type ConsumerCounters, newConsumerCounters, snapshotCounters } from './consumer-counters.js';
import { ConsumerOptionsError } from './consumer-errors.js';
import { assessConsumerHealth, type ConsumerHealth } from './consumer-health.js';
import { type ConsumerLag, measureQueueLag, summarizeLag } from './consumer-lag.js';
import { ConsumerLifecycle } from './consumer-lifecycle.js';
import type { ConsumerObserver } from './consumer-observer.js';
import {
  type ConsumerOptions,
  type NormalizedConsumerOptions,
  normalizeConsumerOptions,
} from './consumer-options.js';
import type { ConsumerRuntimeEvent, ConsumerRuntimeStatus, ConsumerState } from './consumer-status.js';
import type { MappingConsumer } from './mapping-consumer.js';
import { ConsumerHeartbeat } from './membership/consumer-heartbeat.js';
import { MembershipRecovery } from './membership/membership-recovery.js';
import { MEMBERSHIP_CHECK_INTERVAL_MS, MembershipWatch } from './membership/membership-watch.js';
import { TopicRouteTable } from './membership/topic-route-table.js';
import type { MessageListener } from './message-listener.js';
import { PullLoop } from './pull/pull-loop.js';
import { createAllocationStrategy } from './rebalance/create-allocation-strategy.js';
import { Rebalancer } from './rebalance/rebalancer.js';
import { StartOffsetResolver } from './rebalance/start-offset.js';
import { ConsumerRefusedError, isPermanentRefusal, RefusalWatch } from './refusal-watch.js';
import { buildRunningInfo } from './running-info.js';

/**
 * At start, a server that took our request and closed the connection without a byte is asked again after
 * this long; a second silent close stops the start (what a TLS-only server does to a plaintext client).
 */
export const SILENT_CLOSE_CONFIRM_MS = 2000;
const SILENT_NAME_SERVERS =
  'the name servers close the connection without answering (TLS-only name servers? check the tls settings)';
const SILENT_BROKERS =
  'every broker closes the connection without answering the first heartbeat (TLS-only brokers? check the tls settings)';

/** On-demand heartbeats (after a pull said the broker does not know us) are at least this far apart. */
export const MIN_ON_DEMAND_HEARTBEAT_INTERVAL_MS = 1000;

/** What a runtime is built from besides its options. */
export interface ConsumerRuntimeDeps {
  /** The client layer (a `RocketMQClient`), shared by the runtimes of one poller. */
  client: ConsumerClient;
  /** Owned by the caller: the runtime persists into it but does not close it. */
  offsetStore: OffsetStore;
  listener: MessageListener;
  logger?: Logger | undefined;
  /** Builds the consume service; default: {@link ConsumeOrderlyService} when `orderly`, else concurrent. */
  consumeServiceFactory?: ConsumeServiceFactory | undefined;
  /** Told of events no counter records (pull durations), for metrics. */
  observer?: ConsumerObserver | undefined;
  /**
   * Produces a failed message to `%RETRY%<group>` when its own broker group cannot take it back (master
   * down); default: none (the message is consumed again locally until a send-back succeeds).
   */
  retryProducer?: Pick<Producer, 'send'> | undefined;
}

/**
 * The consumer of one mapping.
 *
 * @example
 * ```ts
 * const runtime = new ConsumerRuntime(
 *   { name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn', batchSize: 50 },
 *   { client, offsetStore: new MemoryOffsetStore(), listener },
 * );
 * runtime.onEvent((event) => console.log(event.type));
 * await runtime.start();
 * // ...
 * await runtime.stop();
 * ```
 */
export class ConsumerRuntime implements MappingConsumer {
  readonly mode = 'PUSH';
  /** The pull loops' logger (their repeated lines share one throttle: flushed at stop). */
  private readonly pullLog: Logger;
  readonly options: NormalizedConsumerOptions;
  readonly counters: ConsumerCounters = newConsumerCounters();
  private readonly client: ConsumerClient;
  private readonly offsetStore: OffsetStore;
  private readonly log: Logger;
  private readonly subscriptions: SubscriptionData[];
  private readonly routes: TopicRouteTable;
  private readonly heartbeat: ConsumerHeartbeat;
  /** Fast retries of route, heartbeat and rebalance while one of them is missing. */
  private readonly recovery: MembershipRecovery;
  private readonly consumeService: ConsumeService;
  private readonly rebalancer: Rebalancer;
  private readonly startOffsets: StartOffsetResolver;
  private readonly refusals: RefusalWatch;
  private readonly offsetSync: BrokerOffsetSync | undefined;
  private readonly tasks: Record<
    'heartbeat' | 'routes' | 'rebalance' | 'membership' | 'persist',
    PeriodicTask
  >;
  private readonly lifecycle: ConsumerLifecycle;
  private readonly unregister: (() => void)[] = [];
  private lastOnDemandHeartbeatMs = 0;
  /** The name servers said at start that the topic does not exist (see start-offset.ts). */
  private topicCreatedAfterStart = false;

  constructor(options: ConsumerOptions, deps: ConsumerRuntimeDeps) {
    this.options = normalizeConsumerOptions(options);
    if (this.options.consumeMode !== 'PUSH') {
      // POP has no queues to rebalance nor offsets to keep: pop/pop-consumer.ts consumes it.
      throw new ConsumerOptionsError(
        'consumeMode',
        'must be PUSH for a ConsumerRuntime (POP takes a PopConsumer)',
      );
    }
    const o = this.options;
    this.client = deps.client;
    this.offsetStore = deps.offsetStore;
    this.log = childLogger(componentLogger('consumer.runtime', deps.logger), {
      mapping: o.name,
      consumerGroup: o.consumerGroup,
    });
    this.lifecycle = new ConsumerLifecycle({
      noun: 'runtime',
      log: this.log,
      stop: () => this.release(),
      started: () =>
        this.log.info(
          { queues: this.rebalancer.heldQueues().length, clientId: this.clientId },
          'consumer started',
        ),
      stopped: () => this.log.info('consumer stopped'),
    });
    const subVersion = Date.now();
    const main = buildSubscriptionData(o.topic, o.filter.expression, o.filter.type, subVersion);
    const retry = buildSubscriptionData(o.retryTopic, '*', 'TAG', subVersion);
    this.subscriptions = o.messageModel === 'CLUSTERING' ? [main, retry] : [main];
    this.routes = new TopicRouteTable({
      nameServer: deps.client.nameServer,
      log: this.log,
      nameServerAddresses: deps.client.nameServer.addresses,
      // A broker new to the routes is heartbeated and rebalanced onto at once, not at the next periods.
      onBrokersAdded: () => this.recovery.kick(),
    });
    this.refusals = new RefusalWatch((error) => this.onFatal(error));
    const refusals = this.refusals;
    const masterAddress = (brokerName: string) => this.routes.masterAddress(brokerName);
    const offsetSync =
      o.messageModel === 'CLUSTERING'
        ? new BrokerOffsetSync({
            broker: deps.client.broker,
            masterAddress,
            offsetStore: deps.offsetStore,
            consumerGroup: o.consumerGroup,
            log: this.log,
          })
        : undefined;
    this.offsetSync = offsetSync;
    const sendBack = new MessageSendBack({
      broker: deps.client.broker,
      masterAddress,
      consumerGroup: o.consumerGroup,
      maxReconsumeTimes: o.maxReconsumeTimes,
      // Broadcasting has no retry topic: a failed message is only consumed again locally.
      retryProducer: o.messageModel === 'CLUSTERING' ? deps.retryProducer : undefined,
      onSentBack: (brokerName) => {
        if (this.routes.assumeRetryQueue(o.retryTopic, brokerName)) this.rebalancer.requestRebalance();
      },
      log: this.log,
    });
    this.heartbeat = new ConsumerHeartbeat({
      clientId: deps.client.clientId,
      broker: deps.client.broker,
      routes: this.routes,
      options: o,
      subscriptions: this.subscriptions,
      log: this.log,
      outcomes: refusals,
    });
    const factory: ConsumeServiceFactory =
      deps.consumeServiceFactory ??
      (o.orderly
        ? (context) => new ConsumeOrderlyService(context)
        : (context) => new ConsumeConcurrentlyService(context));
    this.consumeService = factory({
      options: o,
      client: deps.client,
      routes: this.routes,
      offsetStore: deps.offsetStore,
      listener: deps.listener,
      sendBack,
      counters: this.counters,
      heldQueues: () => this.rebalancer.processQueues(),
      onFatal: (error) => this.onFatal(error),
      offsetMoved: offsetSync === undefined ? undefined : (queue) => offsetSync.moved(queue),
      log: componentLogger('consumer.consume', this.log),
    });
    const startOffsets = new StartOffsetResolver({
      offsetStore: deps.offsetStore,
      broker: deps.client.broker,
      clientId: deps.client.clientId,
      consumerGroup: o.consumerGroup,
      brokerOffsets: o.messageModel === 'CLUSTERING',
      handOverTimeoutMs: o.handOverTimeoutMs,
      log: componentLogger('consumer.start-offset', this.log),
      masterAddress,
      startingPosition: o.startingPosition,
      startingPositionTimestamp: o.startingPositionTimestamp,
      retryTopic: o.retryTopic,
      topicCreatedAfterStart: () => this.topicCreatedAfterStart,
    });
    this.startOffsets = startOffsets;
    const pullLog = componentLogger('consumer.pull', this.log);
    this.pullLog = pullLog;
    this.rebalancer = new Rebalancer({
      clientId: deps.client.clientId,
      broker: deps.client.broker,
      routes: this.routes,
      options: o,
      offsetStore: deps.offsetStore,
      startOffsets,
      allocationStrategy: createAllocationStrategy({
        strategy: o.allocateStrategy,
        virtualNodes: o.allocateVirtualNodes,
        zoneNearby: o.zoneNearby,
      }),
      hooks: this.consumeService.queueHooks,
      log: componentLogger('consumer.rebalance', this.log),
      outcomes: refusals,
      onStartOffsetError: (error) => this.onStoreOrBrokerError(error),
      onQueuesChanged: (added, removed) => {
        for (const queue of removed) offsetSync?.forget(queue);
        this.lifecycle.emit({ type: 'queues-changed', added, removed });
      },
      createPullLoop: (processQueue, startOffset, startOffsetFromBroker) =>
        new PullLoop(
          {
            processQueue,
            broker: deps.client.broker,
            routes: this.routes,
            offsetStore: deps.offsetStore,
            consumeService: this.consumeService,
            subscription: processQueue.messageQueue.topic === o.retryTopic ? retry : main,
            options: o,
            counters: this.counters,
            log: pullLog,
            onOffsetIllegal: (queue, offset) => {
              this.rebalancer
                .resetQueue(queue, offset)
                .catch((error: unknown) => this.log.error({ err: error, queue }, 'queue reset failed'));
            },
            onNeedsRebalance: () => this.heartbeatSoon(),
            resolveStartOffset: (queue) => startOffsets.startOffset(queue),
            deadLetterUndecodable:
              o.messageModel === 'CLUSTERING'
                ? (queue, physicalOffset) => sendBack.deadLetterByOffset(queue, physicalOffset)
                : undefined,
            // Broadcasting keeps no DLQ: the message is skipped, as its failures are, but the listener
            // hears of it (its failure destination records it).
            deadLetterTooLarge: async (consumed, reason) => {
              if (o.messageModel !== 'CLUSTERING') {
                await notifyFinalFailure(deps.listener, [consumed], reason, pullLog, 'too-large');
                return 'skipped';
              }
              await sendBack.sendBack(
                consumed.message,
                consumed.queue,
                consumed.topic,
                DEAD_LETTER_DELAY_LEVEL,
              );
              this.counters.sentBack++;
              this.counters.deadLettered++;
              await notifyFinalFailure(deps.listener, [consumed], reason, pullLog, 'too-large');
              return 'dead-lettered';
            },
            outcomes: refusals,
            offsetCarried:
              offsetSync === undefined ? undefined : (queue, offset) => offsetSync.carried(queue, offset),
            observer: deps.observer,
            heldQueueCount: () => this.rebalancer.heldQueueCount,
          },
          startOffset,
          startOffsetFromBroker,
        ),
    });
    this.recovery = new MembershipRecovery({
      topic: o.topic,
      routes: this.routes,
      refreshRoutes: () => this.refreshRoutes(),
      heartbeat: this.heartbeat,
      rebalance: () => this.rebalancer.rebalance(),
      decided: () => {
        const { lastDecisionMs, lastError } = this.rebalancer.decisions();
        return lastDecisionMs !== undefined && lastError === undefined;
      },
      log: this.log,
    });
    // Behind a 5.x proxy no NOTIFY_CONSUMER_IDS_CHANGED arrives: notice joins and leaves by asking.
    const membership = new MembershipWatch({
      broker: deps.client.broker,
      routes: this.routes,
      consumerGroup: o.consumerGroup,
      topic: o.topic,
      members: () => this.rebalancer.groupMembers(),
      onChange: () => this.rebalancer.requestRebalance(),
    });
    this.tasks = {
      // After each of these, the recovery checks whether something went missing (no I/O when not).
      heartbeat: new PeriodicTask(
        'heartbeat',
        o.heartbeatIntervalMs,
        () => this.heartbeat.sendToAll().finally(() => this.recovery.kick()),
        this.log,
      ),
      routes: new PeriodicTask(
        'route refresh',
        o.routeRefreshIntervalMs,
        () => this.refreshRoutes().finally(() => this.recovery.kick()),
        this.log,
      ),
      rebalance: new PeriodicTask(
        'rebalance',
        o.rebalanceIntervalMs,
        () => this.rebalancer.rebalance().finally(() => this.recovery.kick()),
        this.log,
      ),
      membership: new PeriodicTask(
        'membership check',
        MEMBERSHIP_CHECK_INTERVAL_MS,
        () =>
          o.messageModel === 'CLUSTERING' && MEMBERSHIP_CHECK_INTERVAL_MS < o.rebalanceIntervalMs
            ? membership.check()
            : Promise.resolve(),
        this.log,
      ),
      persist: new PeriodicTask(
        'persist offsets',
        o.persistIntervalMs,
        () =>
          this.offsetStore
            .persistAll(this.rebalancer.heldQueues().map((held) => held.queue))
            .catch((error: unknown) => {
              this.onStoreOrBrokerError(error);
              throw error;
            }),
        this.log,
      ),
    };
    this.unregister.push(
      deps.offsetStore.onOffsetReset((queue, record) => {
        this.rebalancer
          .resetQueue(queue, record.offset, true)
          // The broker's copy must follow a reset backwards, or a restart would start at it (start-offset.ts).
          .then(() => offsetSync?.moved(queue))
          .catch((error: unknown) => this.log.error({ err: error, queue }, 'queue reset failed'));
      }),
    );
  }

  /** The lifecycle state. */
  get state(): ConsumerState {
    return this.lifecycle.state;
  }

  /** This runtime's client id (shared with the other runtimes of the client). */
  get clientId(): string {
    return this.client.clientId;
  }

  /** Subscribes to lifecycle events; returns the unsubscribe function. */
  onEvent(listener: (event: ConsumerRuntimeEvent) => void): () => void {
    return this.lifecycle.onEvent(listener);
  }

  /**
   * Loads offsets, looks up routes, registers with the brokers (heartbeat), takes its queues and
   * starts pulling. Rejects (after cleaning up) when something fails on the way.
   */
  start(): Promise<void> {
    return this.lifecycle.start(() => this.connect());
  }

  private async connect(): Promise<void> {
    const o = this.options;
    try {
      await this.offsetStore.load();
    } catch (error) {
      if (isPermanentRefusal(error)) throw new ConsumerRefusedError('the offset store cannot be used', error);
      throw error;
    }
    markStartupPhase(`${o.name}: offsets loaded`);
    if ((await this.routes.refresh(o.topic)) === undefined) {
      let failure = this.routes.lastFailure(o.topic);
      if (isSilentPeerClose(failure)) {
        // Once may be a name server dying at that moment; twice in a row is a TLS-only server.
        await sleep(SILENT_CLOSE_CONFIRM_MS);
        failure =
          (await this.routes.refresh(o.topic)) === undefined ? this.routes.lastFailure(o.topic) : undefined;
        if (isSilentPeerClose(failure)) {
          throw new ConsumerRefusedError(SILENT_NAME_SERVERS, failure);
        }
      }
      if (isPermanentRefusal(failure)) {
        throw new ConsumerRefusedError('the name servers refuse this consumer', failure);
      }
      if (failure !== undefined || this.routes.route(o.topic) === undefined) {
        this.log.warn({ topic: o.topic }, 'topic has no route yet: waiting for it');
      }
      this.topicCreatedAfterStart =
        failure instanceof BrokerError && failure.code === ResponseCode.TOPIC_NOT_EXIST;
    }
    this.unregister.push(
      this.client.requestHandler.onConsumerIdsChanged((group) => {
        if (group === o.consumerGroup && o.messageModel === 'CLUSTERING') this.rebalancer.requestRebalance();
      }),
      this.client.requestHandler.setRunningInfoProvider(o.consumerGroup, async () =>
        buildRunningInfo(await this.status(), this.heartbeatSubscriptions(), {
          orderly: o.orderly,
          maxConcurrency: o.maxConcurrency,
        }),
      ),
    );
    markStartupPhase(`${o.name}: route`);
    let first = await this.heartbeat.sendToAll();
    const allSilent = (failures: unknown[]) => failures.length > 0 && failures.every(isSilentPeerClose);
    if (first.accepted === 0 && allSilent(first.failures)) {
      await sleep(SILENT_CLOSE_CONFIRM_MS);
      first = await this.heartbeat.sendToAll();
      if (first.accepted === 0 && allSilent(first.failures)) {
        throw new ConsumerRefusedError(SILENT_BROKERS, first.failures[0]);
      }
    }
    if (first.accepted === 0) {
      const [refusal] = first.failures;
      if (refusal !== undefined && first.failures.every(isPermanentRefusal)) {
        throw new ConsumerRefusedError('every broker refused the first heartbeat', refusal);
      }
      this.log.warn('first heartbeat reached no broker');
    }
    markStartupPhase(`${o.name}: heartbeat`);
    await this.checkFilter();
    if (o.messageModel === 'CLUSTERING') await this.routes.refresh(o.retryTopic, { optional: true });
    this.consumeService.start();
    await this.rebalancer.rebalance();
    markStartupPhase(`${o.name}: rebalanced`);
    for (const task of Object.values(this.tasks)) task.start();
    // A route, a broker or the group list missing now is retried within seconds, not periods.
    this.recovery.start();
  }

  /**
   * Stops pulling, lets in-flight batches finish (up to `shutdownTimeoutMs`; aborted batches do not
   * move offsets), persists every offset, unregisters from the brokers. Resolves when all is done;
   * idempotent.
   */
  stop(): Promise<void> {
    return this.lifecycle.stop();
  }

  /** A snapshot of state, queues, offsets and counters. */
  async status(): Promise<ConsumerRuntimeStatus> {
    const queues = await Promise.all(
      this.rebalancer.heldQueues().map(async (held) => ({
        queue: held.queue,
        nextPullOffset: held.loop.nextOffset,
        committedOffset: await this.offsetStore.readOffset(held.queue, 'MEMORY'),
        ...held.processQueue.snapshot(),
      })),
    );
    return {
      mode: 'PUSH',
      name: this.options.name,
      consumerGroup: this.options.consumerGroup,
      topic: this.options.topic,
      clientId: this.clientId,
      state: this.lifecycle.state,
      error: this.lifecycle.fatalError,
      startedAtMs: this.lifecycle.startedAtMs,
      queues,
      inFlightBatches: this.consumeService.inFlightBatches(),
      pendingMessages: this.consumeService.pendingMessages(),
      counters: snapshotCounters(this.counters),
    };
  }

  /**
   * Whether the consumer is doing its job (consumer-health.ts): running, rebalancing, pulling every
   * held queue, writing offsets.
   */
  health(nowMs = Date.now()): ConsumerHealth {
    const decisions = this.rebalancer.decisions();
    const consume = this.consumeState();
    // Holding nothing is judged over a rebalance period at least: the next rebalance may still hand queues.
    const graceMs =
      consume.state === 'unassigned'
        ? Math.max(this.options.readinessGraceMs, this.options.rebalanceIntervalMs)
        : this.options.readinessGraceMs;
    return assessConsumerHealth({
      consume: { state: consume, graceMs },
      state: this.lifecycle.state,
      fatalError: this.lifecycle.fatalError,
      startedAtMs: this.lifecycle.startedAtMs,
      lastDecisionMs: decisions.lastDecisionMs,
      lastDecisionError: decisions.lastError,
      queues: this.rebalancer.heldQueues().map((held) => ({ queue: held.queue, ...held.loop.progress })),
      offsets: this.offsetStore.health(),
      nowMs,
    });
  }

  /** What the consumer can do now: consume, wait as a standby, or not consume and why (consume-state.ts). */
  consumeState(): ConsumeState {
    const o = this.options;
    const { allocation, holdingNoneSinceMs } = this.rebalancer.allocationFacts();
    const decisions = this.rebalancer.decisions();
    return assessPushConsumeState({
      lifecycle: this.lifecycle.state,
      topic: o.topic,
      consumerGroup: o.consumerGroup,
      startedAtMs: this.lifecycle.startedAtMs,
      routeKnown: this.routes.route(o.topic) !== undefined,
      readableQueues: this.routes.readableQueues(o.topic)?.length ?? 0,
      routeFailure: this.routes.lastFailure(o.topic),
      routeFailingSinceMs: this.routes.failingSinceMs(o.topic),
      allocation,
      decisionError: decisions.lastError,
      lastDecisionMs: decisions.lastDecisionMs,
      holdingNoneSinceMs,
      held: this.rebalancer
        .heldQueues()
        .filter((held) => held.queue.topic === o.topic)
        .map((held) => held.loop.progress),
    });
  }

  /**
   * The max offset of a queue (the offset its next stored message gets): GET_MAX_OFFSET at its master
   * broker. What the lag of a held queue is measured against (metrics/queue-lag.ts).
   */
  maxOffset(queue: MessageQueue): Promise<number> {
    return this.startOffsets.maxOffset(queue);
  }

  /**
   * The lag of the queues held now: one GET_MAX_OFFSET per queue at its master broker. Never throws; a
   * queue that cannot be measured counts in `unknownQueues`.
   */
  async lag(): Promise<ConsumerLag> {
    const { name, consumerGroup, topic, queues } = await this.status();
    return summarizeLag(
      { name, consumerGroup, topic },
      await measureQueueLag(queues, (q) => this.maxOffset(q)),
    );
  }

  /** The stop's work; resolves with the error of a release that did not go through (the stop was not clean). */
  private async release(): Promise<unknown> {
    const o = this.options;
    for (const unregister of this.unregister.splice(0)) unregister();
    await Promise.all([
      this.recovery.stop(),
      this.tasks.rebalance.stop(),
      this.tasks.membership.stop(),
      this.tasks.routes.stop(),
    ]);
    await this.rebalancer.stopPulling();
    // What the pull loops' shared lines held back is written now, not by a timer after exit.
    sharedThrottledLog(this.pullLog).flush();
    await this.consumeService.stop(o.shutdownTimeoutMs);
    await this.tasks.persist.stop();
    let releaseError: unknown;
    try {
      await this.rebalancer.releaseAll();
    } catch (error) {
      releaseError = error;
    }
    this.offsetSync?.stop();
    await this.tasks.heartbeat.stop();
    await this.heartbeat.unregisterFromAll();
    // The stop went through, but was not clean: the caller reports it (the poller exits non-zero).
    return releaseError;
  }

  private async refreshRoutes(): Promise<void> {
    await this.routes.refresh(this.options.topic);
    if (this.options.messageModel === 'CLUSTERING') {
      await this.routes.refresh(this.options.retryTopic, { optional: true });
    }
  }

  private heartbeatSoon(): void {
    const now = Date.now();
    if (now - this.lastOnDemandHeartbeatMs < MIN_ON_DEMAND_HEARTBEAT_INTERVAL_MS) return;
    this.lastOnDemandHeartbeatMs = now;
    this.tasks.heartbeat
      .runNow()
      .catch((error: unknown) => this.log.warn({ err: error }, 'on-demand heartbeat failed'));
  }

  /**
   * An SQL92 filter is compiled by a broker before the first pull (as Java's client does), so that one the
   * broker cannot compile stops the start with the compiler's words. Other failures only warn: the
   * pulls will say more (a broker without `enablePropertyFilter` answers every SQL92 check with an error).
   */
  private async checkFilter(): Promise<void> {
    const o = this.options;
    if (o.filter.type !== 'SQL92') return;
    const address = this.routes.anyBrokerAddress(o.topic);
    if (address === undefined) return;
    const [subscription] = this.subscriptions;
    if (subscription === undefined) return;
    try {
      await this.client.broker.checkClientConfig(address, {
        clientId: this.client.clientId,
        group: o.consumerGroup,
        subscriptionData: subscription,
      });
    } catch (error) {
      if (isPermanentRefusal(error))
        throw new ConsumerRefusedError('the broker refuses the SQL92 filter', error);
      this.log.warn(
        { err: error, broker: address, filter: o.filter.expression },
        'the broker could not check the SQL92 filter (does it run with enablePropertyFilter=true?)',
      );
    }
  }

  /** A permanent offset-store refusal stops the consumer at once; broker refusals go to the watch. */
  private onStoreOrBrokerError(error: unknown): void {
    if (error instanceof OffsetStoreError && error.permanent) {
      this.refusals.refusedNow('the offset store refuses this consumer', error);
    } else {
      this.refusals.failed(error);
    }
  }

  private onFatal(error: unknown): void {
    if (!this.lifecycle.fail(error, 'pulling stopped')) return;
    this.rebalancer
      .stopPulling()
      .catch((stopError: unknown) => this.log.error({ err: stopError }, 'stopping the pull loops failed'));
  }

  private heartbeatSubscriptions(): HeartbeatSubscription[] {
    return this.subscriptions;
  }
}
