/**
 * The functions a soak's pollers invoke, served by the test Invoke API (lambda-api-server.ts) inside
 * the soak's own process: one per mapping kind. Each writes every record it gets to the soak's ledger
 * (which poller invoked it comes from the qualifier: each poller's config names `<function>:<poller>`)
 * and fails the records the producer marked: `fail-once` fails its first delivery, `fail-always`
 * fails every delivery (so it must end in the group's DLQ). Only the concurrent mapping's function
 * fails marked records; the others always succeed.
 */
import type { LambdaApiServer } from '../lambda-api-server.js';

/** The mapping kinds of a soak, and their function names. */
export const SOAK_MAPPINGS = ['concurrent', 'orderly', 'pop', 'filter'] as const;
export type SoakMapping = (typeof SOAK_MAPPINGS)[number];

/** The function of a mapping kind. */
export function soakFunctionName(mapping: SoakMapping): string {
  return `soak-${mapping}`;
}

/** What the producer asks of a message (user property `soak`). */
export type SoakRole = 'ok' | 'fail-once' | 'fail-always';

/** One record as a soak function saw it. */
export interface SoakHandling {
  mapping: SoakMapping;
  messageId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
  shardKey: string | undefined;
  seq: number | undefined;
  tag: string | undefined;
  /** When the invoke reached the function. */
  atMs: number;
  /** The poller (the invoke's qualifier). */
  poller: string;
  /** The invoke's number over the whole run. */
  batch: number;
  /** False when the function reported this record failed. */
  succeeded: boolean;
}

interface RecordShape {
  messageId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
  tags?: string | null;
  properties?: Record<string, string>;
}

/**
 * Registers the four functions on `lambda`; every record they see is appended to `ledger`.
 *
 * @example
 * ```ts
 * const ledger: SoakHandling[] = [];
 * registerSoakFunctions(lambda, ledger);
 * ```
 */
export function registerSoakFunctions(lambda: LambdaApiServer, ledger: SoakHandling[]): void {
  let batches = 0;
  for (const mapping of SOAK_MAPPINGS) {
    lambda.register(soakFunctionName(mapping), (event, context) => {
      const batch = ++batches;
      const atMs = Date.now();
      const failures: { itemIdentifier: string }[] = [];
      for (const record of (event as { Records: RecordShape[] }).Records) {
        const role = record.properties?.soak as SoakRole | undefined;
        const fails =
          mapping === 'concurrent' &&
          (role === 'fail-always' || (role === 'fail-once' && record.reconsumeTimes === 0));
        if (fails) failures.push({ itemIdentifier: record.messageId });
        const seq = record.properties?.seq;
        ledger.push({
          mapping,
          messageId: record.messageId,
          topic: record.topic,
          brokerName: record.brokerName,
          queueId: record.queueId,
          queueOffset: record.queueOffset,
          reconsumeTimes: record.reconsumeTimes,
          shardKey: record.properties?.shardKey,
          seq: seq === undefined ? undefined : Number(seq),
          tag: record.tags ?? undefined,
          atMs,
          poller: context.qualifier ?? '?',
          batch,
          succeeded: !fails,
        });
      }
      return { batchItemFailures: failures };
    });
  }
}
