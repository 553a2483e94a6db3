/**
 * The pop loop of one broker group: take an in-flight slot, long-poll POP_MESSAGE at the group's master
 * for any queue of the topic (queueId -1: the broker picks, so any number of pollers share the queues
 * without a rebalance), fill the batch for up to the batching window, hand it off, repeat. Errors pause
 * the loop for `pullDelayOnErrorMs`; a refusal goes to the consumer's refusal watch.
 */
import { BrokerError } from '../../client/broker-error.js';
import { NoMasterError } from '../../client/no-master-error.js';
import type { PopClient } from '../../client/pop-client.js';
import type { PoppedMessage, PopResult } from '../../client/pop-result.js';
import type { DecodeOptions } from '../../protocol/message-decoder.js';
import { receiptTopic } from '../../protocol/pop-extra-info.js';
import { PopInitMode } from '../../protocol/pop-headers.js';
import { matchesTags, type SubscriptionData } from '../../protocol/subscription.js';
import { abortableSleep } from '../../util/abortable-sleep.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import type { ConsumerCounters } from '../consumer-counters.js';
import { receiveStartTime, traceReceive } from '../consumer-tracing.js';
import type { InFlightSlots } from './in-flight-slots.js';
import type { PopBatchSettler, PopDelivery } from './pop-batch-settler.js';
import { type NormalizedPopConsumerOptions, popSize } from './pop-consumer-options.js';
import type { PopBrokerProgress, PopCounters } from './pop-status.js';

/** A batching-window remainder shorter than this is not worth another pop. */
const MIN_FILL_POLL_MS = 20;

/** Ids a line about a pop's messages too large to inflate names at most. */
const MAX_NAMED_TOO_LARGE = 32;

/** What one loop needs. */
export interface PopBrokerLoopOptions {
  brokerName: string;
  /** The broker group's master address now (routes change). */
  masterAddress: () => string | undefined;
  pop: Pick<PopClient, 'popMessage'>;
  settler: Pick<PopBatchSettler, 'ack' | 'deadLetterTooLarge'>;
  options: NormalizedPopConsumerOptions;
  subscription: SubscriptionData;
  slots: InFlightSlots;
  /** Consumes and settles a batch; owns the slot the loop took for it and releases it when done. */
  dispatch: (address: string, batch: PopDelivery[]) => Promise<void>;
  counters: ConsumerCounters;
  popCounters: PopCounters;
  outcomes: { succeeded(): void; failed(error: unknown): void };
  /** Told when the broker said our route may be stale. */
  onStaleRoute: () => void;
  log: Logger;
}

/**
 * Pops from one broker group until stopped.
 */
export class PopBrokerLoop {
  private readonly controller = new AbortController();
  private readonly warnings: ThrottledLog;
  private running: Promise<void> | undefined;
  private lastProgressMs = Date.now();
  private lastError: unknown;
  private restNum = 0;
  private waitingForSlot = false;
  private address: string | undefined;
  /** The inflation limits every pop body is decoded with. */
  private readonly decode: DecodeOptions;

  constructor(private readonly o: PopBrokerLoopOptions) {
    this.warnings = new ThrottledLog(o.log);
    this.decode = {
      maxBodyBytes: o.options.maxDecompressedBodyBytes,
      maxInflatedBytes: o.options.maxDecompressedPullBytes,
    };
  }

  /** Starts popping. Idempotent. */
  start(): void {
    this.running ??= this.run().catch((error: unknown) =>
      this.o.log.error({ err: error, broker: this.o.brokerName }, 'pop loop ended by an unexpected error'),
    );
  }

  /**
   * Stops popping; resolves once the loop has ended. A long poll under way is not waited for: messages it
   * still brings are left invisible and come back after their invisible time.
   */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.running;
  }

  /** The loop's progress, for status and health. */
  progress(): PopBrokerProgress {
    return {
      brokerName: this.o.brokerName,
      address: this.address,
      lastProgressMs: this.lastProgressMs,
      lastError: this.lastError,
      restNum: this.restNum,
      waitingForSlot: this.waitingForSlot,
    };
  }

  private async run(): Promise<void> {
    const { signal } = this.controller;
    const { slots } = this.o;
    while (!signal.aborted) {
      this.waitingForSlot = true;
      const acquired = await slots.acquire(signal);
      this.waitingForSlot = false;
      if (!acquired) break;
      let batch: PopDelivery[] = [];
      let address: string | undefined;
      let pauseMs = 0;
      try {
        address = this.o.masterAddress();
        if (address === undefined) throw new NoMasterError(this.o.brokerName, this.o.options.topic);
        this.address = address;
        const popped = await this.popBatch(address, signal);
        batch = popped.batch;
        pauseMs = popped.pauseMs;
        this.lastError = undefined;
      } catch (error) {
        pauseMs = this.onError(error);
      }
      if (batch.length > 0 && address !== undefined) {
        const target = address;
        this.o
          .dispatch(target, batch)
          .catch((error: unknown) =>
            this.o.log.error({ err: error, broker: target }, 'batch dispatch failed'),
          )
          .finally(() => slots.release());
      } else {
        slots.release();
      }
      if (pauseMs > 0) await abortableSleep(pauseMs, signal);
    }
  }

  /**
   * One batch: a long poll, then, while the broker says more is there, shorter pops until the batch is
   * full or the batching window has passed.
   */
  private async popBatch(
    address: string,
    signal: AbortSignal,
  ): Promise<{ batch: PopDelivery[]; pauseMs: number }> {
    const o = this.o.options;
    const batch: PopDelivery[] = [];
    let pollTimeMs = o.pollTimeMs;
    let windowEndMs: number | undefined;
    for (;;) {
      const result = await this.popOnce(address, popSize(o.batchSize - batch.length), pollTimeMs, signal);
      if (result === undefined) return { batch, pauseMs: 0 };
      if (result.status === 'POLLING_FULL') {
        this.warnings.warn(
          'polling-full',
          { broker: this.o.brokerName },
          'broker holds too many long polls: pausing',
        );
        return { batch, pauseMs: o.pullDelayOnErrorMs };
      }
      if (result.status !== 'FOUND') return { batch, pauseMs: 0 };
      batch.push(...(await this.accept(address, result)));
      windowEndMs ??= Date.now() + o.maximumBatchingWindowMs;
      const remainingMs = windowEndMs - Date.now();
      if (batch.length >= o.batchSize || remainingMs < MIN_FILL_POLL_MS || signal.aborted) {
        return { batch, pauseMs: 0 };
      }
      // While the broker says more is waiting, take it at once; else wait out what is left of the window.
      pollTimeMs = result.restNum > 0 ? 0 : remainingMs;
    }
  }

  /** One POP_MESSAGE; undefined when the loop was stopped before the answer came. */
  private async popOnce(
    address: string,
    maxMsgNums: number,
    pollTimeMs: number,
    signal: AbortSignal,
  ): Promise<PopResult | undefined> {
    const o = this.o.options;
    // With an OpenTelemetry SDK registered, the start of the receive span (consumer-tracing.ts).
    const startedAt = receiveStartTime();
    const request = this.o.pop.popMessage(
      address,
      this.o.brokerName,
      {
        consumerGroup: o.consumerGroup,
        topic: o.topic,
        queueId: -1,
        maxMsgNums,
        invisibleTime: o.invisibleTimeMs,
        pollTime: pollTimeMs,
        // The broker answers POLLING_TIMEOUT at once to a request older than bornTime + pollTime + 500 ms.
        bornTime: Date.now(),
        initMode: o.startingPosition === 'TRIM_HORIZON' ? PopInitMode.MIN : PopInitMode.MAX,
        expType: o.filter.type,
        exp: o.filter.expression,
      },
      { decode: this.decode },
    );
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    let result: PopResult | undefined;
    try {
      result = await Promise.race([request, stopped]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
    if (result === undefined) {
      request.then(
        (late) => {
          if (late.status === 'FOUND' && late.messages.length > 0) {
            this.o.log.info(
              { broker: this.o.brokerName, messages: late.messages.length },
              'a pop answered after stop: its messages come back after their invisible time',
            );
          }
        },
        (error: unknown) => this.o.log.debug({ err: error }, 'a pop failed after stop'),
      );
      return undefined;
    }
    this.o.counters.pullRequests++;
    this.lastProgressMs = Date.now();
    this.restNum = result.restNum;
    this.o.outcomes.succeeded();
    if (startedAt !== undefined && result.status === 'FOUND') {
      const source = { topic: o.topic, command: 'POP_MESSAGE' } as const;
      traceReceive(
        { consumerGroup: o.consumerGroup },
        source,
        result.messages.map((popped) => popped.message),
        startedAt,
      );
    }
    return result;
  }

  /** A popped message as the listener sees it. */
  private delivery({ message, receipt }: PoppedMessage): PopDelivery {
    const o = this.o.options;
    const queue = {
      topic: receiptTopic(receipt, o.topic, o.consumerGroup),
      brokerName: receipt.brokerName,
      queueId: receipt.queueId,
    };
    return { consumed: { message, queue, topic: o.topic }, receipt };
  }

  /**
   * The messages of a FOUND result to consume; tag re-check misses are acked at once, messages too large
   * to inflate are sent to the DLQ.
   */
  private async accept(
    address: string,
    result: Extract<PopResult, { status: 'FOUND' }>,
  ): Promise<PopDelivery[]> {
    if (result.decodeError !== undefined) {
      this.o.counters.decodeErrors++;
      this.warnings.error(
        'undecodable',
        { err: result.decodeError, broker: this.o.brokerName, decoded: result.messages.length },
        'pop body partly undecodable: the rest comes back after its invisible time',
      );
    }
    if (result.deferred === true) {
      this.warnings.warn(
        'deferred',
        { broker: this.o.brokerName, decoded: result.messages.length, limit: 'maxDecompressedPullBytes' },
        'pop body inflates past maxDecompressedPullBytes: the rest comes back after its invisible time',
      );
    }
    const deliveries: PopDelivery[] = result.messages.map((popped) => this.delivery(popped));
    const deadLettered: { popped: PoppedMessage; reason: string }[] = [];
    for (const { popped, reason } of result.tooLarge ?? []) {
      const delivery = this.delivery(popped);
      if (matchesTags(this.o.subscription, popped.message.tags)) {
        if (await this.o.settler.deadLetterTooLarge(address, delivery, reason))
          deadLettered.push({ popped, reason });
      } else {
        this.o.counters.filteredMessages++;
        this.o.popCounters.filteredAcks++;
        await this.o.settler.ack(address, delivery);
      }
    }
    if (deadLettered.length > 0) {
      // One line per pop naming them: an event per message, yet never more lines than pops.
      const named = deadLettered.slice(0, MAX_NAMED_TOO_LARGE);
      this.o.log.error(
        {
          broker: this.o.brokerName,
          count: deadLettered.length,
          msgIds: named.map(({ popped }) => popped.message.msgId),
          queues: named.map(({ popped }) => `${popped.receipt.queueId}:${popped.message.queueOffset}`),
          reason: deadLettered[0]?.reason,
          limit: 'maxDecompressedBodyBytes',
        },
        'messages too large to inflate: sent to the DLQ',
      );
    }
    const kept = deliveries.filter((d) => matchesTags(this.o.subscription, d.consumed.message.tags));
    this.o.counters.pulledMessages += kept.length;
    const dropped = deliveries.filter((d) => !kept.includes(d));
    if (dropped.length > 0) {
      this.o.counters.filteredMessages += dropped.length;
      this.o.popCounters.filteredAcks += dropped.length;
      await Promise.all(dropped.map((d) => this.o.settler.ack(address, d)));
    }
    return kept;
  }

  /** Counts, logs and classifies a failed pop; returns the pause before the next. */
  private onError(error: unknown): number {
    this.o.counters.pullErrors++;
    this.lastError = error;
    this.o.outcomes.failed(error);
    if ((error instanceof BrokerError && error.staleRoute) || error instanceof NoMasterError) {
      this.o.onStaleRoute();
    }
    this.warnings.warn(
      'pop-failed',
      { err: error, broker: this.o.brokerName },
      'pop failed: retrying after a pause',
    );
    return this.o.options.pullDelayOnErrorMs;
  }
}
