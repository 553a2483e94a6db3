/**
 * `npm run bench -- --quick --profile` end to end against the shared test broker: the whole harness (the
 * drain race with every consumer incl. Java and the raw PULL limit, the decode micro-benchmark, every
 * registered scenario in its quick form, the JSON, the Markdown and the charts, and `--profile`'s CPU
 * profiles of our drain contenders) must finish and write results of the documented shape
 * (bench/bench-results.ts), with every field of issue 34's summary measured. No figure is judged, nor the run's duration: a quick run's speed means
 * nothing, and CI machines are shared.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_CONSUMERS } from '../../../bench/bench-options.js';
import type { BenchResults, Stats } from '../../../bench/bench-results.js';
import { BENCH_SCENARIOS } from '../../../bench/bench-scenarios.js';
import { SUMMARY_FIELDS } from '../../../bench/bench-summary.js';
import { DRAIN_PEERS } from '../../../bench/drain-peers.js';
import { PROFILED_CONTENDERS } from '../../../bench/drain-profile.js';
import { DRAIN_METRICS } from '../../../bench/drain-summary.js';
import { imageNodeMajor } from '../../../bench/image-node-env.js';
import { TASK_MEMORY_MIB } from '../../../bench/per-vcpu-scenario.js';
import { testBroker } from '../../support/broker.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** Generous: the quick run takes under a minute on a quiet machine, several on a loaded one. */
const RUN_TIMEOUT_MS = 30 * 60_000;
const OUTPUT_TAIL_CHARS = 8000;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function runQuickBench(
  outFile: string,
  extraArgs: readonly string[] = ['--profile'],
): Promise<{ exitCode: number | null; stderr: string }> {
  const { namesrvAddr, brokerAddr } = testBroker();
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npx',
      [
        'tsx',
        'bench/main.ts',
        '--quick',
        ...extraArgs,
        '--namesrv',
        namesrvAddr,
        '--broker',
        brokerAddr,
        '--out',
        outFile,
      ],
      { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LOG_LEVEL: 'error' } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    });
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stderr }));
  });
}

function expectStats(value: Stats | undefined, what: string): void {
  expect(value, what).toBeDefined();
  if (value === undefined) return;
  expect(value.values.length, what).toBeGreaterThan(0);
  for (const n of [value.median, value.min, value.max, ...value.values])
    expect(Number.isFinite(n), what).toBe(true);
  expect(value.min, what).toBeLessThanOrEqual(value.median);
  expect(value.median, what).toBeLessThanOrEqual(value.max);
}

describe('npm run bench -- --quick', () => {
  it(
    'runs the whole harness on the test broker and writes results of the documented shape',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'quick-bench-'));
      dirs.push(dir);
      const startedAtMs = Date.now();
      const outFile = join(dir, 'quick.md');
      const { exitCode, stderr } = await runQuickBench(outFile);
      expect(exitCode, stderr).toBe(0);

      const results = JSON.parse(await readFile(join(dir, 'quick.json'), 'utf8')) as BenchResults;
      expect(results).toMatchObject({ schemaVersion: 1, quick: true });
      expect(Number.isNaN(Date.parse(results.date))).toBe(false);
      expect(results.machine.cpus).toBeGreaterThan(0);
      expect(typeof results.machine.loadAverage.start).toBe('number');
      expect(typeof results.machine.loadAverage.end).toBe('number');
      expect(results.versions.node).toBe(process.version);
      // Our children ran on the image's Node line (infra/docker/Dockerfile's NODE_IMAGE), whatever the harness runs.
      expect(results.versions['node (ours, the image line)']).toMatch(new RegExp(`^v${imageNodeMajor()}\\.`));

      const drain = results.scenarios.find((scenario) => scenario.id === 'drain');
      expect(drain?.runs).toBe(1);
      const ids = drain?.consumers.map((consumer) => consumer.id);
      expect(ids).toEqual([...BUILTIN_CONSUMERS, ...DRAIN_PEERS.map((peer) => peer.id)]);
      for (const consumer of drain?.consumers ?? []) {
        const builtin = (BUILTIN_CONSUMERS as readonly string[]).includes(consumer.id);
        // A peer that cannot run here (its package or proxy unavailable) reports why instead of figures.
        if (!builtin && consumer.error !== undefined) {
          expect(consumer.error.length, consumer.id).toBeGreaterThan(0);
          continue;
        }
        expect(consumer.error, consumer.id).toBeUndefined();
        for (const metric of [
          DRAIN_METRICS.firstToAll,
          DRAIN_METRICS.startToAll,
          DRAIN_METRICS.peakRss,
          DRAIN_METRICS.cpuPerMessage,
        ]) {
          expectStats(consumer.metrics[metric], `${consumer.id} ${metric}`);
          expect(consumer.metrics[metric]?.median, `${consumer.id} ${metric}`).toBeGreaterThan(0);
        }
        // Every child reports its GC pauses (Node's gc entries, the JVM's collectors); ours its buffer too.
        expectStats(consumer.metrics[DRAIN_METRICS.gcPauseShare], `${consumer.id} GC pauses`);
        expect(consumer.metrics[DRAIN_METRICS.gcPauseShare]?.median, consumer.id).toBeGreaterThanOrEqual(0);
        if (consumer.id === 'ours' || consumer.id === 'ours-function') {
          expectStats(consumer.metrics[DRAIN_METRICS.bufferedMax], `${consumer.id} buffered messages`);
          // What its peak RSS is made of: a V8 heap, and less than the RSS of the sample it came from.
          const sampleRss = consumer.metrics[DRAIN_METRICS.peakSampleRss]?.median ?? 0;
          const v8Heap = consumer.metrics[DRAIN_METRICS.peakSampleV8Heap]?.median ?? 0;
          expect(v8Heap, `${consumer.id} V8 heap at the peak sample`).toBeGreaterThan(0);
          expect(sampleRss, `${consumer.id} RSS at the peak sample`).toBeGreaterThan(v8Heap);
          expectStats(
            consumer.metrics[DRAIN_METRICS.peakSampleArrayBuffers],
            `${consumer.id} Buffers at the peak`,
          );
        }
        expect(consumer.series?.rssMiBOverTimeMs?.length ?? 0, `${consumer.id} RSS series`).toBeGreaterThan(
          0,
        );
      }
      expect(
        drain?.ratios.some((entry) => entry.numerator === 'ours' && entry.denominator === 'raw-pull'),
      ).toBe(true);

      // --profile: one profile per profiled contender, written by this run, its top frames beside it.
      for (const contender of PROFILED_CONTENDERS) {
        const profile = join(REPO, 'bench', 'results', 'profiles', `drain-${contender}-quick.cpuprofile`);
        expect(drain?.workload, contender).toContain(`drain-${contender}-quick.cpuprofile`);
        expect((await stat(profile)).mtimeMs, contender).toBeGreaterThanOrEqual(startedAtMs);
        const top = await readFile(profile.replace(/\.cpuprofile$/, '.top.txt'), 'utf8');
        expect(top, contender).toMatch(/^Top 15 frames by self time:\n +\d/);
      }

      const decode = results.scenarios.filter((scenario) => scenario.id.startsWith('decode-'));
      expect(decode).toHaveLength(4);
      for (const scenario of decode)
        expect(scenario.consumers.map((consumer) => consumer.id)).toEqual([
          'ours',
          'ours-all-fields',
          'java',
        ]);

      // The per-vcpu poller ran in the memory of the 1-vCPU task it sizes, and said so.
      const perVcpu = results.scenarios.filter((entry) => entry.id.startsWith('per-vcpu-'));
      expect(perVcpu.map((entry) => entry.id)).toEqual(['per-vcpu-batch-100', 'per-vcpu-batch-1000']);
      for (const scenario of perVcpu) {
        expect(scenario.workload, scenario.id).toContain(`in a memory cgroup of ${TASK_MEMORY_MIB} MiB`);
      }

      // Every registered scenario reported at least one result, none failed, every consumer's figures sane.
      const others = results.scenarios.filter(
        (scenario) => scenario.id !== 'drain' && !scenario.id.startsWith('decode-'),
      );
      expect(others.length).toBeGreaterThanOrEqual(BENCH_SCENARIOS.length);
      for (const scenario of results.scenarios) {
        expect(scenario.error, scenario.id).toBeUndefined();
        expect(scenario.consumers.length, scenario.id).toBeGreaterThan(0);
        for (const consumer of scenario.consumers) {
          if (consumer.error !== undefined) continue;
          for (const [metric, value] of Object.entries(consumer.metrics)) {
            expectStats(value, `${scenario.id} ${consumer.id} ${metric}`);
          }
        }
      }

      // Issue 34's summary: every field measured by the quick run too (a number, from this run's scenarios),
      // and every target and guard judged or, where a quick run cannot judge it, saying why.
      for (const field of SUMMARY_FIELDS) {
        expect(typeof results.summary?.[field], `summary.${field}: ${results.summaryMissing?.[field]}`).toBe(
          'number',
        );
      }
      expect(results.summaryMissing).toEqual({});
      expect(results.checks?.length).toBeGreaterThan(0);
      for (const check of results.checks ?? []) {
        if (check.pass === null) expect(check.reason, check.id).toBeTruthy();
        else expect(check.value, check.id).not.toBeNull();
      }

      const markdown = await readFile(outFile, 'utf8');
      expect(markdown).toContain('## Summary');
      expect(markdown).toContain('### Targets and guards (issue 34)');
      expect(markdown).toContain('## Drain a backlog');
      expect(markdown).toContain('### The limit: raw PULL');
      expect(markdown).toContain('### What the peak RSS is made of');
      for (const chart of ['throughput', 'latency', 'rss']) {
        expect((await stat(join(dir, `quick-${chart}.png`))).size, chart).toBeGreaterThan(1000);
      }
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'drains with the experiment contender (the function path on a worker thread) when --consumers names it',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'quick-bench-worker-'));
      dirs.push(dir);
      const outFile = join(dir, 'worker.md');
      const { exitCode, stderr } = await runQuickBench(outFile, [
        '--consumers',
        'ours-function-worker',
        '--no-decode',
        '--no-scenarios',
        '--no-charts',
      ]);
      expect(exitCode, stderr).toBe(0);
      const results = JSON.parse(await readFile(join(dir, 'worker.json'), 'utf8')) as BenchResults;
      const drain = results.scenarios.find((scenario) => scenario.id === 'drain');
      expect(drain?.consumers.map((consumer) => consumer.id)).toEqual(['ours-function-worker']);
      const [worker] = drain?.consumers ?? [];
      expect(worker?.error).toBeUndefined();
      expectStats(worker?.metrics[DRAIN_METRICS.firstToAll], 'worker msgs/s');
      expect(worker?.metrics[DRAIN_METRICS.firstToAll]?.median).toBeGreaterThan(0);
      expectStats(worker?.metrics[DRAIN_METRICS.bufferedMax], 'worker buffered messages');
    },
    RUN_TIMEOUT_MS,
  );
});
