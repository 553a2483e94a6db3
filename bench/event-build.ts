/**
 * The function path's own work per message, without a broker: decode synthetic PULL bodies (32 stored
 * messages of 1 KiB each, with the six properties a broker-stored message of the drain carries), then
 * build the Lambda event's records (`event`), serialize the event as an HTTP invoker sends it (`payload`:
 * the JSON bytes, base64 bodies), or run the whole `FunctionMessageListener.consume` with the
 * LocalInvoker and the drain's no-op handler (`listener`), against decoding alone (`decode`, the peer).
 * The drain race (`npm run bench`) measures the same path end to end; this one isolates what the event
 * costs, steadily enough to compare two commits on a machine whose drains swing.
 *
 * Usage: npm run bench:event-build [-- --rounds N] [--ms N]
 *   Each round runs every mode for `--ms` (default 1000) in turn; prints ns per message per mode
 *   (minimum and median over the rounds, default 7) and each mode's increment over `decode`.
 */

import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConsumedMessage } from '../src/consumer/message-listener.js';
import { serializeLayouts, unmeasuredRecord } from '../src/invoke/event-builder.js';
import { FunctionMessageListener } from '../src/invoke/function-listener.js';
import { LocalInvoker } from '../src/invoke/local-invoker.js';
import { parsedEvent } from '../src/invoke/parsed-event.js';
import { decodeMessages } from '../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../src/protocol/message-encoder.js';
import { benchMessageBody } from './message-body.js';
import { percentile } from './percentile.js';

const MESSAGES_PER_PULL = 32;
const PULLS = 4;
const BATCH = 100;
const MODES = ['decode', 'event', 'payload', 'listener'] as const;
type Mode = (typeof MODES)[number];

const queue = { topic: 'bench-event-build', brokerName: 'broker-a', queueId: 0 };

/** PULL bodies as a broker sends them for the drain's messages (1 KiB JSON bodies, its properties). */
function pullBodies(): Buffer[] {
  return Array.from({ length: PULLS }, (_, pull) =>
    encodeStoredMessages(
      Array.from({ length: MESSAGES_PER_PULL }, (_, i) => ({
        topic: queue.topic,
        queueId: pull,
        queueOffset: 1000 + i,
        physicalOffset: 123_456_789 + (pull * MESSAGES_PER_PULL + i) * 1200,
        body: benchMessageBody(pull, i, 1024),
        properties: {
          TAGS: 'bench',
          WAIT: 'true',
          UNIQ_KEY: randomBytes(16).toString('hex').toUpperCase(),
          MSG_REGION: 'DefaultRegion',
          CLUSTER: 'DefaultCluster',
          TRACE_ON: 'true',
        },
        bornTimestamp: 1_700_000_000_000,
        bornHost: '127.0.0.1:40000',
        storeTimestamp: 1_700_000_000_001,
        storeHost: '127.0.0.1:10911',
      })),
    ),
  );
}

function parseArgs(argv: readonly string[]): { rounds: number; ms: number } {
  let rounds = 7;
  let ms = 1000;
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${argv[i]} needs a positive integer`);
    if (argv[i] === '--rounds') rounds = value;
    else if (argv[i] === '--ms') ms = value;
    else throw new Error(`unknown argument ${argv[i]} (usage: --rounds N --ms N)`);
  }
  return { rounds, ms };
}

async function main(): Promise<void> {
  const { rounds, ms } = parseArgs(process.argv.slice(2));
  const bodies = pullBodies();
  const invoker = new LocalInvoker({ baseDir: dirname(fileURLToPath(import.meta.url)) });
  const listener = new FunctionMessageListener({
    invoker,
    functionRef: `local:./noop-handler${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}#handler`,
    consumerGroup: 'bench-group',
  });
  const context = { consumerGroup: 'bench-group', orderly: false, signal: new AbortController().signal };
  let sink = 0;

  const batch = (): ConsumedMessage[] => {
    const out: ConsumedMessage[] = [];
    for (const body of bodies) {
      const { messages, error } = decodeMessages(body);
      if (error !== undefined) throw new Error('a synthetic PULL body did not decode', { cause: error });
      for (const message of messages) out.push({ message, queue, topic: queue.topic });
    }
    return out.slice(0, BATCH);
  };
  const once = async (mode: Mode): Promise<void> => {
    const messages = batch();
    if (mode === 'decode') {
      sink += messages.length;
    } else if (mode === 'event') {
      const layouts = messages.map(unmeasuredRecord);
      for (const layout of layouts) sink += layout.boundBytes;
      sink += parsedEvent('bench-group', layouts).Records.length;
    } else if (mode === 'payload') {
      // What an HTTP invoker is handed instead: the event as JSON bytes (src/invoke/event-builder.ts).
      sink += serializeLayouts('bench-group', messages.map(unmeasuredRecord)).length;
    } else {
      const result = await listener.consume(messages, context);
      if (result.status !== 'SUCCESS') throw new Error(`the no-op handler's batch ended ${result.status}`);
      sink += 1;
    }
  };
  const measure = async (mode: Mode, durationMs: number): Promise<number> => {
    let batches = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(durationMs) * 1_000_000n;
    let now = start;
    while (now < end) {
      await once(mode);
      batches++;
      now = process.hrtime.bigint();
    }
    return Number(now - start) / (batches * BATCH);
  };

  for (const mode of MODES) await measure(mode, ms); // warm-up
  const samples = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) samples.get(mode)?.push(await measure(mode, ms));
  }
  await invoker.close();
  if (sink === 0) throw new Error('nothing was measured');

  const decodeMin = Math.min(...(samples.get('decode') ?? []));
  console.log(
    `event build micro-benchmark: ${rounds} rounds of ${ms} ms per mode, ${BATCH} messages per batch`,
  );
  console.log('| mode | ns/msg min | ns/msg median | min over decode |');
  console.log('|---|---:|---:|---:|');
  for (const mode of MODES) {
    const values = samples.get(mode) ?? [];
    const min = Math.min(...values);
    const median = percentile(values, 50);
    const over = mode === 'decode' ? '' : `+${Math.round(min - decodeMin)}`;
    console.log(`| ${mode} | ${Math.round(min)} | ${Math.round(median)} | ${over} |`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
