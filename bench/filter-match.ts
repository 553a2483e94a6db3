/**
 * What filter criteria (src/filter) cost per message, against the path without a filter, in the same
 * run: 1 KiB JSON bodies (the drain's, bench/message-body.ts) with a record's metadata, matched by
 *   - `none`: no filter (the caller's `filter === undefined` check, what users without filters run);
 *   - `metadata`: one pattern on the metadata (`{"tags": ["bench"]}`), the body never parsed;
 *   - `body`: one pattern inside the body (`{"body": {"queue": [{"numeric": [">=", 0]}]}}`), the body
 *     parsed as JSON once per message;
 *   - `body-fields`: the same pattern on a 1 KiB body of 30 short fields (a denser JSON to parse).
 *
 * Usage: npm run bench:filter [-- --rounds N] [--ms N]
 *   Each round runs every mode for `--ms` (default 500) in turn; prints ns per message per mode (minimum
 *   and median over the rounds, default 7), each mode's increment over `none` and its ratio to it.
 */
import { compileFilter, type MessageFilter } from '../src/filter/message-filter.js';
import { benchMessageBody } from './message-body.js';
import { percentile } from './percentile.js';

const MESSAGES = 1024;
const MODES = ['none', 'metadata', 'body', 'body-fields'] as const;
type Mode = (typeof MODES)[number];

interface BenchMessage {
  metadata: Record<string, unknown>;
  body: Buffer;
}

/** A 1 KiB JSON object of 30 short fields, strings and numbers, as an application's order event might be. */
function denseBody(index: number): Buffer {
  const fields: Record<string, string | number> = { queue: index % 4 };
  for (let i = 0; i < 29; i++)
    fields[`field${i}`] = i % 2 === 0 ? `value-${index}-${i}-abcdef` : index * 1000 + i;
  fields.pad = '';
  const padding = 1024 - Buffer.byteLength(JSON.stringify(fields));
  if (padding < 0) throw new Error('30 fields do not fit in 1 KiB');
  fields.pad = 'x'.repeat(padding);
  return Buffer.from(JSON.stringify(fields));
}

function messages(dense: boolean): BenchMessage[] {
  return Array.from({ length: MESSAGES }, (_, i) => ({
    metadata: {
      topic: 'bench-filter',
      tags: i % 2 === 0 ? 'bench' : 'other',
      keys: [`key-${i}`],
      properties: { UNIQ_KEY: `7F00000100002A9F0000000000${i}`, TRACE_ON: 'true' },
      queueId: i % 4,
      queueOffset: 1000 + i,
    },
    body: dense ? denseBody(i) : benchMessageBody(i % 4, i, 1024),
  }));
}

function parseArgs(argv: readonly string[]): { rounds: number; ms: number } {
  let rounds = 7;
  let ms = 500;
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${argv[i]} needs a positive integer`);
    if (argv[i] === '--rounds') rounds = value;
    else if (argv[i] === '--ms') ms = value;
    else throw new Error(`unknown argument ${argv[i]} (usage: --rounds N --ms N)`);
  }
  return { rounds, ms };
}

function main(): void {
  const { rounds, ms } = parseArgs(process.argv.slice(2));
  const plain = messages(false);
  const dense = messages(true);
  if (dense.some((message) => message.body.length !== 1024)) throw new Error('a dense body is not 1 KiB');
  const bodyPattern = { body: { queue: [{ numeric: ['>=', 0] }] } };
  const setups: Record<Mode, { filter: MessageFilter | undefined; batch: BenchMessage[] }> = {
    none: { filter: undefined, batch: plain },
    metadata: { filter: compileFilter([{ tags: ['bench'] }]), batch: plain },
    body: { filter: compileFilter([bodyPattern]), batch: plain },
    'body-fields': { filter: compileFilter([bodyPattern]), batch: dense },
  };
  let passed = 0;
  const measure = (mode: Mode, durationMs: number): number => {
    const { filter, batch } = setups[mode];
    let count = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(durationMs) * 1_000_000n;
    let now = start;
    while (now < end) {
      for (const message of batch) {
        if (filter === undefined || filter.matches(message.metadata, message.body)) passed++;
      }
      count += batch.length;
      now = process.hrtime.bigint();
    }
    return Number(now - start) / count;
  };

  for (const mode of MODES) measure(mode, ms); // warm-up
  const samples = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) samples.get(mode)?.push(measure(mode, ms));
  }
  if (passed === 0) throw new Error('no message passed: nothing was measured');

  const noneMin = Math.min(...(samples.get('none') ?? []));
  console.log(
    `filter match micro-benchmark: ${rounds} rounds of ${ms} ms per mode, 1 KiB JSON bodies, one pattern`,
  );
  console.log('| mode | ns/msg min | ns/msg median | min over none | ratio to none |');
  console.log('|---|---:|---:|---:|---:|');
  for (const mode of MODES) {
    const values = samples.get(mode) ?? [];
    const min = Math.min(...values);
    const over = mode === 'none' ? '' : `+${Math.round(min - noneMin)}`;
    console.log(
      `| ${mode} | ${min.toFixed(1)} | ${percentile(values, 50).toFixed(1)} | ${over} | ${(min / noneMin).toFixed(1)}x |`,
    );
  }
}

main();
