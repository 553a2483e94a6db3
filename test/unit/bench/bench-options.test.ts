import { describe, expect, it } from 'vitest';
import { BENCH_DEFAULTS, BenchUsageError, parseBenchOptions } from '../../../bench/bench-options.js';

describe('parseBenchOptions', () => {
  it('drains a 1M backlog by default, in 1 warm-up and 3 measured rounds, with every consumer', () => {
    const options = parseBenchOptions([], {}, { peers: ['ali-ons'], scenarios: [] });
    expect(options).toMatchObject({
      messages: 1_000_000,
      messageBytes: 1024,
      queues: 8,
      warmupRounds: 1,
      rounds: 3,
      consumers: ['ours', 'java', 'ours-function', 'raw-pull', 'ali-ons'],
      decode: true,
      scenarios: true,
      charts: true,
      externalBroker: undefined,
      outFile: BENCH_DEFAULTS.full.outFile,
    });
    expect(options.jsonFile).toBe(BENCH_DEFAULTS.full.outFile.replace(/\.md$/, '.json'));
  });

  it('keeps the 100k figure one flag away', () => {
    expect(parseBenchOptions(['--messages', '100_000'], {}).messages).toBe(100_000);
  });

  it('makes --quick a small smoke run: one round, no warm-up, short decode windows, its own files', () => {
    const quick = parseBenchOptions(['--quick'], {});
    expect(quick).toMatchObject({
      messages: 2000,
      rounds: 1,
      warmupRounds: 0,
      outFile: BENCH_DEFAULTS.quick.outFile,
    });
    expect(quick.decodeMeasureMs).toBeLessThan(1000);
  });

  it('keeps a full run’s pauses and peer close wait; --quick shortens both', () => {
    expect(parseBenchOptions([], {})).toMatchObject({ pauseBetweenRunsMs: 1000, peerCloseWaitMs: 10_000 });
    const quick = parseBenchOptions(['--quick'], {});
    expect(quick.pauseBetweenRunsMs).toBeLessThan(1000);
    expect(quick.peerCloseWaitMs).toBeLessThan(10_000);
  });

  it('profiles the drain with --profile, which --only (no drain) refuses', () => {
    expect(parseBenchOptions([], {}).profile).toBe(false);
    expect(parseBenchOptions(['--quick', '--profile'], {}).profile).toBe(true);
    expect(() => parseBenchOptions(['--only', 'decode', '--profile'], {})).toThrow(BenchUsageError);
  });

  it('reuses a running broker given by flags or BENCH_NAMESRV/BENCH_BROKER, both or neither', () => {
    expect(
      parseBenchOptions(['--namesrv', '127.0.0.1:9876', '--broker=127.0.0.1:10911'], {}).externalBroker,
    ).toEqual({ namesrvAddr: '127.0.0.1:9876', brokerAddr: '127.0.0.1:10911' });
    expect(
      parseBenchOptions([], { BENCH_NAMESRV: 'localhost:1', BENCH_BROKER: 'localhost:2' }).externalBroker,
    ).toEqual({ namesrvAddr: 'localhost:1', brokerAddr: 'localhost:2' });
    expect(() => parseBenchOptions(['--namesrv', '127.0.0.1:9876'], {})).toThrow(/go together/);
    expect(() => parseBenchOptions(['--namesrv', 'x', '--broker', 'y'], {})).toThrow(BenchUsageError);
  });

  it('runs one registered scenario alone with --only, into its own files', () => {
    const options = parseBenchOptions(
      ['--only', 'latency', '--quick'],
      {},
      { peers: [], scenarios: ['latency'] },
    );
    expect(options).toMatchObject({ only: 'latency', decode: false, scenarios: true, charts: false });
    expect(options.outFile).toMatch(/latency-quick\.md$/);
    expect(() => parseBenchOptions(['--only', 'latency'], {})).toThrow(/decode, scale/);
  });

  it('accepts registered peers and the raw PULL limit in --consumers, nothing else', () => {
    const registry = { peers: ['ali-ons'], scenarios: [] };
    expect(parseBenchOptions(['--consumers', 'raw-pull,ali-ons,raw-pull'], {}, registry).consumers).toEqual([
      'raw-pull',
      'ali-ons',
    ]);
    expect(() => parseBenchOptions(['--consumers', 'kafkajs'], {}, registry)).toThrow(/unknown consumer/);
  });

  it('runs an experiment contender only when --consumers names it', () => {
    expect(parseBenchOptions([], {}).consumers).not.toContain('ours-function-worker');
    expect(parseBenchOptions(['--consumers', 'ours-function,ours-function-worker'], {}).consumers).toEqual([
      'ours-function',
      'ours-function-worker',
    ]);
  });
});
