/**
 * The key of a failed message's object in an S3 `onFailure` destination (docs/operating.md, "Failures in
 * S3"):
 *
 * `[<prefix>/]<consumerGroup>/<topic>/<brokerName>/<queueId>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS.mmmZ-<queueOffset>-<messageId>.json`
 *
 * - the date and time are when the message failed for good, in UTC;
 * - `<topic>` is the message's real topic; broker, queue id and offset are of the queue it was pulled from
 *   (for a redelivery, a queue of `%RETRY%<group>`: the object's `rocketMQInfo.queueTopic` says so);
 * - the offset has 20 digits, zero-padded, so keys of one queue and second sort by offset;
 * - every segment but the prefix is percent-encoded as `encodeURIComponent` does (a topic's `%` and `|`).
 * The key is a function of the message and its failure time only: a put retried after a transient
 * error writes the same key, never a second object.
 */
import type { S3FailureObject } from './s3-failure-object.js';

/** Digits of the largest queue offset (2^63 - 1). */
const OFFSET_DIGITS = 20;

/**
 * The key of `object` under `prefix` (no leading or trailing `/`, `''` for none).
 */
export function s3FailureKey(prefix: string, object: S3FailureObject): string {
  const info = object.rocketMQInfo;
  const time = new Date(object.timestamp);
  if (Number.isNaN(time.getTime())) throw new RangeError(`not a time: ${object.timestamp}`);
  const iso = time.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const [year, month, day] = iso.slice(0, 10).split('-') as [string, string, string];
  const name = `${iso.replaceAll(':', '.')}-${String(info.queueOffset).padStart(OFFSET_DIGITS, '0')}-${info.messageId}.json`;
  const segments = [
    info.consumerGroup,
    info.topic,
    info.brokerName,
    String(info.queueId),
    year,
    month,
    day,
    name,
  ].map(encodeURIComponent);
  return [...(prefix === '' ? [] : [prefix]), ...segments].join('/');
}
