/**
 * What `messageTrace` adds to consuming a message, without a broker: batches of 32 messages (UNIQ_KEY,
 * KEYS, MSG_REGION as a Java producer stores them) handed to a listener that answers SUCCESS at once,
 * bare (`bare`) or wrapped by the TracingMessageListener whose writer encodes, queues, packs and "sends"
 * the records through a sender that resolves at once (`traced`), one event-loop turn per batch. The difference is the poller's own
 * work per traced message (two records); the trace message's network send is not in it (it runs in the
 * background, one at a time per mapping).
 *
 * Usage: npm run bench:message-trace [-- --rounds N] [--ms N]
 *   Each round runs both modes for `--ms` (default 1000) in turn; prints ns per message per mode
 *   (minimum and median over the rounds, default 7), the increment, and the records the writer sent.
 */
import type { ConsumeContext, ConsumedMessage, MessageListener } from '../src/consumer/message-listener.js';
import { MessageTraceWriter } from '../src/consumer/trace/message-trace-writer.js';
import { TracingMessageListener } from '../src/consumer/trace/tracing-listener.js';
import type { MessageExt } from '../src/protocol/message.js';
import { createUniqueId } from '../src/protocol/message-id.js';
import { percentile } from './percentile.js';

const BATCH = 32;
const queue = { topic: 'bench-trace', brokerName: 'broker-a', queueId: 0 };

function message(i: number): ConsumedMessage {
  const id = createUniqueId();
  const properties = { UNIQ_KEY: id, KEYS: `order-${i}`, MSG_REGION: 'DefaultRegion', TAGS: 'bench' };
  const ext = {
    topic: queue.topic,
    queueId: 0,
    queueOffset: i,
    reconsumeTimes: 0,
    properties,
    msgId: id,
    keys: [`order-${i}`],
    body: Buffer.alloc(1024),
  } as unknown as MessageExt;
  return { message: ext, queue, topic: queue.topic };
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

/** ns per message of `listener` over `ms` of batches. */
async function run(
  listener: MessageListener,
  batch: readonly ConsumedMessage[],
  ms: number,
): Promise<number> {
  const context: ConsumeContext = {
    consumerGroup: 'bench',
    orderly: false,
    signal: new AbortController().signal,
  };
  const end = performance.now() + ms;
  let messages = 0;
  const started = performance.now();
  while (performance.now() < end) {
    await listener.consume(batch, context);
    messages += batch.length;
    // One event-loop turn per batch, as a batch's invoke takes: the writer's timers and sends run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return ((performance.now() - started) * 1e6) / messages;
}

async function main(): Promise<void> {
  const { rounds, ms } = parseArgs(process.argv.slice(2));
  const batch = Array.from({ length: BATCH }, (_, i) => message(i));
  const bare: MessageListener = { consume: async () => ({ status: 'SUCCESS' }) };
  let sentRecords = 0;
  const writer = new MessageTraceWriter({
    topic: 'RMQ_SYS_TRACE_TOPIC',
    sender: {
      hasRoute: async () => true,
      send: async (_topic, traceMessage) => {
        sentRecords += traceMessage.records;
      },
    },
  });
  const traced = new TracingMessageListener(bare, writer);
  const samples = { bare: [] as number[], traced: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    samples.bare.push(await run(bare, batch, ms));
    samples.traced.push(await run(traced, batch, ms));
  }
  await writer.close(5_000);
  const line = (name: 'bare' | 'traced') =>
    `${name}: min ${Math.min(...samples[name]).toFixed(0)} ns/message, median ${percentile(samples[name], 50).toFixed(0)}`;
  const added = percentile(samples.traced, 50) - percentile(samples.bare, 50);
  const { dropped } = writer.stats();
  process.stdout.write(
    `${line('bare')}\n${line('traced')}\nmessageTrace adds ${added.toFixed(0)} ns/message (median); ${sentRecords} records sent, dropped ${JSON.stringify(dropped)}\n`,
  );
}

await main();
