/**
 * What the bounds on hostile input (issue 29) cost and save, without a broker, in two parts:
 *
 * - Headers: `decodeFrame` (src/protocol/remoting-command.ts) on a normal PULL response header (the
 *   peer), on headers at the caps of src/protocol/header-limits.ts (4 MiB, 1,024 fields) in both
 *   serializations, on 4 MiB of whitespace (every byte a turn of the field-counting scan), and on the
 *   probe's header of 700,000 fields (9.7 MB), now refused, as is its shape cut to 4 MiB; beside them,
 *   `JSON.parse` of the probe's header: the parse the caps spare (the bulk of what one such frame cost
 *   before them). For the JSON headers accepted, the shape check alone too: what the field cap costs.
 * - PULL bodies: `decodeMessages` (src/protocol/message-decoder.ts) at its default limits (6 MiB per
 *   body, 32 MiB per call) on 32 uncompressed 1 KiB records (the peer), on 32 records of 4 MiB each
 *   compressed with zlib (legitimate: the call stops at the 32 MiB budget and leaves the rest for the
 *   next pull), on 32 zlib bombs of 60 MiB each (each refused at 6 MiB) and on a 16 MiB frame of them;
 *   with `--unbounded`, the 32 bombs once more with the limits of before (64 MiB per body, no budget per
 *   call): ~2 GB, so off by default.
 *
 * Every case is warmed up, then timed over `--runs` runs (a run repeats a fast decode until it takes
 * ~10 ms and divides). Each body is measured in a child process of its own (this script with
 * `--body-case`), whose first decode is cold: in a fresh process, memory an earlier decode freed cannot
 * hide what this one needs. Every body run also measures memory: `global.gc()` first when node runs
 * with `--expose-gc` (the npm script does), then `process.memoryUsage()` before and after the run (the
 * result still held), and the largest RSS a worker thread saw meanwhile (bench/rss-peak-sampler.ts).
 *
 * Usage: npm run bench:hostile-input [-- --runs N] [--unbounded]
 *   Prints one table per part: median and min-max per decode, and each case's ratio to its part's peer.
 */

import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CompressionType, compressZlib } from '../src/protocol/compression.js';
import { checkJsonHeaderShape, MAX_HEADER_BYTES, MAX_HEADER_FIELDS } from '../src/protocol/header-limits.js';
import { type DecodeOptions, type DecodeResult, decodeMessages } from '../src/protocol/message-decoder.js';
import { encodeStoredMessages, type StoredMessageInput } from '../src/protocol/message-encoder.js';
import { MQVersionCode } from '../src/protocol/mq-version.js';
import {
  decodeFrame,
  encodeFrame,
  FLAG_RESPONSE,
  MAX_FRAME_LENGTH,
  type RemotingCommand,
  SerializeType,
} from '../src/protocol/remoting-command.js';
import { RESULT_PREFIX, runChild } from './child-run.js';
import { benchMessageBody } from './message-body.js';
import { percentile } from './percentile.js';
import { RssPeakSampler } from './rss-peak-sampler.js';

const MIB = 1024 * 1024;
/** A run of a fast decode repeats it until the run takes this long, so the clock's resolution does not show. */
const RUN_TARGET_NS = 10_000_000;
/** Warm-up per case: at least one decode, and decodes for at least this long. */
const WARMUP_NS = 200_000_000;
const RECORDS_PER_BODY = 32;
/** A body child takes seconds (the unbounded one ~10 s); past this it is stuck. */
const CHILD_TIMEOUT_MS = 300_000;
/** What one bomb inflates to: under the body cap of before, ten times today's. */
const BOMB_BYTES = 60 * MIB;
/** The body cap before issue 29 (compression.ts then), for `--unbounded`. */
const OLD_MAX_BODY_BYTES = 64 * MIB;
/** Members of a JSON header besides its extFields entries: code, language, version, opaque, flag, extFields. */
const JSON_OWN_FIELDS = 6;
/** The probe's header (issue 29): `"k0":"v"` ... `"k699999":"v"`, 9.7 MB. */
const PROBE_FIELDS = 700_000;
/** As many of the probe's fields as fit the byte cap (3.8 MB). */
const PROBE_AT_BYTE_CAP_FIELDS = 280_000;

type Serialization = (typeof SerializeType)[keyof typeof SerializeType];

interface Options {
  runs: number;
  unbounded: boolean;
  /** Set in a child: measure this PULL body and print the result. */
  bodyCase?: BodyCaseId;
}

/** What one decode of a case is expected to do; the bench stops when a case does otherwise. */
type Expected = { accepted: true; extFields: number } | { accepted: false; refusal: RegExp };

interface HeaderCase {
  name: string;
  frame: Buffer;
  headerBytes: number;
  fields: number;
  expected: Expected;
  /** The decode timed: `decodeFrame` unless said otherwise. */
  decode?: (frame: Buffer) => unknown;
}

/** The PULL bodies measured, each in a process of its own (the `--body-case` child). */
const BODY_CASES = ['peer', 'legit', 'bombs', 'bomb-frame', 'bombs-unbounded'] as const;
type BodyCaseId = (typeof BODY_CASES)[number];

interface BodyCase {
  name: string;
  body: Buffer;
  records: number;
  options: DecodeOptions;
  /** Counts the inflated bodies of its messages (all its records are compressed). */
  compressed: boolean;
  /** Measured once, without warm-up (it allocates gigabytes). */
  once: boolean;
}

/** What a `--body-case` child reports. */
interface BodyMeasurement {
  /** ns per decode, one per run. */
  samples: number[];
  name: string;
  wireBytes: number;
  outcome: string;
  inflatedBytes: number;
  /** The largest increases seen over the runs (the first, cold one in a fresh process included), in bytes. */
  arrayBuffersIncrease: number;
  rssIncrease: number;
}

let sink = 0;

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { runs: 7, unbounded: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--unbounded') {
      options.unbounded = true;
    } else if (arg === '--runs') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1) throw new Error('--runs needs a positive integer');
      options.runs = value;
    } else if (arg === '--body-case') {
      const id = argv[++i];
      const known = BODY_CASES.find((candidate) => candidate === id);
      if (known === undefined) throw new Error(`--body-case needs one of ${BODY_CASES.join(', ')}`);
      options.bodyCase = known;
    } else {
      throw new Error(`unknown argument ${arg} (usage: --runs N --unbounded)`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------------
// Headers

/** A response as a 5.3.3 broker sends it, in `serialization`; the frame without its length prefix. */
function responseFrame(extFields: Record<string, string>, serialization: Serialization): Buffer {
  const command: RemotingCommand = {
    code: 0,
    language: 'JAVA',
    version: MQVersionCode.V5_3_3,
    opaque: 123_456,
    flag: FLAG_RESPONSE,
    extFields,
    serializeType: serialization,
  };
  return encodeFrame(command).subarray(4);
}

/** A frame of `header` in `serialization`, without its length prefix: for headers encodeFrame cannot write. */
function rawFrame(serialization: Serialization, header: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(4 + header.length);
  frame.writeUInt32BE(((serialization << 24) | header.length) >>> 0, 0);
  header.copy(frame, 4);
  return frame;
}

/** A PULL_MESSAGE response header (FOUND) as brokers send it. */
function pullResponseFrame(serialization: Serialization): Buffer {
  return responseFrame(
    {
      suggestWhichBrokerId: '0',
      nextBeginOffset: '123456832',
      minOffset: '0',
      maxOffset: '123460000',
      topicSysFlag: '0',
      groupSysFlag: '0',
      forbiddenType: '0',
    },
    serialization,
  );
}

/** A header of exactly `bytes` bytes holding `fields` extFields, their values padded with `A`s. */
function paddedFrame(serialization: Serialization, bytes: number, fields: number): Buffer {
  const keys = Array.from({ length: fields }, (_, i) => `k${i}`);
  const build = (valueBytes: (index: number) => number): Buffer =>
    responseFrame(Object.fromEntries(keys.map((key, i) => [key, 'A'.repeat(valueBytes(i))])), serialization);
  const free = bytes - (build(() => 1).length - 4) + fields;
  const each = Math.floor(free / fields);
  if (each < 1) throw new Error(`${fields} fields do not fit a header of ${bytes} bytes`);
  const frame = build((i) => (i === fields - 1 ? free - each * (fields - 1) : each));
  if (frame.length - 4 !== bytes)
    throw new Error(`built a header of ${frame.length - 4} bytes, not ${bytes}`);
  return frame;
}

/** A JSON header of exactly `bytes` bytes: one extFields entry, then whitespace up to the closing brace. */
function whitespaceFrame(bytes: number): Buffer {
  const text = responseFrame({ a: 'b' }, SerializeType.JSON).toString('utf8', 4);
  const header = Buffer.alloc(bytes, 0x20);
  header.write(text.slice(0, -1), 0);
  header.write('}', bytes - 1);
  return rawFrame(SerializeType.JSON, header);
}

/** The probe's shape: `fields` extFields `"kN":"v"`. */
function manyFieldsFrame(fields: number): Buffer {
  const extFields: Record<string, string> = {};
  for (let i = 0; i < fields; i++) extFields[`k${i}`] = 'v';
  return responseFrame(extFields, SerializeType.JSON);
}

const BYTE_CAP_REFUSAL = new RegExp(`exceeds the cap of ${MAX_HEADER_BYTES} bytes`);
const FIELD_CAP_REFUSAL = new RegExp(`has more than ${MAX_HEADER_FIELDS} fields`);

function headerCases(): HeaderCase[] {
  const jsonAtCaps = paddedFrame(SerializeType.JSON, MAX_HEADER_BYTES, MAX_HEADER_FIELDS - JSON_OWN_FIELDS);
  // At the field cap, not under it: one field fewer allowed refuses it.
  let exactlyAtCap = false;
  try {
    checkJsonHeaderShape(jsonAtCaps.subarray(4), MAX_HEADER_FIELDS - 1);
  } catch {
    exactlyAtCap = true;
  }
  if (!exactlyAtCap) throw new Error('the JSON header at the caps is under the field cap');
  const probe = manyFieldsFrame(PROBE_FIELDS);
  // The probe's shape cut to fit the byte cap: refused by the field count, after 1,024 of its fields.
  const probeAtByteCap = manyFieldsFrame(PROBE_AT_BYTE_CAP_FIELDS);
  const sized = (frame: Buffer): Pick<HeaderCase, 'frame' | 'headerBytes'> => ({
    frame,
    headerBytes: frame.length - 4,
  });
  const accepted = (extFields: number): Expected => ({ accepted: true, extFields });
  return [
    {
      name: 'normal PULL response header, JSON (the peer)',
      ...sized(pullResponseFrame(SerializeType.JSON)),
      fields: JSON_OWN_FIELDS + 7,
      expected: accepted(7),
    },
    {
      name: 'normal PULL response header, ROCKETMQ',
      ...sized(pullResponseFrame(SerializeType.ROCKETMQ)),
      fields: 7,
      expected: accepted(7),
    },
    {
      name: 'JSON at both caps (values padded)',
      ...sized(jsonAtCaps),
      fields: MAX_HEADER_FIELDS,
      expected: accepted(MAX_HEADER_FIELDS - JSON_OWN_FIELDS),
    },
    {
      name: 'JSON at the byte cap, one value',
      ...sized(paddedFrame(SerializeType.JSON, MAX_HEADER_BYTES, 1)),
      fields: JSON_OWN_FIELDS + 1,
      expected: accepted(1),
    },
    {
      name: 'JSON at the byte cap, whitespace (the scan visits every byte)',
      ...sized(whitespaceFrame(MAX_HEADER_BYTES)),
      fields: JSON_OWN_FIELDS + 1,
      expected: accepted(1),
    },
    {
      name: 'ROCKETMQ at both caps (values padded)',
      ...sized(paddedFrame(SerializeType.ROCKETMQ, MAX_HEADER_BYTES, MAX_HEADER_FIELDS)),
      fields: MAX_HEADER_FIELDS,
      expected: accepted(MAX_HEADER_FIELDS),
    },
    {
      name: 'ROCKETMQ at the byte cap, one value',
      ...sized(paddedFrame(SerializeType.ROCKETMQ, MAX_HEADER_BYTES, 1)),
      fields: 1,
      expected: accepted(1),
    },
    {
      name: "the probe's header: refused (byte cap)",
      ...sized(probe),
      fields: JSON_OWN_FIELDS + PROBE_FIELDS,
      expected: { accepted: false, refusal: BYTE_CAP_REFUSAL },
    },
    {
      name: "the probe's shape within the byte cap: refused (field cap)",
      ...sized(probeAtByteCap),
      fields: JSON_OWN_FIELDS + PROBE_AT_BYTE_CAP_FIELDS,
      expected: { accepted: false, refusal: FIELD_CAP_REFUSAL },
    },
    {
      name: "the probe's header through JSON.parse, no caps (what they spare)",
      ...sized(probe),
      fields: JSON_OWN_FIELDS + PROBE_FIELDS,
      expected: accepted(PROBE_FIELDS),
      decode: (frame) => JSON.parse(frame.toString('utf8', 4)) as unknown,
    },
  ];
}

/** Decodes a header case once and throws when it does not do what the case expects. */
function checkHeaderCase(c: HeaderCase): void {
  const decode = c.decode ?? decodeFrame;
  let decoded: unknown;
  try {
    decoded = decode(c.frame);
  } catch (error) {
    if (c.expected.accepted || !(error instanceof Error) || !c.expected.refusal.test(error.message)) {
      throw new Error(`${c.name}: refused unexpectedly`, { cause: error });
    }
    return;
  }
  if (!c.expected.accepted) throw new Error(`${c.name}: accepted, though it should be refused`);
  const count = Object.keys((decoded as { extFields?: object }).extFields ?? {}).length;
  if (count !== c.expected.extFields) throw new Error(`${c.name}: ${count} extFields decoded`);
}

/** The decode timed for a header case (its outcome checked before, by {@link checkHeaderCase}). */
function headerDecode(c: HeaderCase): () => void {
  const decode = c.decode ?? decodeFrame;
  const frame = c.frame;
  if (c.expected.accepted) {
    return () => {
      sink += (decode(frame) as { opaque: number }).opaque;
    };
  }
  return () => {
    try {
      decode(frame);
    } catch {
      sink += 1;
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// PULL bodies

const STORED: Omit<StoredMessageInput, 'queueOffset' | 'physicalOffset'> = {
  topic: 'bench-hostile-input',
  bornTimestamp: 1_700_000_000_000,
  bornHost: '127.0.0.1:40000',
  storeTimestamp: 1_700_000_000_001,
  storeHost: '127.0.0.1:10911',
};

function storedBody(
  record: (index: number) => Partial<StoredMessageInput>,
  records: number = RECORDS_PER_BODY,
): Buffer {
  return encodeStoredMessages(
    Array.from({ length: records }, (_, i) => ({
      ...STORED,
      queueOffset: 1000 + i,
      physicalOffset: 123_456_789 + i * 1200,
      properties: { UNIQ_KEY: randomBytes(16).toString('hex').toUpperCase(), TAGS: 'bench' },
      ...record(i),
    })),
  );
}

/** JSON lines of 128 bytes each, `bytes` in all: an application's large, compressible body. */
function jsonLines(bytes: number): Buffer {
  const out = Buffer.alloc(bytes, 0x0a);
  for (let position = 0, i = 0; position + 128 <= bytes; position += 128, i++) {
    benchMessageBody(0, i, 127).copy(out, position);
  }
  return out;
}

function bodyCase(id: BodyCaseId): BodyCase {
  const zlib = (stored: Buffer): Partial<StoredMessageInput> => ({
    storedBody: stored,
    compression: CompressionType.ZLIB,
  });
  const records = RECORDS_PER_BODY;
  switch (id) {
    case 'peer':
      return {
        name: '32 × 1 KiB, uncompressed (the peer)',
        body: storedBody((i) => ({ body: benchMessageBody(0, i, 1024) })),
        records,
        options: {},
        compressed: false,
        once: false,
      };
    case 'legit': {
      const legit = compressZlib(jsonLines(4 * MIB));
      return {
        name: `32 × 4 MiB of zlib (${(legit.length / 1024).toFixed(0)} KiB each), legitimate`,
        body: storedBody(() => zlib(legit)),
        records,
        options: {},
        compressed: true,
        once: false,
      };
    }
    case 'bombs':
    case 'bombs-unbounded': {
      const bomb = compressZlib(Buffer.alloc(BOMB_BYTES), 9);
      const unbounded = id === 'bombs-unbounded';
      return {
        name: unbounded
          ? '32 zlib bombs of 60 MiB, limits of before (64 MiB per body, no budget)'
          : `32 zlib bombs of 60 MiB (${(bomb.length / 1024).toFixed(0)} KiB each)`,
        body: storedBody(() => zlib(bomb)),
        records,
        options: unbounded
          ? { maxBodyBytes: OLD_MAX_BODY_BYTES, maxInflatedBytes: Number.POSITIVE_INFINITY }
          : {},
        compressed: true,
        once: unbounded,
      };
    }
    case 'bomb-frame': {
      // As many bombs as a PULL response's frame holds, its header's 1 KiB aside.
      const bomb = compressZlib(Buffer.alloc(BOMB_BYTES), 9);
      const perRecord = storedBody(() => zlib(bomb), 1).length;
      const fit = Math.floor((MAX_FRAME_LENGTH - 4 - 1024) / perRecord);
      return {
        name: `a 16 MiB frame of the same bombs (${fit})`,
        body: storedBody(() => zlib(bomb), fit),
        records: fit,
        options: {},
        compressed: true,
        once: false,
      };
    }
  }
}

function decodeBody(c: BodyCase): DecodeResult {
  const result = decodeMessages(c.body, c.options);
  if (result.error !== undefined)
    throw new Error(`${c.name}: the body did not decode`, { cause: result.error });
  sink += result.messages.length + (result.tooLarge?.length ?? 0);
  return result;
}

/** Bytes of the inflated bodies the result holds. */
function inflatedBytes(c: BodyCase, result: DecodeResult): number {
  return c.compressed ? result.messages.reduce((sum, message) => sum + message.body.length, 0) : 0;
}

function outcome(c: BodyCase, result: DecodeResult): string {
  const parts = [`${result.messages.length} decoded`];
  if (result.tooLarge !== undefined) parts.push(`${result.tooLarge.length} too large`);
  if (result.deferred !== undefined) {
    const read = result.messages.length + (result.tooLarge?.length ?? 0);
    parts.push(`${c.records - read} deferred to the next pull`);
  }
  return parts.join(', ');
}

// ---------------------------------------------------------------------------------------------------
// Measuring

function collectGarbage(): void {
  globalThis.gc?.();
}

function elapsedNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}

/** Runs `once` for the warm-up and returns how many calls make a run of ~{@link RUN_TARGET_NS}. */
function warmUp(once: () => void): number {
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (calls === 0 || elapsed < WARMUP_NS) {
    once();
    calls++;
    elapsed = elapsedNs(start);
  }
  return Math.max(1, Math.ceil(RUN_TARGET_NS / (elapsed / calls)));
}

/** Something timed in rounds, and its ns per call, one per round. */
interface Timed {
  readonly once: () => void;
  repeat: number;
  readonly samples: number[];
}

function timed(once: () => void): Timed {
  return { once, repeat: 1, samples: [] };
}

/**
 * Warms every item up in turn, then times one run of each per round, `runs` rounds: a load that comes
 * and goes on a shared machine falls on every item alike, so their ratios hold better than their times.
 */
function measureInRounds(items: readonly Timed[], runs: number): void {
  for (const item of items) item.repeat = warmUp(item.once);
  for (let round = 0; round < runs; round++) {
    for (const item of items) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < item.repeat; i++) item.once();
      item.samples.push(elapsedNs(start) / item.repeat);
    }
  }
}

/**
 * The shape check alone (header-limits.ts), for a JSON header `decodeFrame` accepts: what the field cap
 * costs every JSON frame. The byte cap is one comparison, and the binary decoder counts entries as it
 * reads them: neither has a cost of its own to measure.
 */
function shapeCheck(c: HeaderCase): Timed | undefined {
  const json = c.frame[0] === SerializeType.JSON;
  if (!json || !c.expected.accepted || c.decode !== undefined) return undefined;
  const header = c.frame.subarray(4);
  return timed(() => checkJsonHeaderShape(header));
}

/**
 * Measures a PULL body in this (fresh) process: a first, cold decode (in a fresh process the one whose
 * RSS increase is not hidden by memory an earlier decode left to the allocator), the warm-up, then the
 * timed runs; every one between `global.gc()` and memory samples. `once`: the first decode only, timed.
 */
async function measureBody(id: BodyCaseId, runs: number): Promise<BodyMeasurement> {
  const c = bodyCase(id);
  const sampler = await RssPeakSampler.start();
  let arrayBuffersIncrease = 0;
  let rssIncrease = 0;
  let result: DecodeResult | undefined;
  const run = (repeat: number): number => {
    result = undefined;
    collectGarbage();
    const before = process.memoryUsage();
    sampler.begin();
    const start = process.hrtime.bigint();
    for (let i = 0; i < repeat; i++) result = decodeBody(c);
    const elapsed = elapsedNs(start);
    const peakRss = sampler.end();
    const after = process.memoryUsage();
    arrayBuffersIncrease = Math.max(arrayBuffersIncrease, after.arrayBuffers - before.arrayBuffers);
    rssIncrease = Math.max(rssIncrease, peakRss - before.rss);
    return elapsed / repeat;
  };
  const samples: number[] = [];
  try {
    const first = run(1);
    if (c.once) {
      samples.push(first);
    } else {
      const repeat = warmUp(() => decodeBody(c));
      for (let i = 0; i < runs; i++) samples.push(run(repeat));
    }
  } finally {
    await sampler.close();
  }
  const last = result as DecodeResult | undefined;
  if (last === undefined) throw new Error(`${c.name}: nothing was measured`);
  return {
    name: c.name,
    wireBytes: c.body.length,
    outcome: outcome(c, last),
    inflatedBytes: inflatedBytes(c, last),
    samples,
    arrayBuffersIncrease,
    rssIncrease,
  };
}

/** Measures a PULL body in a child process of its own (this script with `--body-case`). */
async function measureBodyInChild(id: BodyCaseId, runs: number): Promise<BodyMeasurement> {
  const script = fileURLToPath(import.meta.url);
  const { result } = await runChild(
    process.execPath,
    [...process.execArgv, script, '--body-case', id, '--runs', String(runs)],
    { timeoutMs: CHILD_TIMEOUT_MS },
  );
  return result as unknown as BodyMeasurement;
}

// ---------------------------------------------------------------------------------------------------
// Report

function duration(ns: number): string {
  if (ns < 10_000) return `${(ns / 1000).toFixed(2)} µs`;
  if (ns < 1_000_000) return `${(ns / 1000).toFixed(0)} µs`;
  if (ns < 100_000_000) return `${(ns / 1_000_000).toFixed(2)} ms`;
  return `${Math.round(ns / 1_000_000).toLocaleString('en-US')} ms`;
}

function ratio(value: number, peer: number): string {
  const r = value / peer;
  return r < 10 ? `${r.toFixed(2)}×` : `${Math.round(r).toLocaleString('en-US')}×`;
}

/** KiB below a MiB, MiB above. */
function size(bytes: number): string {
  return bytes < MIB ? `${(bytes / 1024).toFixed(1)} KiB` : mib(bytes);
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

function timeCells(samples: readonly number[], peerMedian: number): string {
  const median = percentile(samples, 50);
  const spread =
    samples.length === 1 ? 'one run' : `${duration(Math.min(...samples))}-${duration(Math.max(...samples))}`;
  return `${duration(median)} | ${spread} | ${ratio(median, peerMedian)}`;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.bodyCase !== undefined) {
    const measurement = await measureBody(options.bodyCase, options.runs);
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(measurement)}\n`);
    return;
  }
  const begun = process.hrtime.bigint();
  const gc = typeof globalThis.gc === 'function';

  process.stderr.write('headers: building, then warm-up and rounds\n');
  const headers = headerCases().map((c) => {
    checkHeaderCase(c);
    return { c, decode: timed(headerDecode(c)), check: shapeCheck(c) };
  });
  measureInRounds(
    headers.flatMap(({ decode, check }) => (check === undefined ? [decode] : [decode, check])),
    options.runs,
  );
  const headerPeer = percentile(headers[0]?.decode.samples ?? [], 50);
  const headerTable = headers.map(({ c, decode, check }) => {
    const median = percentile(decode.samples, 50);
    const checkMedian = check === undefined ? undefined : percentile(check.samples, 50);
    const checkCell =
      checkMedian === undefined
        ? ''
        : `${duration(checkMedian)} (${Math.round((100 * checkMedian) / median)} %)`;
    const result = c.decode !== undefined ? 'parsed' : c.expected.accepted ? 'accepted' : 'refused';
    return `| ${c.name} | ${c.headerBytes.toLocaleString('en-US')} | ${c.fields.toLocaleString('en-US')} | ${result} | ${timeCells(decode.samples, headerPeer)} | ${checkCell} |`;
  });
  headers.length = 0;
  collectGarbage();

  const bodyTable: string[] = [];
  let bodyPeer = 0;
  for (const id of BODY_CASES) {
    if (id === 'bombs-unbounded' && !options.unbounded) continue;
    process.stderr.write(`body: ${id} (a child process)\n`);
    const m = await measureBodyInChild(id, options.runs);
    bodyPeer ||= percentile(m.samples, 50);
    bodyTable.push(
      `| ${m.name} | ${size(m.wireBytes)} | ${m.outcome} | ${timeCells(m.samples, bodyPeer)} | ${mib(m.inflatedBytes)} | ${mib(m.arrayBuffersIncrease)} | ${mib(m.rssIncrease)} |`,
    );
  }
  if (sink === 0) throw new Error('nothing was measured');

  console.log(
    `hostile input: ${options.runs} runs per case after a warm-up (${options.unbounded ? 'with' : 'without'} --unbounded), ` +
      `${gc ? 'global.gc() before each body run' : 'no global.gc (run node with --expose-gc)'}, ` +
      `${(elapsedNs(begun) / 1e9).toFixed(0)} s`,
  );
  console.log('');
  console.log(
    `Headers (decodeFrame; caps ${MAX_HEADER_BYTES.toLocaleString('en-US')} bytes, ${MAX_HEADER_FIELDS} fields)`,
  );
  console.log('');
  console.log(
    '| header | bytes | fields | result | per decode, median | min-max | × normal | shape check alone (of the decode) |',
  );
  console.log('|---|---:|---:|---|---:|---:|---:|---:|');
  for (const line of headerTable) console.log(line);
  console.log('');
  console.log('PULL bodies (decodeMessages; defaults: 6 MiB per body, 32 MiB per call)');
  console.log('');
  console.log(
    '| body | on the wire | result of one call | per call, median | min-max | × peer | inflated, held | arrayBuffers + (max) | RSS + (max) |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const line of bodyTable) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
