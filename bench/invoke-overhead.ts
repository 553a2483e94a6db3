/**
 * The CPU one HTTP invoke costs the poller, invoker against invoker in one run, without a broker: a
 * quick A/B tool for the invoke path (the http-invoke scenario gives the figures of record). The parent
 * process runs the Invoke API test server (test/support/lambda-api-server.ts); a child process sends
 * the same event (`--records` records of 1 KiB, built once) through each invoker in turn, rounds
 * interleaved, and measures process.cpuUsage() per invoke (`--concurrency` in flight). Medians over the
 * rounds. Invokers: `sdk` (LambdaInvoker, src/invoke/lambda-invoker.ts), `floor` (one SigV4-signed
 * request over node:http keep-alive, bench/floor-invoker.ts), `sdk-raw` (a bare LambdaClient),
 * `sdk-raw-cached` (the same with `cacheMiddleware: true`: its stack resolved once, not per send) and
 * `sdk-before` (an uncommitted copy of an earlier invoker, for a same-run A/B while changing it).
 *
 * Usage: npx tsx bench/invoke-overhead.ts [--records 100] [--invokes 400] [--rounds 7] [--concurrency 4]
 *        [--invokers sdk,floor] [--profile sdk]   (--profile: one extra run of that invoker, profiled)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { Invoker } from '../src/invoke/invoker.js';
import { LambdaInvoker } from '../src/invoke/lambda-invoker.js';
import { LambdaApiServer } from '../test/support/lambda-api-server.js';
import { stats } from './bench-results.js';
import { PROFILES_DIR, writeProfileTop } from './cpu-profile-top.js';
import { FloorInvoker } from './floor-invoker.js';

const FUNCTION_NAME = 'bench-noop';
const CREDENTIALS = { accessKeyId: 'bench', secretAccessKey: 'bench' } as const;
const REGION = 'us-east-1';
const BEFORE_MODULE = '../src/invoke/lambda-invoker-before.js';
const INVOKERS = ['sdk', 'floor', 'sdk-raw', 'sdk-raw-cached', 'sdk-before'] as const;
type InvokerId = (typeof INVOKERS)[number];

interface Options {
  records: number;
  invokes: number;
  rounds: number;
  concurrency: number;
  invokers: InvokerId[];
  profile: InvokerId | undefined;
  /** In the child: profile the measured rounds into PROFILES_DIR/<name>.cpuprofile. */
  profileName: string | undefined;
}

function parse(args: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const at = args.indexOf(`--${name}`);
    return at < 0 ? undefined : args[at + 1];
  };
  const int = (name: string, fallback: number): number => {
    const raw = value(name);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (!(Number.isSafeInteger(parsed) && parsed > 0))
      throw new Error(`--${name} must be a positive integer, got ${raw}`);
    return parsed;
  };
  const invoker = (id: string): InvokerId => {
    if (!(INVOKERS as readonly string[]).includes(id))
      throw new Error(`unknown invoker ${JSON.stringify(id)}: one of ${INVOKERS.join(', ')}`);
    return id as InvokerId;
  };
  const profile = value('profile');
  return {
    records: int('records', 100),
    invokes: int('invokes', 400),
    rounds: int('rounds', 7),
    concurrency: int('concurrency', 4),
    invokers: (value('invokers') ?? INVOKERS.join(',')).split(',').map(invoker),
    profile: profile === undefined ? undefined : invoker(profile),
    profileName: value('profile-name'),
  };
}

/** An event of `records` records of 1 KiB bodies (base64), shaped like ours (src/invoke/event-builder.ts). */
function eventPayload(records: number): Buffer {
  const body = randomBytes(1024).toString('base64');
  const list = Array.from({ length: records }, (_, index) => ({
    eventSource: 'rocketmq',
    topic: 'BenchTopic',
    queueId: index % 8,
    queueOffset: 1000 + index,
    msgId: `7F00000100002A9F0000000000${String(index).padStart(6, '0')}`,
    bornTimestamp: 1_700_000_000_000 + index,
    storeTimestamp: 1_700_000_000_001 + index,
    reconsumeTimes: 0,
    tags: 'TagA',
    keys: [`key-${index}`],
    properties: { UNIQ_KEY: `AC110001${index}` },
    body,
  }));
  return Buffer.from(
    JSON.stringify({ eventSource: 'rocketmq', consumerGroup: 'bench', records: list, Records: [] }),
  );
}

async function createInvoker(id: InvokerId, endpoint: string): Promise<Invoker> {
  switch (id) {
    case 'sdk':
      return new LambdaInvoker({ endpoint, region: REGION, credentials: CREDENTIALS });
    case 'sdk-before': {
      // An uncommitted copy of the previous invoker, for a same-run A/B while changing it.
      const before = (await import(BEFORE_MODULE).catch((error: unknown) => {
        throw new Error(
          `--invokers sdk-before needs a copy of the invoker to compare with at ${BEFORE_MODULE.replace('.js', '.ts')} (e.g. git show <commit>:src/invoke/lambda-invoker.ts), not committed`,
          { cause: error },
        );
      })) as { LambdaInvoker: typeof LambdaInvoker };
      return new before.LambdaInvoker({ endpoint, region: REGION, credentials: CREDENTIALS });
    }
    case 'sdk-raw':
      return rawSdkInvoker(endpoint, false);
    case 'sdk-raw-cached':
      return rawSdkInvoker(endpoint, true);
    case 'floor':
      return new FloorInvoker({ endpoint, region: REGION, credentials: CREDENTIALS });
  }
}

async function invokeMany(
  invoker: Invoker,
  payload: Buffer,
  invokes: number,
  concurrency: number,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < invokes) {
      next++;
      const outcome = await invoker.invoke({ functionRef: FUNCTION_NAME, payload });
      if (!outcome.ok) throw new Error(`invoke failed: ${outcome.kind}: ${outcome.message}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** The child: every invoker, rounds interleaved; prints one JSON line of CPU ms per invoke. */
async function child(endpoint: string, options: Options): Promise<void> {
  const payload = eventPayload(options.records);
  const invokers = new Map<InvokerId, Invoker>();
  for (const id of options.invokers) invokers.set(id, await createInvoker(id, endpoint));
  const cpu = new Map<InvokerId, number[]>();
  for (const [, invoker] of invokers)
    await invokeMany(invoker, payload, options.invokes, options.concurrency);
  const session = options.profileName === undefined ? undefined : new Session();
  if (session !== undefined) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = [...invokers.keys()];
    for (let shift = 0; shift < round % order.length; shift++) order.push(order.shift() as InvokerId);
    for (const id of order) {
      const started = process.cpuUsage();
      await invokeMany(invokers.get(id) as Invoker, payload, options.invokes, options.concurrency);
      const used = process.cpuUsage(started);
      cpu.set(id, [...(cpu.get(id) ?? []), (used.user + used.system) / 1000 / options.invokes]);
    }
  }
  if (session !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(join(PROFILES_DIR, `${options.profileName}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  for (const invoker of invokers.values()) await invoker.close();
  process.stdout.write(`${JSON.stringify({ payloadBytes: payload.length, cpu: Object.fromEntries(cpu) })}\n`);
}

async function runChild(endpoint: string, args: readonly string[]): Promise<string> {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ['--import', 'tsx', script, '--child', endpoint, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  if (code !== 0) throw new Error(`the child exited with ${code}`);
  return out.trim().split('\n').at(-1) ?? '';
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const options = parse(args);
  const childAt = args.indexOf('--child');
  if (childAt >= 0) return child(args[childAt + 1] ?? '', options);
  const server = await LambdaApiServer.start();
  server.register(FUNCTION_NAME, () => ({ batchItemFailures: [] }));
  try {
    const result = JSON.parse(await runChild(server.endpoint, args)) as {
      payloadBytes: number;
      cpu: Record<string, number[]>;
    };
    console.log(
      `${options.records} records (${result.payloadBytes} B event), ${options.invokes} invokes x ${options.rounds} rounds, ${options.concurrency} in flight; CPU ms per invoke:`,
    );
    for (const [id, values] of Object.entries(result.cpu)) {
      const s = stats(values);
      console.log(
        `  ${id.padEnd(8)} median ${s.median.toFixed(3)}  min ${s.min.toFixed(3)}  max ${s.max.toFixed(3)}`,
      );
    }
    if (options.profile !== undefined) {
      const name = `invoke-overhead-${options.profile}-${options.records}`;
      const profileArgs = args.filter(
        (arg, index) =>
          !['--invokers', '--rounds'].includes(args[index - 1] ?? '') &&
          !['--invokers', '--rounds'].includes(arg),
      );
      await mkdir(PROFILES_DIR, { recursive: true });
      await runChild(server.endpoint, [
        ...profileArgs,
        '--invokers',
        options.profile,
        '--rounds',
        '3',
        '--profile-name',
        name,
      ]);
      console.log((await writeProfileTop(name, 20)).text);
    }
  } finally {
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);

/** The SDK's client alone, configured as LambdaInvoker configures it, without our middleware or signals. */
function rawSdkInvoker(endpoint: string, cacheMiddleware: boolean): Invoker {
  const client = new LambdaClient({
    maxAttempts: 1,
    cacheMiddleware,
    endpoint,
    region: REGION,
    credentials: CREDENTIALS,
    requestHandler: { httpAgent: { keepAlive: true, maxSockets: 256 } },
  });
  return {
    async invoke(request) {
      const output = await client.send(
        new InvokeCommand({
          FunctionName: request.functionRef,
          InvocationType: 'RequestResponse',
          Payload: request.payload,
        }),
      );
      const bytes = output.Payload ?? new Uint8Array();
      return { ok: true, payload: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
    },
    async close() {
      client.destroy();
    },
  };
}
