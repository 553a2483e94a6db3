/**
 * What W3C trace context and the OpenTelemetry spans cost the function path (docs/tracing.md), per
 * message, without a broker: decode synthetic PULL bodies (as bench/event-build.ts: 100 stored messages
 * of 1 KiB) and run `FunctionMessageListener.consume` with the LocalInvoker and a no-op handler, in the
 * same process and in turn:
 * - `before`: the listener of `--before REV` (default: the commit before tracing, exported from git
 *   into a temporary directory and imported from there): the path before this change;
 * - `off`: today's listener with no OpenTelemetry SDK registered (the spans' one check per batch, the
 *   records' trace contexts);
 * - `sdk`: today's listener with the 2.x SDK registered (BasicTracerProvider, SimpleSpanProcessor,
 *   in-memory exporter emptied per batch, AsyncLocalStorage context manager);
 * each on messages without trace context (`plain`) and with a traceparent and a tracestate, one trace
 * per message (`traced`); `decode` alone is the floor.
 *
 * Usage: npm run bench:trace [-- --rounds N] [--ms N] [--before REV]
 *   Each round gives every mode `--ms` (default 1000), the modes taking turns in 50 ms slices so that
 *   the machine's load swings fall on all alike. Prints ns per message (minimum and median over the
 *   rounds, default 7) and
 *   each mode's ratio to `before` on the same messages (minimums, and increments over `decode`).
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConsumedMessage, ConsumeResult } from '../src/consumer/message-listener.js';
import type { FunctionMessageListener } from '../src/invoke/function-listener.js';
import type { LocalInvoker } from '../src/invoke/local-invoker.js';
import type { decodeMessages } from '../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../src/protocol/message-encoder.js';
import { registerTestSdk, type TestSdk } from '../test/support/otel-sdk.js';
import { benchMessageBody } from './message-body.js';
import { percentile } from './percentile.js';

/** The commit before tracing: the path this change is measured against. */
const DEFAULT_BEFORE = '48a7fe7';
/** The modes take turns within a round in slices of this many milliseconds. */
const SLICE_MS = 50;
const MESSAGES_PER_PULL = 25;
const PULLS = 4;
const BATCH = MESSAGES_PER_PULL * PULLS;
const MODES = ['decode', 'before/plain', 'off/plain', 'before/traced', 'off/traced', 'sdk/traced'] as const;
type Mode = (typeof MODES)[number];
type Listener = {
  consume(messages: readonly ConsumedMessage[], context: unknown): Promise<ConsumeResult>;
};

const REPO = path.resolve(dirname(fileURLToPath(import.meta.url)), '..');
const queue = { topic: 'bench-trace', brokerName: 'broker-a', queueId: 0 };

/** PULL bodies of 1 KiB JSON messages with a broker's properties, and a trace context when `traced`. */
function pullBodies(traced: boolean): Buffer[] {
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
          ...(traced
            ? {
                traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
                tracestate: 'vendor=t61rcWkgMzE',
              }
            : {}),
        },
        bornTimestamp: 1_700_000_000_000,
        bornHost: '127.0.0.1:40000',
        storeTimestamp: 1_700_000_000_001,
        storeHost: '127.0.0.1:10911',
      })),
    ),
  );
}

function parseArgs(argv: readonly string[]): { rounds: number; ms: number; before: string } {
  let rounds = 7;
  let ms = 1000;
  let before = DEFAULT_BEFORE;
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const text = argv[i + 1] ?? '';
    if (flag === '--before') {
      if (!/^[\w./-]{1,100}$/.test(text)) throw new Error('--before needs a git revision');
      before = text;
      continue;
    }
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} needs a positive integer`);
    if (flag === '--rounds') rounds = value;
    else if (flag === '--ms') ms = value;
    else throw new Error(`unknown argument ${flag} (usage: --rounds N --ms N --before REV)`);
  }
  return { rounds, ms, before };
}

/** The sources of `rev` in a temporary directory that resolves packages from this checkout's. */
function exportRevision(rev: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-trace-before-'));
  const archive = execFileSync('git', ['archive', '--format=tar', rev, 'src', 'bench', 'package.json'], {
    cwd: REPO,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** What a tree of sources gives a mode: its listener, and its decoder. */
interface Tree {
  readonly listener: Listener;
  /**
   * The tree's own decoder: the listener reads a decoded message's properties fast only from a message
   * of its own tree's class (`instanceof`), so each tree consumes messages it decoded.
   */
  readonly decode: typeof decodeMessages;
  close(): Promise<void>;
}

/** The listener, invoker and decoder of the sources under `root`. */
async function listenerOf(root: string): Promise<Tree> {
  const decoderModule = (await import(
    pathToFileURL(path.join(root, 'src/protocol/message-decoder.ts')).href
  )) as { decodeMessages: typeof decodeMessages };
  const listenerModule = (await import(
    pathToFileURL(path.join(root, 'src/invoke/function-listener.ts')).href
  )) as { FunctionMessageListener: typeof FunctionMessageListener };
  const invokerModule = (await import(
    pathToFileURL(path.join(root, 'src/invoke/local-invoker.ts')).href
  )) as {
    LocalInvoker: typeof LocalInvoker;
  };
  const invoker = new invokerModule.LocalInvoker({ baseDir: path.join(root, 'bench') });
  const listener = new listenerModule.FunctionMessageListener({
    invoker,
    functionRef: 'local:./noop-handler.ts#handler',
    consumerGroup: 'bench-group',
  });
  return { listener, decode: decoderModule.decodeMessages, close: () => invoker.close() };
}

async function main(): Promise<void> {
  const { rounds, ms, before } = parseArgs(process.argv.slice(2));
  const beforeRoot = exportRevision(before);
  try {
    const old = await listenerOf(beforeRoot);
    const current = await listenerOf(REPO);
    const bodies = { plain: pullBodies(false), traced: pullBodies(true) };
    const context = { consumerGroup: 'bench-group', orderly: false, signal: new AbortController().signal };
    let sdk: TestSdk | undefined;
    let sink = 0;

    const batch = (kind: 'plain' | 'traced', decode: typeof decodeMessages): ConsumedMessage[] => {
      const out: ConsumedMessage[] = [];
      for (const body of bodies[kind]) {
        const { messages, error } = decode(body);
        if (error !== undefined) throw new Error('a synthetic PULL body did not decode', { cause: error });
        for (const message of messages) out.push({ message, queue, topic: queue.topic });
      }
      return out;
    };
    const once = async (mode: Mode): Promise<void> => {
      const [which, kind = 'plain'] = mode.split('/') as [string, 'plain' | 'traced' | undefined];
      const tree = which === 'before' ? old : current;
      const messages = batch(kind, tree.decode);
      if (which === 'decode') {
        sink += messages.length;
        return;
      }
      const result = await tree.listener.consume(messages, context);
      if (result.status !== 'SUCCESS') throw new Error(`the no-op handler's batch ended ${result.status}`);
      if (sdk !== undefined) {
        sink += sdk.exporter.getFinishedSpans().length;
        sdk.exporter.reset();
      } else {
        sink += 1;
      }
    };
    /** Runs `mode` for about `durationMs`: the time taken and the batches run. */
    const measure = async (mode: Mode, durationMs: number): Promise<[number, number]> => {
      if (mode.startsWith('sdk/')) sdk = registerTestSdk();
      try {
        let batches = 0;
        const start = process.hrtime.bigint();
        const end = start + BigInt(durationMs) * 1_000_000n;
        let now = start;
        while (now < end) {
          await once(mode);
          batches++;
          now = process.hrtime.bigint();
        }
        return [Number(now - start), batches];
      } finally {
        await sdk?.stop();
        sdk = undefined;
      }
    };

    for (const mode of MODES) await measure(mode, ms); // warm-up
    // Each round interleaves the modes in slices of SLICE_MS, so that a swing of the machine's load
    // (other processes) falls on every mode alike rather than on the one running then.
    const samples = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
    for (let round = 0; round < rounds; round++) {
      const totals = new Map<Mode, [number, number]>(MODES.map((mode) => [mode, [0, 0]]));
      for (let slice = 0; slice < Math.max(1, Math.round(ms / SLICE_MS)); slice++) {
        for (const mode of MODES) {
          const [ns, batches] = await measure(mode, Math.min(ms, SLICE_MS));
          const total = totals.get(mode) as [number, number];
          total[0] += ns;
          total[1] += batches;
        }
      }
      for (const mode of MODES) {
        const [ns, batches] = totals.get(mode) as [number, number];
        samples.get(mode)?.push(ns / (batches * BATCH));
      }
    }
    await old.close();
    await current.close();
    if (sink === 0) throw new Error('nothing was measured');

    const min = (mode: Mode): number => Math.min(...(samples.get(mode) ?? []));
    const decode = min('decode');
    console.log(
      `trace overhead micro-benchmark: ${rounds} rounds of ${ms} ms per mode, ${BATCH} messages of 1 KiB per batch, before = ${before}`,
    );
    console.log('| mode | ns/msg min | ns/msg median | ratio to before (min) | ratio over decode |');
    console.log('|---|---:|---:|---:|---:|');
    for (const mode of MODES) {
      const values = samples.get(mode) ?? [];
      const kind = mode.split('/')[1];
      const base = kind === undefined ? undefined : min(`before/${kind}` as Mode);
      const ratio = base === undefined ? '' : (min(mode) / base).toFixed(3);
      const overDecode = base === undefined ? '' : ((min(mode) - decode) / (base - decode)).toFixed(3);
      console.log(
        `| ${mode} | ${Math.round(min(mode))} | ${Math.round(percentile(values, 50))} | ${ratio} | ${overDecode} |`,
      );
    }
  } finally {
    rmSync(beforeRoot, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
