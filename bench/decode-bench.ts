/**
 * The decode micro-benchmark: one real PULL_MESSAGE response body (32 stored messages from the bench
 * topic), decoded in a loop by our decoder (src/protocol/message-decoder.ts) and by the Java client's
 * (`MessageDecoder.decodesBatch(buffer, readBody, decompressBody, isClient)`, as its PullAPIWrapper
 * calls it). Each side warms up first, then counts messages decoded in a fixed time.
 */
import type { RocketMQClient } from '../src/client/rocketmq-client.js';
import type { PullMessageRequestHeader } from '../src/protocol/headers.js';
import { decodeMessages } from '../src/protocol/message-decoder.js';
import { buildPullSysFlag } from '../src/protocol/pull-sys-flag.js';
import { toExtFields } from '../src/protocol/remoting-command.js';
import { RequestCode } from '../src/protocol/request-code.js';
import { ResponseCode } from '../src/protocol/response-code.js';

const PULL_TIMEOUT_MS = 10_000;

/**
 * Throughput of one decoder.
 *
 * @example
 * ```ts
 * const rate: DecodeRate = { messagesPerSecond: 1.2e6, megabytesPerSecond: 1300 };
 * ```
 */
export interface DecodeRate {
  readonly messagesPerSecond: number;
  /** MiB of PULL body per second. */
  readonly megabytesPerSecond: number;
}

/**
 * Pulls up to 32 messages from queue 0 of `topic` (offset 0, no long polling) and returns the raw body.
 *
 * @example
 * ```ts
 * const body = await fetchPullBody(client, broker.brokerAddr, broker.brokerName, 'BenchTopic');
 * ```
 */
export async function fetchPullBody(
  client: RocketMQClient,
  brokerAddr: string,
  brokerName: string,
  topic: string,
): Promise<Buffer> {
  const header: PullMessageRequestHeader = {
    consumerGroup: 'bench-decode',
    topic,
    queueId: 0,
    queueOffset: 0,
    maxMsgNums: 32,
    sysFlag: buildPullSysFlag({ suspend: false, subscription: true }),
    commitOffset: 0,
    suspendTimeoutMillis: 0,
    subscription: '*',
    expressionType: 'TAG',
    subVersion: 0,
    bname: brokerName,
  };
  const response = await client.pool.request(
    brokerAddr,
    { code: RequestCode.PULL_MESSAGE, extFields: toExtFields(header) },
    PULL_TIMEOUT_MS,
  );
  if (response.code !== ResponseCode.SUCCESS || response.body === undefined) {
    throw new Error(`the decode benchmark's pull found nothing (response code ${response.code})`);
  }
  return response.body;
}

/**
 * Decodes `body` with our decoder for `warmupMs`, then for `measureMs`, and returns the measured rate.
 *
 * @example
 * ```ts
 * const ours = measureNodeDecode(body, 2000, 3000);
 * ```
 */
export function measureNodeDecode(body: Buffer, warmupMs: number, measureMs: number): DecodeRate {
  let sink = 0;
  const warmupEnd = performance.now() + warmupMs;
  while (performance.now() < warmupEnd) sink += decodeOnce(body);
  let iterations = 0;
  let messages = 0;
  const start = performance.now();
  const end = start + measureMs;
  let now: number;
  do {
    messages += decodeOnce(body);
    iterations++;
    now = performance.now();
  } while (now < end);
  if (sink < 0) throw new Error('unreachable');
  const seconds = (now - start) / 1000;
  return {
    messagesPerSecond: messages / seconds,
    megabytesPerSecond: (iterations * body.length) / 1024 / 1024 / seconds,
  };
}

/**
 * The rate from the Java peer's `decode` result line.
 *
 * @example
 * ```ts
 * javaDecodeRate({ iterations: 10, messages: 320, bytes: 338000, elapsedNs: 1e6 });
 * ```
 */
export function javaDecodeRate(result: Record<string, unknown>): DecodeRate {
  const { messages, bytes, elapsedNs } = result;
  if (typeof messages !== 'number' || typeof bytes !== 'number' || typeof elapsedNs !== 'number') {
    throw new Error(`unreadable Java decode result: ${JSON.stringify(result)}`);
  }
  const seconds = elapsedNs / 1e9;
  return { messagesPerSecond: messages / seconds, megabytesPerSecond: bytes / 1024 / 1024 / seconds };
}

function decodeOnce(body: Buffer): number {
  const { messages, error } = decodeMessages(body);
  if (error !== undefined) throw new Error('the pulled body did not decode', { cause: error });
  let touched = 0;
  for (const message of messages) touched += message.body.length > 0 ? 1 : 0;
  return touched;
}
