/**
 * What filter criteria (src/filter) cost per message, against the path without a filter, in the same
 * run: 1 KiB JSON bodies (the drain's, bench/message-body.ts) with a record's metadata, matched by
 *   - `none`: no filter (the caller's `filter === undefined` check, what users without filters run);
 *   - `metadata`: one pattern on the metadata (`{"tags": ["bench"]}`), the body never parsed;
 *   - `body`: one pattern reading one field inside the body (`{"body": {"queue": [{"numeric": [">=", 0]}]}}`),
 *     the body's bytes read once per message by the key-selective scanner (src/filter/json-body-scanner.ts);
 *   - `body-fields`: the same pattern on a 1 KiB body of 30 short fields (denser JSON to check);
 *   - `body-parse`, `body-fields-parse`: the same two through the filter's former path, the body decoded
 *     from UTF-8 and parsed whole by JSON.parse (what a text body still takes: src/filter/json-body.ts).
 *
 * Usage: npm run bench:filter [-- --rounds N] [--ms N]
 *   Each round runs every mode for `--ms` (default 500) in turn; prints ns per message per mode, as CPU
 *   time of this process (minimum over the rounds, default 7: on a machine shared with other work the
 *   elapsed time also counts the time other processes held the core) and as wall time (minimum, median),
 *   each mode's CPU increment over `none`, its ratio to `none`, and a scanner mode's ratio to its
 *   JSON.parse twin.
 */
import { compileFilter, type MessageFilter } from '../src/filter/message-filter.js';
import { benchMessageBody } from './message-body.js';
import { percentile } from './percentile.js';

const MESSAGES = 1024;
const MODES = ['none', 'metadata', 'body', 'body-parse', 'body-fields', 'body-fields-parse'] as const;
type Mode = (typeof MODES)[number];

interface BenchMessage {
  metadata: Record<string, unknown>;
  body: Buffer;
}

interface Sample {
  wall: number;
  cpu: number;
}

/** The JSON.parse twin of each scanner mode. */
const PARSE_TWIN: Partial<Record<Mode, Mode>> = { body: 'body-parse', 'body-fields': 'body-fields-parse' };

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
  // `text`: the body is passed decoded, per message (the former path decoded it too), so it is parsed whole.
  const setups: Record<Mode, { filter: MessageFilter | undefined; batch: BenchMessage[]; text?: boolean }> = {
    none: { filter: undefined, batch: plain },
    metadata: { filter: compileFilter([{ tags: ['bench'] }]), batch: plain },
    body: { filter: compileFilter([bodyPattern]), batch: plain },
    'body-parse': { filter: compileFilter([bodyPattern]), batch: plain, text: true },
    'body-fields': { filter: compileFilter([bodyPattern]), batch: dense },
    'body-fields-parse': { filter: compileFilter([bodyPattern]), batch: dense, text: true },
  };
  let passed = 0;
  /** One run of `mode` for `durationMs`: wall-clock and CPU (this process's user + system) ns per message. */
  const measure = (mode: Mode, durationMs: number): Sample => {
    const { filter, batch, text } = setups[mode];
    let count = 0;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const end = start + BigInt(durationMs) * 1_000_000n;
    let now = start;
    while (now < end) {
      if (text === true) {
        for (const message of batch) {
          if (filter === undefined || filter.matches(message.metadata, message.body.toString('utf8')))
            passed++;
        }
      } else {
        for (const message of batch) {
          if (filter === undefined || filter.matches(message.metadata, message.body)) passed++;
        }
      }
      count += batch.length;
      now = process.hrtime.bigint();
    }
    const cpu = process.cpuUsage(cpuStart);
    return { wall: Number(now - start) / count, cpu: ((cpu.user + cpu.system) * 1000) / count };
  };

  for (const mode of MODES) measure(mode, ms); // warm-up
  const samples = new Map<Mode, Sample[]>(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) samples.get(mode)?.push(measure(mode, ms));
  }
  if (passed === 0) throw new Error('no message passed: nothing was measured');

  const min = (mode: Mode, of: keyof Sample): number =>
    Math.min(...(samples.get(mode) ?? []).map((s) => s[of]));
  console.log(
    `filter match micro-benchmark: ${rounds} rounds of ${ms} ms per mode, 1 KiB JSON bodies, one pattern; CPU is this process's user + system time (the figure to compare on a shared machine), wall the elapsed time`,
  );
  console.log(
    '| mode | CPU ns/msg min | wall ns/msg min | wall ns/msg median | CPU over none | CPU ratio to none | CPU ratio to JSON.parse |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const noneCpu = min('none', 'cpu');
  for (const mode of MODES) {
    const cpu = min(mode, 'cpu');
    const over = mode === 'none' ? '' : `+${Math.round(cpu - noneCpu)}`;
    const twin = PARSE_TWIN[mode];
    const toParse = twin === undefined ? '' : `${(cpu / min(twin, 'cpu')).toFixed(2)}x`;
    const walls = (samples.get(mode) ?? []).map((sample) => sample.wall);
    console.log(
      `| ${mode} | ${cpu.toFixed(1)} | ${min(mode, 'wall').toFixed(1)} | ${percentile(walls, 50).toFixed(1)} | ${over} | ${(cpu / noneCpu).toFixed(1)}x | ${toParse} |`,
    );
  }
}

main();
