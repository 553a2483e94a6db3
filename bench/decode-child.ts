/**
 * Our side of the decode micro-benchmark (decode-bench.ts) as a child process, as the Java side is: a
 * fresh process per measurement, so no other work of the harness (its own client, the other variant's
 * reads) shapes the JIT's view of the decoder. Decodes one PULL body in a loop for the warm-up, then for
 * the measured time, and prints one `BENCH_RESULT {json}` line in the Java side's shape: messages, bytes,
 * elapsedNs, cpuNs.
 *
 * Usage: node decode-child.js <body file> <warmupMs> <measureMs> <idAndBody|allFields>
 */
import { readFileSync } from 'node:fs';
import { decodeMessages } from '../src/protocol/message-decoder.js';
import { RESULT_PREFIX } from './child-run.js';

/**
 * Decodes `body` reading what every consumer reads of each message, its msgId and body (as the Java
 * side's loop does); returns the messages with a body.
 */
function decodeReadingIdAndBody(body: Buffer): number {
  const { messages, error } = decodeMessages(body);
  if (error !== undefined) throw new Error('the pulled body did not decode', { cause: error });
  let touched = 0;
  for (const message of messages) touched += message.body.length > 0 && message.msgId.length > 0 ? 1 : 0;
  return touched;
}

/** Decodes `body` reading every field of every message (what building a Lambda event reads). */
function decodeReadingEveryField(body: Buffer): number {
  const { messages, error } = decodeMessages(body);
  if (error !== undefined) throw new Error('the pulled body did not decode', { cause: error });
  let touched = 0;
  for (const m of messages) {
    const fields =
      m.msgId.length +
      m.offsetMsgId.length +
      (m.tags?.length ?? 0) +
      m.keys.length +
      Object.keys(m.properties).length +
      m.bornHost.length +
      m.storeHost.length;
    touched += m.body.length > 0 && fields > 0 ? 1 : 0;
  }
  return touched;
}

function main(): void {
  const [file, warmup, measure, variant] = process.argv.slice(2);
  if (file === undefined || variant === undefined) {
    throw new Error('usage: decode-child.js <body file> <warmupMs> <measureMs> <idAndBody|allFields>');
  }
  const body = readFileSync(file);
  const decodeOnce = variant === 'allFields' ? decodeReadingEveryField : decodeReadingIdAndBody;
  let sink = 0;
  const warmupEnd = performance.now() + Number(warmup);
  while (performance.now() < warmupEnd) sink += decodeOnce(body);
  let iterations = 0;
  let messages = 0;
  const cpuAtStart = process.cpuUsage();
  const start = performance.now();
  const end = start + Number(measure);
  let now: number;
  do {
    messages += decodeOnce(body);
    iterations++;
    now = performance.now();
  } while (now < end);
  const cpu = process.cpuUsage(cpuAtStart);
  if (sink < 0) throw new Error('unreachable');
  const result = {
    messages,
    bytes: iterations * body.length,
    elapsedNs: Math.round((now - start) * 1e6),
    cpuNs: (cpu.user + cpu.system) * 1000,
  };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

main();
