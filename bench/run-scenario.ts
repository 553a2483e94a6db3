/**
 * A developer's driver for one bench scenario (bench-scenarios.ts) without the rest of `npm run bench`:
 * starts a local broker (256 MiB heap unless told), builds the Java peer when the scenario needs it,
 * runs the scenario, writes its results as JSON (ScenarioResult[], bench-results.ts) to `--out` (default
 * bench/results/scenario-<id>[-quick].json) and prints the medians on stderr (stdout carries our logs).
 *
 * Usage: npx tsx bench/run-scenario.ts <latency|http-invoke|offset-writes> [--quick] [--rounds N]
 *          [--java-heap-mb N] [--broker-heap-mb N] [--out FILE]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { startLocalBroker } from '../src/local-broker/local-broker.js';
import { ensureRocketMQJars } from '../src/local-broker/rocketmq-jars.js';
import { rootLogger } from '../src/util/logger.js';
import { BENCH_DEFAULTS } from './bench-options.js';
import type { ScenarioContext } from './bench-scenario.js';
import { BENCH_SCENARIOS } from './bench-scenarios.js';
import { ensureJavaBenchBuilt } from './java-bench.js';

const USAGE =
  'usage: npx tsx bench/run-scenario.ts <id> [--quick] [--rounds N] [--java-heap-mb N] [--broker-heap-mb N] [--out FILE]';
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

async function main(): Promise<number> {
  const [id, ...flags] = process.argv.slice(2);
  const scenario = BENCH_SCENARIOS.find((candidate) => candidate.id === id);
  if (scenario === undefined) {
    console.error(`${USAGE}\nscenarios: ${BENCH_SCENARIOS.map((candidate) => candidate.id).join(', ')}`);
    return 2;
  }
  const quick = flags.includes('--quick');
  const flag = (name: string, fallback: number): number => {
    const index = flags.indexOf(name);
    const value = index === -1 ? fallback : Number(flags[index + 1]);
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new Error(`${name} takes a positive integer\n${USAGE}`);
    return value;
  };
  const rounds = flag('--rounds', quick ? 1 : 3);
  const javaHeapMb = flag('--java-heap-mb', 256);
  const brokerHeapMb = flag('--broker-heap-mb', 256);
  const outIndex = flags.indexOf('--out');
  const outFile =
    outIndex === -1
      ? join(RESULTS_DIR, `scenario-${scenario.id}${quick ? '-quick' : ''}.json`)
      : (flags[outIndex + 1] ?? '');
  if (outFile === '') throw new Error(`--out takes a file\n${USAGE}`);
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  const log = (line: string): void => {
    process.stderr.write(`[${scenario.id}] ${line}\n`);
  };

  await ensureRocketMQJars();
  log(
    `starting a local broker (-Xmx${brokerHeapMb}m)${scenario.needsJava ? ' and building the Java peer' : ''}...`,
  );
  const [broker, java] = await Promise.all([
    startLocalBroker({ heapMb: brokerHeapMb, extraJvmOptions: ['-XX:TieredStopAtLevel=4'] }),
    scenario.needsJava ? ensureJavaBenchBuilt() : Promise.resolve(undefined),
  ]);
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr });
  try {
    const context: ScenarioContext = {
      broker,
      client,
      quick,
      rounds,
      pauseBetweenRunsMs: (quick ? BENCH_DEFAULTS.quick : BENCH_DEFAULTS.full).pauseBetweenRunsMs,
      java,
      javaHeapMb,
      log,
    };
    const startedAt = Date.now();
    const results = await scenario.run(context);
    log(`done in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    await mkdir(dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`, 'utf8');
    for (const result of results) {
      log(`${result.id} (${result.runs} run(s)):`);
      for (const consumer of result.consumers) {
        const medians = Object.entries(consumer.metrics).map(
          ([name, value]) => `${name} ${round(value.median)}`,
        );
        log(
          `  ${consumer.id}: ${consumer.error === undefined ? medians.join(', ') : `failed: ${consumer.error}`}`,
        );
      }
      for (const r of result.ratios)
        log(`  ${r.numerator} / ${r.denominator} ${r.metric}: ${round(r.value)}`);
    }
    log(`written to ${outFile}`);
    return results.some((result) => result.consumers.some((consumer) => consumer.error !== undefined))
      ? 1
      : 0;
  } finally {
    await client.close();
    await broker.stop();
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
