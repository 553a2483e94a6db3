/**
 * Applying a listener result to an orderly batch (docs/architecture.md, "Orderly consumption"): records
 * are settled in order while each succeeded or (with `orderlyFailure: 'skip'`) the DLQ took it, and the
 * offset is committed (overwrite) up to the first record to retry; that record and every record after
 * it are consumed again. Only the records the result blames count a failure.
 */
import { DEAD_LETTER_DELAY_LEVEL } from '../../../protocol/dead-letter-delay-level.js';
import type { MessageExt } from '../../../protocol/message.js';
import type { Logger } from '../../../util/logger.js';
import type { ConsumedMessage, ConsumeResult } from '../../message-listener.js';
import type { ProcessQueue } from '../../pull/process-queue.js';
import { classifyResult, type RecordVerdict, type ResultClassification } from '../classify-result.js';
import type { ConsumeServiceContext } from '../consume-service.js';
import { notifyFinalFailure } from '../final-failure.js';
import type { LocalRedeliveries } from './local-redeliveries.js';

/** A record of a batch with the view the listener got of it. */
export interface BatchRecord {
  readonly message: MessageExt;
  readonly view: ConsumedMessage;
}

/** What the queue's consume loop does after a batch. */
export type BatchOutcome = 'continue' | 'suspend' | 'stop';

/** The settled prefix of a batch: its length and how many of its records succeeded. */
interface SettledPrefix {
  readonly count: number;
  readonly succeeded: number;
}

/**
 * Applies listener results to the batches of an orderly service's queues.
 */
export class OrderlyResultApplier {
  private readonly context: ConsumeServiceContext;
  private readonly log: Logger;
  private readonly redeliveries: LocalRedeliveries;
  /** `orderlyFailure: 'skip'`: records dead-lettered or past the limit go to the DLQ. */
  private readonly skip: boolean;

  constructor(context: ConsumeServiceContext, redeliveries: LocalRedeliveries) {
    this.context = context;
    this.log = context.log;
    this.redeliveries = redeliveries;
    this.skip = context.options.orderlyFailure === 'skip';
  }

  /**
   * Applies a result: settles the records before the first one to retry and commits them; that record
   * and all after it are consumed again after the suspend time.
   */
  async apply(
    pq: ProcessQueue,
    records: readonly BatchRecord[],
    result: ConsumeResult,
    inFlight: { readonly aborted: boolean },
  ): Promise<BatchOutcome> {
    const { counters } = this.context;
    const verdicts = classifyResult(result, records, { deadLetters: this.skip });
    if (verdicts.invalidPartial) {
      this.log.warn({ result }, 'PARTIAL result names indexes outside the batch: whole batch failed');
    }
    counters.consumedFailed += verdicts.failedCount;
    counters.filteredOut += result.filteredOut ?? 0;
    const settled = await this.settlePrefix(pq, verdicts, inFlight);
    if (settled === 'interrupted') return 'stop';
    counters.consumedOk += settled.succeeded;
    const again = verdicts.inOrder.slice(settled.count);
    if (again.length === 0) {
      this.commit(pq);
      return 'continue';
    }
    this.redeliver(pq, again);
    if (settled.count > 0) this.commit(pq);
    this.log.debug(
      { queue: pq.messageQueue, offset: again[0]?.record.message.queueOffset, reason: verdicts.reason },
      'orderly: batch failed, queue suspended',
    );
    return 'suspend';
  }

  /**
   * Settles records in order while each succeeded or went to the DLQ ('skip': dead-lettered by the result,
   * or past `maxReconsumeTimes`); the first other record ends the prefix. Records skipped at the limit are
   * reported as final failures (the result's own dead letters are not). 'interrupted' when the batch was
   * aborted or its queue dropped meanwhile.
   */
  private async settlePrefix(
    pq: ProcessQueue,
    verdicts: ResultClassification<BatchRecord>,
    inFlight: { readonly aborted: boolean },
  ): Promise<SettledPrefix | 'interrupted'> {
    const exhausted: ConsumedMessage[] = [];
    let count = 0;
    let succeeded = 0;
    let interrupted = false;
    for (const verdict of verdicts.inOrder) {
      if (verdict.kind === 'succeeded') {
        succeeded++;
        count++;
        continue;
      }
      const reason = this.dlqReasonOf(verdict);
      if (reason === undefined || !(await this.sendToDlq(pq, verdict.record, reason))) break;
      count++;
      if (verdict.kind === 'retry') exhausted.push(verdict.record.view);
      if (inFlight.aborted || pq.dropped) {
        interrupted = true;
        break;
      }
    }
    await notifyFinalFailure(this.context.listener, exhausted, verdicts.reason, this.log);
    if (!interrupted) return { count, succeeded };
    this.context.counters.discardedResults++;
    return 'interrupted';
  }

  /** Why a failed record may skip to the DLQ: the result dead-letters it, or ('skip') it is past the limit. */
  private dlqReasonOf(verdict: RecordVerdict<BatchRecord>): string | undefined {
    if (verdict.kind === 'deadLetter') return verdict.reason;
    return this.skip && this.pastLimit(verdict.record.message) ? 'maxReconsumeTimes reached' : undefined;
  }

  /** Puts records back for redelivery; the ones the result blamed count a failure. */
  private redeliver(pq: ProcessQueue, again: readonly RecordVerdict<BatchRecord>[]): void {
    const { options, counters } = this.context;
    pq.makeMessageToConsumeAgain(again.map((verdict) => verdict.record.message));
    counters.localRetries += again.length;
    for (const { record, kind } of again) {
      const blamed = kind !== 'succeeded';
      if (blamed && options.orderlyFailure === 'block' && this.pastLimit(record.message)) {
        counters.blockedRetries++;
        this.log.warn(
          {
            msgId: record.message.msgId,
            queue: pq.messageQueue,
            failures: this.redeliveries.failuresOf(record.message) + 1,
          },
          'orderly: message past maxReconsumeTimes blocks its queue (orderlyFailure: block)',
        );
      }
      this.redeliveries.redelivered(record.message, blamed);
    }
  }

  private pastLimit(message: MessageExt): boolean {
    return this.redeliveries.failuresOf(message) >= this.context.options.maxReconsumeTimes;
  }

  /** Hands a message to `%DLQ%<group>`; false (logged, counted) when the broker did not take it. */
  private async sendToDlq(
    pq: ProcessQueue,
    { message, view }: BatchRecord,
    reason: string,
  ): Promise<boolean> {
    const { counters, sendBack } = this.context;
    try {
      await sendBack.sendBack(message, pq.messageQueue, view.topic, DEAD_LETTER_DELAY_LEVEL);
      counters.sentBack++;
      counters.deadLettered++;
      this.log.warn(
        { msgId: message.msgId, queue: pq.messageQueue, reconsumeTimes: view.message.reconsumeTimes, reason },
        'orderly: message skipped to the DLQ',
      );
      return true;
    } catch (error) {
      counters.sendBackFailures++;
      this.log.warn(
        { err: error, msgId: message.msgId, queue: pq.messageQueue },
        'orderly: DLQ hand-off failed, message retried',
      );
      return false;
    }
  }

  /** Commits the in-flight messages and stores the offset (overwrite) unless the queue was dropped. */
  private commit(pq: ProcessQueue): void {
    const offset = pq.commit();
    if (offset >= 0 && !pq.dropped) {
      this.context.offsetStore.updateOffset(pq.messageQueue, offset, false);
      this.context.offsetMoved?.(pq.messageQueue);
    }
  }
}
