/**
 * A scenario of `npm run bench` beyond the drain race (latency at a steady rate, the Lambda path over
 * HTTP, DynamoDB offset writes, ...): main.ts runs every registered scenario (bench-scenarios.ts) on the
 * run's local broker after the drain rounds, or one of them alone with `--only <id>`, and puts what it
 * returns into bench/results/latest.json (bench-results.ts) and latest.md.
 */
import type { RocketMQClient } from '../src/client/rocketmq-client.js';
import type { LocalBroker } from '../src/local-broker/local-broker.js';
import type { ScenarioResult } from './bench-results.js';
import type { JavaBenchBuild } from './java-bench.js';

/** What a scenario gets from the harness. */
export interface ScenarioContext {
  /** The run's local broker (namesrv + broker, already up). */
  readonly broker: LocalBroker;
  /** A client on that broker, for topics and producing. */
  readonly client: RocketMQClient;
  /** `--quick`: a smoke run of the harness (small counts, one round), no figure worth quoting. */
  readonly quick: boolean;
  /** Measured rounds (`--rounds`); each scenario reports median/min/max over them. */
  readonly rounds: number;
  /** Pause between two runs, so that one run's shutdown does not overlap the next start (quick: shorter). */
  readonly pauseBetweenRunsMs: number;
  /** The Java peer build (bench/java), when the run needs Java. */
  readonly java: JavaBenchBuild | undefined;
  /** Max heap of Java peers' JVMs (`--java-heap-mb`). */
  readonly javaHeapMb: number;
  /** Progress to stderr. */
  log(line: string): void;
}

/** A registered scenario. */
export interface BenchScenario {
  /** `--only <id>` runs it alone (`latency`, `http-invoke`, `offset-writes`). */
  readonly id: string;
  /** One line for `--help` and the report. */
  readonly description: string;
  /** True when it runs a Java peer (the harness then builds bench/java). */
  readonly needsJava: boolean;
  /** Runs it; one scenario may report several results (one per rate, per batch size, ...). */
  run(context: ScenarioContext): Promise<ScenarioResult[]>;
}
