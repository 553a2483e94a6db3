/**
 * One pull loop per held queue (Java `DefaultMQPushConsumerImpl.pullMessage`; docs/protocol.md,
 * "Pulling"): long-poll PULL_MESSAGE, put what was found into the ProcessQueue and hand it to the
 * consume service; pause under flow control; back off on errors; follow the broker's suggested read node,
 * and pull from a slave while the master is gone from the route (docs/clusters.md).
 *
 * Offsets never move backwards silently. When the broker answers with a next offset below the one we
 * asked for (OFFSET_ILLEGAL after a store wipe or an admin reset, OFFSET_OVERFLOW_BADLY, ...), the loop
 * follows the broker (refusing would leave the queue stuck or skip messages written after a reset:
 * at-least-once wins over avoiding redelivery), but logs a warning with both offsets and counts it in
 * `offsetMovedBackwards`, so operators and alarms see every re-consumption the broker caused. A broker
 * that does it at every pull gets a warning per queue and interval with a count of the others (the
 * counter stays exact): the lines about offsets are throttled per queue across the loops a queue reset
 * replaces (shared-throttled-log.ts).
 */

import { BrokerError } from '../../client/broker-error.js';
import { NoBrokerAddressError } from '../../client/no-broker-address-error.js';
import { PullFrameTemplate } from '../../client/pull-frame-template.js';
import type { PullFound, PullResult } from '../../client/pull-result.js';
import { NetworkError } from '../../network/errors.js';
import type { OffsetStore } from '../../offsets/offset-store.js';
import type { ProtocolError } from '../../protocol/errors.js';
import type { PullMessageRequestHeader } from '../../protocol/headers.js';
import {
  type DecodeOptions,
  MessageDecodeError,
  type TooLargeMessage,
} from '../../protocol/message-decoder.js';
import { type MessageQueue, messageQueueKey } from '../../protocol/message-queue.js';
import { buildPullSysFlag } from '../../protocol/pull-sys-flag.js';
import { ResponseCode } from '../../protocol/response-code.js';
import { MASTER_BROKER_ID } from '../../protocol/route-data.js';
import { matchesTags, type SubscriptionData } from '../../protocol/subscription.js';
import { abortableSleep } from '../../util/abortable-sleep.js';
import type { Logger } from '../../util/logger.js';
import { sharedThrottledLog } from '../../util/shared-throttled-log.js';
import { markStartupPhase } from '../../util/startup-timeline.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import { type ConsumeService, realTopicOf } from '../consume/consume-service.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import type { ConsumerCounters } from '../consumer-counters.js';
import type { ConsumerObserver } from '../consumer-observer.js';
import type { NormalizedConsumerOptions } from '../consumer-options.js';
import { receiveStartTime, traceReceive } from '../consumer-tracing.js';
import type { TopicRouteTable } from '../membership/topic-route-table.js';
import type { ConsumedMessage } from '../message-listener.js';
import type { RefusalWatch } from '../refusal-watch.js';
import type { ProcessQueue } from './process-queue.js';

/** Pull again after this long when a ProcessQueue is over a flow-control limit (Java). */
export const FLOW_CONTROL_DELAY_MS = 50;
/** Pull again after this long when the broker answered FLOW_CONTROL (Java). */
export const BROKER_FLOW_CONTROL_DELAY_MS = 20;
/** Orderly: check again after this long while the queue is not locked (Java). */
export const ORDERLY_NOT_LOCKED_DELAY_MS = 3000;

/**
 * Where a queue restarts after a master answered OFFSET_ILLEGAL for `requested`. An offset beyond the
 * queue's end means the queue is shorter than what we consumed: the broker lost its store or the queue
 * was deleted and recreated, so every message it holds now may be new. RocketMQ 5.x suggests the end of
 * the queue then (which would skip them all); we restart from its first message instead, at-least-once
 * over avoiding redelivery. Otherwise (below the start: messages deleted before we read them) the
 * broker's offset is the only choice.
 */
export function offsetAfterIllegal(
  requested: number,
  result: { nextBeginOffset: number; minOffset: number; maxOffset: number },
): number {
  if (requested > result.maxOffset && result.minOffset >= 0 && result.minOffset <= result.maxOffset) {
    return Math.min(result.minOffset, result.nextBeginOffset);
  }
  return result.nextBeginOffset;
}

/** Which broker answered a pull: its id, and whether it stood in for the one suggested (absent). */
interface AnsweringBroker {
  brokerId: number;
  standIn: boolean;
}

/** What became of a message too large to inflate: handed to the DLQ, or skipped (broadcasting). */
export type TooLargeOutcome = 'dead-lettered' | 'skipped';

/** Ids a line about a pull's messages too large to inflate names at most. */
const MAX_NAMED_TOO_LARGE = 32;

/** What a pull loop works with. */
export interface PullLoopOptions {
  processQueue: ProcessQueue;
  broker: Pick<ConsumerBrokerCalls, 'pullMessage'>;
  routes: Pick<TopicRouteTable, 'pullTarget' | 'refreshSoon'>;
  offsetStore: Pick<OffsetStore, 'readOffset' | 'updateOffset' | 'correctOffset' | 'persist'>;
  consumeService: Pick<ConsumeService, 'submit'>;
  /** The subscription of this queue's topic (`*` for the retry topic). */
  subscription: SubscriptionData;
  options: NormalizedConsumerOptions;
  counters: ConsumerCounters;
  log: Logger;
  /** OFFSET_ILLEGAL: the queue's ProcessQueue was dropped; re-add the queue starting at `nextOffset`. */
  onOffsetIllegal: (queue: MessageQueue, nextOffset: number) => void;
  /** The broker does not know our membership or subscription (yet): heartbeat soon. */
  onNeedsRebalance: () => void;
  /** Orderly: where to start after the lock was obtained (re-reads the store). */
  resolveStartOffset: (queue: MessageQueue) => Promise<number>;
  /**
   * Hands a record we cannot decode (but whose queue and commit-log offsets are known) to the DLQ; the
   * broker looks it up by its commit-log offset. Resolves once the broker has it; rejects to keep the
   * queue where it is and try again later. Absent (broadcasting): the record stays and is retried.
   */
  deadLetterUndecodable?: ((queue: MessageQueue, physicalOffset: number) => Promise<void>) | undefined;
  /**
   * Hands a message whose body would inflate past `maxDecompressedBodyBytes` to the DLQ, never inflated
   * (a send-back with delay level -1, the way an oversize message goes), and tells the listener; resolves
   * once the broker has it ('dead-lettered'; broadcasting, which keeps no DLQ: 'skipped' once the
   * listener was told), rejects to keep the queue where it is and try again later. Absent: skipped.
   */
  deadLetterTooLarge?: ((consumed: ConsumedMessage, reason: string) => Promise<TooLargeOutcome>) | undefined;
  /**
   * Told that a pull carried `commitOffset` to the queue's master, which stores it on arrival (so the
   * broker offset sync need not send it again: broker-offset-sync.ts). Absent: nobody is told.
   */
  offsetCarried?: ((queue: MessageQueue, commitOffset: number) => void) | undefined;
  /** Told of every pull's outcome (permanent refusals stop the consumer: refusal-watch.ts). */
  outcomes?: Pick<RefusalWatch, 'succeeded' | 'failed'> | undefined;
  /** How many queues the consumer holds: each gets its share of `pullThresholdSizeForTopic`. @default 1 */
  heldQueueCount?: (() => number) | undefined;
  /** Told how long every pull took (metrics). */
  observer?: ConsumerObserver | undefined;
}

/**
 * The pull loop of one queue.
 */
export class PullLoop {
  private readonly o: PullLoopOptions;
  private readonly queue: MessageQueue;
  private readonly abort = new AbortController();
  private readonly warnings: ThrottledLog;
  /**
   * The lines about offsets a broker can repeat at every pull, throttled per queue and shared with the
   * loop that replaces this one after OFFSET_ILLEGAL (which ends the loop), so that goes on counting.
   */
  private readonly offsetLines: ThrottledLog;
  private offset: number;
  private progressMs = Date.now();
  private lastErrorSeen: unknown;
  private suggestedBrokerId = MASTER_BROKER_ID;
  private previouslyLocked = false;
  private running: Promise<void> | undefined;
  private template: PullFrameTemplate | undefined;
  /** Ends the wait for the pull in flight as 'aborted' (the pull itself is abandoned). */
  private abortPull: (() => void) | undefined;
  /** Whether this loop marked its first pull in the start-up timeline (startup-timeline.ts). */
  private firstPullSent = false;
  private firstPullAnswered = false;
  /** When the pull under way started, while an OpenTelemetry SDK is registered (else undefined). */
  private receiveStartedAt: number | undefined;
  /** The inflation limits every pull body of this queue is decoded with. */
  private readonly decode: DecodeOptions;

  /**
   * `startOffsetFromBroker`: the start offset is the broker's correction after OFFSET_ILLEGAL, so an orderly
   * loop must not replace it with the stored offset after locking (the increase-only store may still hold
   * the stale, higher one, and pulling from it would fail forever).
   */
  constructor(options: PullLoopOptions, startOffset: number, startOffsetFromBroker = false) {
    this.o = options;
    this.queue = options.processQueue.messageQueue;
    this.warnings = new ThrottledLog(options.log);
    this.offsetLines = sharedThrottledLog(options.log);
    this.offset = startOffset;
    this.previouslyLocked = startOffsetFromBroker;
    this.decode = {
      maxBodyBytes: options.options.maxDecompressedBodyBytes,
      maxInflatedBytes: options.options.maxDecompressedPullBytes,
    };
  }

  /** The offset the next pull asks for. */
  get nextOffset(): number {
    return this.offset;
  }

  /**
   * When the loop last made progress (a pull answered, or a pause the consumer asked for: flow control,
   * an orderly queue waiting for its lock) and the error of the last failed pull since; for health.
   */
  get progress(): { lastProgressMs: number; lastError: unknown } {
    return { lastProgressMs: this.progressMs, lastError: this.lastErrorSeen };
  }

  /** True until stop() was called or the loop ended (queue dropped). */
  get active(): boolean {
    return this.running !== undefined && !this.abort.signal.aborted;
  }

  /** Starts pulling. Idempotent. */
  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      this.o.log.error({ err: error, queue: this.queue }, 'pull loop crashed');
    });
  }

  /** Stops pulling: an in-flight long poll is abandoned (not awaited). Resolves when the loop ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.abortPull?.();
    await this.running;
    this.warnings.flush();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted || this.o.processQueue.dropped;
  }

  private async run(): Promise<void> {
    const pq = this.o.processQueue;
    while (!this.stopped) {
      pq.lastPullTimestampMs = Date.now();
      const pauseMs = this.flowControlDelayMs();
      if (pauseMs > 0) {
        this.progressMs = Date.now();
        await this.delay(pauseMs);
        continue;
      }
      if (this.o.options.orderly && !(await this.orderlyReady())) continue;
      const pullStartedMs = performance.now();
      const outcome = await this.pullOnce();
      if (outcome.kind === 'aborted' || this.stopped) return;
      this.observePull(performance.now() - pullStartedMs, outcome.kind === 'result');
      if (outcome.kind === 'error') {
        await this.delay(this.onError(outcome.error));
        continue;
      }
      const delayMs = await this.onResult(outcome.result, outcome.answeredBy);
      if (delayMs < 0) return;
      if (delayMs > 0) await this.delay(delayMs);
    }
  }

  private observePull(durationMs: number, answered: boolean): void {
    try {
      this.o.observer?.pullCompleted?.({ queue: this.queue, durationMs, answered });
    } catch (error) {
      this.warnings.warn('observer', { err: error }, 'pull observer failed');
    }
  }

  /** Flow control by count, bytes and span, as Java checks it: the delay before pulling, or 0. */
  private flowControlDelayMs(): number {
    const { processQueue: pq, options, counters } = this.o;
    if (pq.messageCount > options.pullThresholdForQueue) {
      counters.flowControlCountPauses++;
      return FLOW_CONTROL_DELAY_MS;
    }
    if (pq.messageBytes > this.byteThreshold()) {
      counters.flowControlBytesPauses++;
      return FLOW_CONTROL_DELAY_MS;
    }
    if (!options.orderly && pq.maxSpan > options.consumeConcurrentlyMaxSpan) {
      counters.flowControlSpanPauses++;
      return FLOW_CONTROL_DELAY_MS;
    }
    return 0;
  }

  /**
   * The body bytes this queue may hold: `pullThresholdSizeForQueue`, or less, its share of
   * `pullThresholdSizeForTopic` among the queues held (Java's split of the topic threshold).
   */
  private byteThreshold(): number {
    const { options, heldQueueCount } = this.o;
    const share = Math.floor(options.pullThresholdSizeForTopic / Math.max(1, heldQueueCount?.() ?? 1));
    return Math.min(options.pullThresholdSizeForQueue, share);
  }

  /**
   * The inflation limits of the next pull: what the queue's byte threshold leaves of
   * `maxDecompressedPullBytes`, never less than one body's limit (so every pull makes progress).
   */
  private decodeOptions(): DecodeOptions {
    const { options, processQueue } = this.o;
    const left = this.byteThreshold() - processQueue.messageBytes;
    const maxInflatedBytes = Math.max(
      options.maxDecompressedBodyBytes,
      Math.min(options.maxDecompressedPullBytes, left),
    );
    if (maxInflatedBytes === this.decode.maxInflatedBytes) return this.decode;
    return { maxBodyBytes: options.maxDecompressedBodyBytes, maxInflatedBytes };
  }

  /** Orderly: pull only while locked; the first pull after locking restarts from the stored offset. */
  private async orderlyReady(): Promise<boolean> {
    if (!this.o.processQueue.locked) {
      // Waiting for the lock is the lock manager's business (it logs its failures), not a stalled pull.
      this.progressMs = Date.now();
      await this.delay(ORDERLY_NOT_LOCKED_DELAY_MS);
      return false;
    }
    if (this.previouslyLocked) return true;
    try {
      this.offset = await this.o.resolveStartOffset(this.queue);
      this.previouslyLocked = true;
      return true;
    } catch (error) {
      this.o.log.warn({ err: error, queue: this.queue }, 'orderly: start offset unavailable, retrying later');
      await this.delay(this.o.options.pullDelayOnErrorMs);
      return false;
    }
  }

  private async pullOnce(): Promise<
    | { kind: 'result'; result: PullResult; answeredBy: AnsweringBroker }
    | { kind: 'error'; error: unknown }
    | { kind: 'aborted' }
  > {
    const { options, routes, subscription } = this.o;
    const suggested = this.suggestedBrokerId;
    const target = routes.pullTarget(this.queue.brokerName, suggested);
    if (target === undefined) {
      return { kind: 'error', error: new NoBrokerAddressError(this.queue.brokerName, this.queue.topic) };
    }
    const { address, brokerId } = target;
    // The suggested broker (the master, unless it pointed us at a slave) is not in the route: a slave
    // stands in (Java's findBrokerAddressInSubscribe falls back the same way).
    const answeredBy: AnsweringBroker = { brokerId, standIn: brokerId !== suggested };
    let commitOffset = 0;
    // Only a master stores committed offsets; Java clears the flag for slaves (PullAPIWrapper).
    if (options.messageModel === 'CLUSTERING' && brokerId === MASTER_BROKER_ID) {
      commitOffset = Math.max(0, await this.o.offsetStore.readOffset(this.queue, 'MEMORY'));
    }
    const header: PullMessageRequestHeader = {
      consumerGroup: options.consumerGroup,
      topic: this.queue.topic,
      queueId: this.queue.queueId,
      queueOffset: this.offset,
      maxMsgNums: options.pullBatchSize,
      sysFlag: buildPullSysFlag({ commitOffset: commitOffset > 0, suspend: true }),
      commitOffset,
      suspendTimeoutMillis: options.suspendTimeoutMs,
      subVersion: subscription.subVersion,
      expressionType: subscription.expressionType,
      bname: this.queue.brokerName,
    };
    // Every pull of this queue differs only in offsets and flags: encode the rest once (a new
    // subscription version makes a new template).
    if (this.template?.fits(header) !== true) this.template = new PullFrameTemplate(header);
    // With an OpenTelemetry SDK registered, the start of the receive span (consumer-tracing.ts).
    this.receiveStartedAt = receiveStartTime();
    if (!this.firstPullSent) {
      this.firstPullSent = true;
      markStartupPhase(`${options.consumerGroup}: first pull sent`);
    }
    // stop() may have come while this loop awaited (the offset read above, an orderly start offset): a
    // pull sent now would be nobody's, and its rejection when the client closes would go unhandled.
    if (this.abort.signal.aborted) return { kind: 'aborted' };
    const pull = this.o.broker.pullMessage(address, header, {
      timeoutMs: options.pullTimeoutMs,
      template: this.template,
      decode: this.decodeOptions(),
    });
    if (commitOffset > 0) this.o.offsetCarried?.(this.queue, commitOffset);
    // Not Promise.race with one long-lived abort promise: every race leaves a reaction on it that keeps
    // its pull result (and the messages' buffers) reachable until the loop stops. Nor a listener added
    // to the signal per pull (EventTarget bookkeeping on every pull): stop() calls abortPull.
    // Nothing was awaited since the check above: the handlers below are always attached to the pull.
    return new Promise((resolve) => {
      this.abortPull = () => resolve({ kind: 'aborted' });
      pull.then(
        (result) => {
          this.abortPull = undefined;
          if (!this.firstPullAnswered) {
            this.firstPullAnswered = true;
            markStartupPhase(`${options.consumerGroup}: first pull answered`);
          }
          resolve({ kind: 'result', result, answeredBy });
        },
        (error: unknown) => {
          this.abortPull = undefined;
          resolve({ kind: 'error', error });
        },
      );
    });
  }

  /**
   * Sends an undecodable record to the DLQ when its position is known; true once the broker has it.
   * A record whose position is unknown (its size or header is corrupt) cannot be addressed and stays.
   */
  private async deadLetter(error: ProtocolError): Promise<number | undefined> {
    const { deadLetterUndecodable, counters } = this.o;
    if (!(error instanceof MessageDecodeError) || deadLetterUndecodable === undefined) return undefined;
    if (error.queueOffset === undefined || error.physicalOffset === undefined) return undefined;
    try {
      await deadLetterUndecodable(this.queue, error.physicalOffset);
    } catch (sendError) {
      this.warnings.error(
        'undecodable-dlq',
        { err: sendError, decodeError: error, queue: this.queue },
        'undecodable message: DLQ hand-off failed',
      );
      return undefined;
    }
    counters.undecodableDeadLettered++;
    this.warnings.clear('undecodable-dlq');
    this.warnings.error(
      'undecodable',
      { err: error, queue: this.queue, queueOffset: error.queueOffset, physicalOffset: error.physicalOffset },
      'undecodable message sent to the DLQ',
    );
    return error.queueOffset + 1;
  }

  /**
   * Hands each message too large to inflate (in queue order) to the DLQ, or skips it when its tags do
   * not match (as the tag re-check drops any message). Returns the offset of the first one the DLQ did not
   * take, or undefined when all are settled. The ones settled are named in one line per pull (their ids,
   * at most MAX_NAMED_TOO_LARGE): an event per message, not a repeat to throttle, yet one line per pull
   * however many a pull holds (the inflation budget keeps them few: docs/operating.md).
   */
  private async deadLetterTooLarge(tooLarge: readonly TooLargeMessage[]): Promise<number | undefined> {
    const { deadLetterTooLarge, counters, subscription, options, log } = this.o;
    const settled: { message: TooLargeMessage['message']; reason: string }[] = [];
    let outcome: TooLargeOutcome = 'skipped';
    let heldAt: number | undefined;
    for (const { message, reason } of tooLarge) {
      if (subscription.tagsSet.length > 0 && !matchesTags(subscription, message.tags)) {
        counters.filteredMessages++;
        continue;
      }
      const consumed: ConsumedMessage = {
        message,
        queue: this.queue,
        topic: realTopicOf(message, options.retryTopic),
      };
      try {
        outcome = deadLetterTooLarge === undefined ? 'skipped' : await deadLetterTooLarge(consumed, reason);
      } catch (sendError) {
        this.warnings.error(
          'too-large-dlq',
          {
            queue: this.queue,
            queueOffset: message.queueOffset,
            msgId: message.msgId,
            reason,
            err: sendError,
          },
          'message too large to inflate: DLQ hand-off failed, retrying',
        );
        heldAt = message.queueOffset;
        break;
      }
      if (outcome === 'dead-lettered') counters.tooLargeDeadLettered++;
      else counters.tooLargeSkipped++;
      settled.push({ message, reason });
    }
    if (heldAt === undefined) this.warnings.clear('too-large-dlq');
    if (settled.length > 0) {
      const named = settled.slice(0, MAX_NAMED_TOO_LARGE);
      log.error(
        {
          queue: this.queue,
          count: settled.length,
          msgIds: named.map((entry) => entry.message.msgId),
          queueOffsets: named.map((entry) => entry.message.queueOffset),
          reason: settled[0]?.reason,
          limit: 'maxDecompressedBodyBytes',
        },
        outcome === 'dead-lettered'
          ? 'messages too large to inflate: sent to the DLQ'
          : 'messages too large to inflate: skipped (broadcasting keeps no DLQ)',
      );
    }
    return heldAt;
  }

  /** Applies a pull result; returns the delay before the next pull, or −1 to end the loop. */
  private async onResult(result: PullResult, answeredBy: AnsweringBroker): Promise<number> {
    const pulledFrom = answeredBy.brokerId;
    const { processQueue: pq, counters, subscription } = this.o;
    counters.pullRequests++;
    this.suggestedBrokerId = result.suggestWhichBrokerId;
    this.progressMs = Date.now();
    this.lastErrorSeen = undefined;
    this.warnings.clear('pull');
    this.o.outcomes?.succeeded();
    switch (result.status) {
      case 'FOUND': {
        if (this.receiveStartedAt !== undefined) {
          const { consumerGroup, messageModel } = this.o.options;
          const source = {
            topic: this.queue.topic,
            queueId: this.queue.queueId,
            command: 'PULL_MESSAGE',
          } as const;
          traceReceive({ consumerGroup, messageModel }, source, result.messages, this.receiveStartedAt);
        }
        let kept =
          subscription.tagsSet.length === 0
            ? result.messages
            : result.messages.filter((message) => matchesTags(subscription, message.tags));
        counters.filteredMessages += result.messages.length - kept.length;
        let next = result.deferredFrom ?? result.nextBeginOffset;
        let delayMs = 0;
        const heldAt =
          result.tooLarge === undefined ? undefined : await this.deadLetterTooLarge(result.tooLarge);
        if (heldAt !== undefined) {
          // A message too large to inflate that the DLQ did not take yet: nothing from it on may be
          // committed past it, so the queue waits there and the next pull reads it again.
          kept = kept.filter((message) => message.queueOffset < heldAt);
          next = heldAt;
          delayMs = this.o.options.pullDelayOnErrorMs;
        } else if (result.decodeError !== undefined) {
          counters.decodeErrors++;
          const last = lastDecodedOffset(result);
          next = last === undefined ? this.offset : last + 1;
          const skipTo = await this.deadLetter(result.decodeError);
          if (skipTo !== undefined) {
            next = skipTo;
          } else {
            // Skipping an undecodable record would lose it: stay just after the last good one and retry.
            delayMs = this.o.options.pullDelayOnErrorMs;
            this.warnings.error(
              'undecodable-retry',
              { err: result.decodeError, queue: this.queue, offset: next },
              'undecodable message, retrying',
            );
          }
        }
        if (kept.length > 0) {
          const { added, dispatchToConsume } = pq.putMessages(kept);
          counters.pulledMessages += added.length;
          this.moveTo(next, result.status);
          if (added.length > 0 || dispatchToConsume)
            this.o.consumeService.submit(added, pq, dispatchToConsume);
          added.length = 0;
        } else {
          this.moveTo(next, result.status);
          if (delayMs === 0 && pq.messageCount === 0) this.o.offsetStore.updateOffset(this.queue, next, true);
        }
        // The ProcessQueue and the consume service hold the messages now. Emptied, this pull's arrays keep
        // none of them alive from wherever a reference to the result outlives this turn (docs/architecture.md,
        // "Garbage").
        result.messages.length = 0;
        return delayMs;
      }
      case 'NO_NEW_MSG':
      case 'NO_MATCHED_MSG': {
        // A slave's view of the queue may lag its master's: it never moves us backwards.
        const next =
          pulledFrom !== MASTER_BROKER_ID
            ? Math.max(this.offset, result.nextBeginOffset)
            : result.nextBeginOffset;
        this.moveTo(next, result.status);
        if (pq.messageCount === 0) this.o.offsetStore.updateOffset(this.queue, next, true);
        return 0;
      }
      case 'OFFSET_ILLEGAL': {
        counters.offsetIllegal++;
        if (pulledFrom !== MASTER_BROKER_ID) {
          // Only a master's view of the queue is authoritative; a slave may just be behind.
          this.offsetLines.warn(
            this.offsetLineKey('offset-illegal-slave'),
            { queue: this.queue, offset: this.offset, brokerId: pulledFrom, next: result.nextBeginOffset },
            'offset illegal on a slave: asking the master',
          );
          this.suggestedBrokerId = MASTER_BROKER_ID;
          return answeredBy.standIn ? this.o.options.pullDelayOnErrorMs : 0;
        }
        const restartAt = offsetAfterIllegal(this.offset, result);
        this.offsetLines.warn(
          this.offsetLineKey('offset-illegal'),
          {
            queue: this.queue,
            offset: this.offset,
            next: result.nextBeginOffset,
            min: result.minOffset,
            max: result.maxOffset,
            restartAt,
          },
          restartAt < this.offset && this.offset > result.maxOffset
            ? 'offset beyond the end of the queue (the broker lost or recreated it): restarting from its first message'
            : 'offset illegal: queue restarts at the broker-given offset',
        );
        this.moveTo(restartAt, result.status);
        pq.dropped = true;
        this.o.offsetStore.correctOffset(this.queue, restartAt);
        try {
          await this.o.offsetStore.persist(this.queue);
        } catch (error) {
          this.offsetLines.warn(
            this.offsetLineKey('corrected-offset-not-persisted'),
            { err: error, queue: this.queue },
            'persisting the corrected offset failed',
          );
        }
        this.o.onOffsetIllegal(this.queue, restartAt);
        return -1;
      }
    }
  }

  /** Moves the next pull offset; a move backwards is followed but never silent. */
  private moveTo(next: number, status: PullResult['status']): void {
    if (next < this.offset) {
      this.o.counters.offsetMovedBackwards++;
      this.offsetLines.warn(
        this.offsetLineKey('offset-moved-backwards'),
        { queue: this.queue, from: this.offset, to: next, status },
        'broker moved the offset backwards: messages will be consumed again',
      );
    }
    this.offset = next;
  }

  /** The key of an offset line of `kind` about this loop's queue. */
  private offsetLineKey(kind: string): string {
    return `pull:${kind}:${messageQueueKey(this.queue)}`;
  }

  /** Reacts to a failed pull by its flags; returns the delay before the next pull. */
  private onError(error: unknown): number {
    this.o.counters.pullErrors++;
    this.suggestedBrokerId = MASTER_BROKER_ID;
    this.lastErrorSeen = error;
    this.o.outcomes?.failed(error);
    this.warnings.warn('pull', { err: error, queue: this.queue, offset: this.offset }, 'pull failed');
    // A broker we cannot reach (a master that died) or a route that is stale: the name server knows
    // who is left (a dead master's slave), and the next pull goes there.
    const unreachable = error instanceof NetworkError || error instanceof NoBrokerAddressError;
    if (unreachable || (error instanceof BrokerError && error.staleRoute)) {
      this.o.routes.refreshSoon(this.queue.topic).catch((refreshError: unknown) => {
        this.o.log.warn({ err: refreshError }, 'route refresh failed');
      });
    }
    if (error instanceof BrokerError) {
      if (error.needsRebalance) this.o.onNeedsRebalance();
      // FLOW_CONTROL has no flag of its own in the response-code table; Java retries it after 20 ms.
      if (error.code === ResponseCode.FLOW_CONTROL) return BROKER_FLOW_CONTROL_DELAY_MS;
    }
    return this.o.options.pullDelayOnErrorMs;
  }

  /** Waits, or returns early when the loop is stopped. */
  private delay(ms: number): Promise<void> {
    return abortableSleep(ms, this.abort.signal);
  }
}

/** The highest queue offset a FOUND result decoded, counting the messages too large to inflate. */
function lastDecodedOffset(result: PullFound): number | undefined {
  const last = result.messages[result.messages.length - 1]?.queueOffset;
  const lastTooLarge = result.tooLarge?.[result.tooLarge.length - 1]?.message.queueOffset;
  if (last === undefined) return lastTooLarge;
  return lastTooLarge === undefined ? last : Math.max(last, lastTooLarge);
}
