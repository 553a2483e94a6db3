/**
 * The decode micro-benchmark: real PULL_MESSAGE response bodies (32 stored messages each) of four
 * kinds ({@link DECODE_CASES}), each decoded in a loop by our decoder (src/protocol/message-decoder.ts)
 * and by the Java client's (`MessageDecoder.decodesBatch(buffer, readBody, decompressBody, isClient)`,
 * as its PullAPIWrapper calls it). Each side warms up first, then counts messages decoded in a fixed
 * time; the sides alternate case by case and round by round, and the report gives medians.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Producer } from '../src/client/producer.js';
import type { RocketMQClient } from '../src/client/rocketmq-client.js';
import type { LocalBroker } from '../src/local-broker/local-broker.js';
import type { PullMessageRequestHeader } from '../src/protocol/headers.js';
import { buildPullSysFlag } from '../src/protocol/pull-sys-flag.js';
import { toExtFields } from '../src/protocol/remoting-command.js';
import { RequestCode } from '../src/protocol/request-code.js';
import { ResponseCode } from '../src/protocol/response-code.js';
import { createBenchTopic } from './bench-topic.js';
import { runChild } from './child-run.js';
import { benchNode } from './image-node-env.js';
import { type JavaBenchBuild, javaBenchArgs } from './java-bench.js';
import { benchMessageBody } from './message-body.js';

const PULL_TIMEOUT_MS = 10_000;
/** Messages per PULL body: what one pull of a consumer with a backlog returns by default. */
const MESSAGES_PER_BODY = 32;

/**
 * What each side does per message, for the report.
 *
 * @example
 * ```ts
 * console.log(DECODE_WORK.java);
 * ```
 */
export const DECODE_WORK = {
  ours: 'decodeMessages(body): a DecodedMessage per message with its fixed fields read; properties, msgId, offsetMsgId, tags, keys and hosts computed on first read (msgId found in the properties text without building the properties object); body a view of the pull buffer (no copy); the loop reads msgId and body',
  oursAllFields:
    'the same decode, and the loop reads every field as the Lambda event needs it (properties object built, offsetMsgId, tags, keys, both hosts): what the function path pays',
  java: 'MessageDecoder.decodesBatch(buffer, readBody=true, decompressBody=true, isClient=true): a MessageClientExt per message; properties parsed eagerly into a HashMap; body copied into a byte[]; offsetMsgId built; the loop reads getMsgId()',
} as const;

/**
 * One kind of message the micro-benchmark decodes.
 *
 * @example
 * ```ts
 * const heavy: DecodeCase = { name: '64 B, 20 user properties', messageBytes: 64, userProperties: 20 };
 * ```
 */
export interface DecodeCase {
  readonly name: string;
  /** Body size of each message. */
  readonly messageBytes: number;
  /** User properties per message, besides TAGS (and KEYS when there are user properties). */
  readonly userProperties: number;
}

/**
 * The four cases: 1 KiB and 64 B bodies, each with only the producer's own properties (UNIQ_KEY, TAGS,
 * WAIT) and properties-heavy (KEYS and 20 user properties).
 *
 * @example
 * ```ts
 * DECODE_CASES.map((c) => c.name);
 * ```
 */
export const DECODE_CASES: readonly DecodeCase[] = [
  { name: '1 KiB', messageBytes: 1024, userProperties: 0 },
  { name: '1 KiB, 20 user properties', messageBytes: 1024, userProperties: 20 },
  { name: '64 B', messageBytes: 64, userProperties: 0 },
  { name: '64 B, 20 user properties', messageBytes: 64, userProperties: 20 },
];

/**
 * Throughput of one decoder.
 *
 * @example
 * ```ts
 * const rate: DecodeRate = { messagesPerSecond: 1.2e6, megabytesPerSecond: 1300, messagesPerCpuSecond: 1.1e6 };
 * ```
 */
export interface DecodeRate {
  /** Messages per second of wall time. */
  readonly messagesPerSecond: number;
  /** MiB of PULL body per second of wall time. */
  readonly megabytesPerSecond: number;
  /**
   * Messages per second of the process's CPU time (all its threads: collector and JIT included): on
   * a machine shared with other work, wall time also measures the neighbours.
   */
  readonly messagesPerCpuSecond: number;
}

/**
 * The measurements of one case: one rate per round and side.
 *
 * @example
 * ```ts
 * const result: DecodeCaseResult = { decodeCase: DECODE_CASES[0], bodyBytes: 35_000, ours: [], oursAllFields: [], java: [] };
 * ```
 */
export interface DecodeCaseResult {
  readonly decodeCase: DecodeCase;
  readonly bodyBytes: number;
  readonly ours: DecodeRate[];
  /** Ours, reading every field of every message (see DECODE_WORK.oursAllFields). */
  readonly oursAllFields: DecodeRate[];
  /** Empty when the Java peer was not built. */
  readonly java: DecodeRate[];
}

/** A case with the real PULL body the broker returned for it. */
export interface DecodeBody {
  readonly decodeCase: DecodeCase;
  readonly body: Buffer;
}

/**
 * Produces {@link MESSAGES_PER_BODY} messages per case (one `send` each, to a fresh one-queue topic)
 * and pulls them back: one real PULL body per case.
 *
 * @example
 * ```ts
 * const bodies = await fetchDecodeBodies(client, broker);
 * ```
 */
export async function fetchDecodeBodies(client: RocketMQClient, broker: LocalBroker): Promise<DecodeBody[]> {
  const producer = new Producer({ client, producerGroup: 'rocketmq-lambda-bench-decode' });
  await producer.start();
  try {
    const bodies: DecodeBody[] = [];
    for (const [index, decodeCase] of DECODE_CASES.entries()) {
      const topic = `BenchDecode-${index}-${Date.now()}`;
      await createBenchTopic(client, broker, topic, 1);
      for (let i = 0; i < MESSAGES_PER_BODY; i++) {
        await producer.send(
          {
            topic,
            tags: 'bench',
            ...extraProperties(decodeCase, i),
            body: benchMessageBody(0, i, decodeCase.messageBytes),
          },
          { queueId: 0 },
        );
      }
      bodies.push({
        decodeCase,
        body: await fetchPullBody(client, broker.brokerAddr, broker.brokerName, topic),
      });
    }
    return bodies;
  } finally {
    await producer.shutdown();
  }
}

/** KEYS and user properties of a properties-heavy message: names and values of typical lengths. */
function extraProperties(
  decodeCase: DecodeCase,
  index: number,
): { keys?: string; properties?: Record<string, string> } {
  if (decodeCase.userProperties === 0) return {};
  const properties: Record<string, string> = {};
  for (let p = 0; p < decodeCase.userProperties; p++) {
    properties[`attribute${p}`] = `value-${index}-${p}-${'v'.repeat((p % 4) * 8)}`;
  }
  return { keys: `order-${index} customer-${index % 7}`, properties };
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
    maxMsgNums: MESSAGES_PER_BODY,
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
 * Measures every body with both decoders, `rounds` times, alternating which side goes first (or all
 * sides at once with `options.concurrent`).
 *
 * @example
 * ```ts
 * const results = await runDecodeBench(await fetchDecodeBodies(client, broker), java, decodeChild, { rounds: 3, ... });
 * ```
 */
export async function runDecodeBench(
  bodies: readonly DecodeBody[],
  java: JavaBenchBuild | undefined,
  /** decode-child.js (compiled): our side runs in a fresh process per measurement, as Java's does. */
  nodeChild: string,
  options: {
    rounds: number;
    warmupMs: number;
    measureMs: number;
    javaHeapMb: number;
    /**
     * A case's three measurements (ours, ours-all-fields, Java) at once instead of one after the other:
     * `--quick`, whose figures only show that every side runs, and which cannot spare 12 process starts
     * in a row. Each then shares the cores with the other two.
     */
    concurrent: boolean;
    log: (line: string) => void;
  },
): Promise<DecodeCaseResult[]> {
  const results = bodies.map(({ decodeCase, body }) => ({
    decodeCase,
    bodyBytes: body.length,
    ours: [] as DecodeRate[],
    oursAllFields: [] as DecodeRate[],
    java: [] as DecodeRate[],
  }));
  const files = await Promise.all(
    bodies.map(async ({ body }, index) => {
      const file = join(tmpdir(), `rocketmq-lambda-bench-pull-body-${process.pid}-${index}.bin`);
      await writeFile(file, body);
      return file;
    }),
  );
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const index of bodies.keys()) {
        const result = results[index];
        const file = files[index];
        if (result === undefined || file === undefined)
          throw new Error('unreachable: a body without a result');
        const measureJava = async (): Promise<DecodeRate | undefined> => {
          if (java === undefined) return undefined;
          const args = ['decode', file, String(options.warmupMs), String(options.measureMs)];
          const { result: line } = await runChild('java', javaBenchArgs(java, options.javaHeapMb, args), {
            timeoutMs: 60_000 + options.warmupMs + options.measureMs,
          });
          return javaDecodeRate(line);
        };
        const measureOurs = async (allFields: boolean): Promise<DecodeRate> => {
          const args = [nodeChild, file, String(options.warmupMs), String(options.measureMs)];
          const { result: line } = await runChild(
            (await benchNode()).path,
            [...args, allFields ? 'allFields' : 'idAndBody'],
            {
              timeoutMs: 60_000 + options.warmupMs + options.measureMs,
            },
          );
          return javaDecodeRate(line);
        };
        let rates: { ours: DecodeRate; oursAllFields: DecodeRate; java: DecodeRate | undefined };
        if (options.concurrent) {
          const [ours, oursAllFields, javaRate] = await Promise.all([
            measureOurs(false),
            measureOurs(true),
            measureJava(),
          ]);
          rates = { ours, oursAllFields, java: javaRate };
        } else {
          const javaFirst = (round + index) % 2 === 1;
          const javaBefore = javaFirst ? await measureJava() : undefined;
          const ours = await measureOurs(false);
          const oursAllFields = await measureOurs(true);
          rates = { ours, oursAllFields, java: javaFirst ? javaBefore : await measureJava() };
        }
        result.ours.push(rates.ours);
        result.oursAllFields.push(rates.oursAllFields);
        if (rates.java !== undefined) result.java.push(rates.java);
        const ours = result.ours.at(-1)?.messagesPerSecond ?? Number.NaN;
        const theirs = result.java.at(-1)?.messagesPerSecond;
        options.log(
          `decode round ${round + 1} ${result.decodeCase.name}: ours ${Math.round(ours).toLocaleString('en-US')} msgs/s${theirs === undefined ? '' : `, Java ${Math.round(theirs).toLocaleString('en-US')} msgs/s, ours/Java ${(ours / theirs).toFixed(2)}`}`,
        );
      }
    }
    return results;
  } finally {
    await Promise.all(files.map((file) => rm(file, { force: true })));
  }
}

/**
 * The rate from the Java peer's `decode` result line.
 *
 * @example
 * ```ts
 * javaDecodeRate({ iterations: 10, messages: 320, bytes: 338000, elapsedNs: 1e6, cpuNs: 1e6 });
 * ```
 */
export function javaDecodeRate(result: Record<string, unknown>): DecodeRate {
  // decode-child.ts (our side in its own process) prints the same shape.
  const { messages, bytes, elapsedNs, cpuNs } = result;
  if (
    typeof messages !== 'number' ||
    typeof bytes !== 'number' ||
    typeof elapsedNs !== 'number' ||
    typeof cpuNs !== 'number'
  ) {
    throw new Error(`unreadable Java decode result: ${JSON.stringify(result)}`);
  }
  const seconds = elapsedNs / 1e9;
  return {
    messagesPerSecond: messages / seconds,
    megabytesPerSecond: bytes / 1024 / 1024 / seconds,
    messagesPerCpuSecond: messages / (cpuNs / 1e9),
  };
}
