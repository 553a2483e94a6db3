/**
 * What `npm run bench` runs after the drain race: the decode micro-benchmark (decode-bench.ts) and every
 * registered scenario (bench-scenarios.ts), each on its own topics and groups. A full run runs them in
 * turn; a quick run, whose figures only show that each part works, starts them all at once, so that the
 * parts' start-ups and waits overlap. A part that throws is reported as a failed scenario.
 */
import type { BenchOptions } from './bench-options.js';
import type { ScenarioResult } from './bench-results.js';
import type { BenchScenario, ScenarioContext } from './bench-scenario.js';
import { fetchDecodeBodies, runDecodeBench } from './decode-bench.js';
import { decodeScenarios } from './decode-scenarios.js';

/**
 * Times one part of the run for the report's `Time:` line (main.ts's helper).
 *
 * @example
 * ```ts
 * const timed: TimedPart = async (part, work) => work();
 * ```
 */
export type TimedPart = <T>(part: string, work: () => Promise<T>) => Promise<T>;

/**
 * Runs the decode micro-benchmark (when `options.decode`) and `scenarios`; `failed` when one of them threw.
 *
 * @example
 * ```ts
 * const { results, failed } = await runDecodeAndScenarios({ options, scenarios, context, decodeChild, timed });
 * ```
 */
export async function runDecodeAndScenarios(run: {
  options: BenchOptions;
  scenarios: readonly BenchScenario[];
  context: ScenarioContext;
  /** decode-child.js, compiled (node-child-build.ts); needed when `options.decode`. */
  decodeChild: string | undefined;
  timed: TimedPart;
}): Promise<{ results: ScenarioResult[]; failed: boolean }> {
  const { options, context, timed } = run;
  const { log } = context;
  let failed = false;
  const guarded = async (
    id: string,
    title: string,
    part: () => Promise<ScenarioResult[]>,
  ): Promise<ScenarioResult[]> => {
    try {
      return await part();
    } catch (error) {
      failed = true;
      log(`${id} failed: ${messageOf(error)}`);
      return [failedScenario(id, title, error)];
    }
  };
  const decode = async (): Promise<ScenarioResult[]> => {
    const decodeChild = run.decodeChild;
    if (decodeChild === undefined) throw new Error('unreachable: the decode child was not built');
    log('decode micro-benchmark: producing and pulling one body per case...');
    const cases = await timed('decode', async () =>
      runDecodeBench(await fetchDecodeBodies(context.client, context.broker), context.java, decodeChild, {
        rounds: options.rounds,
        warmupMs: options.decodeWarmupMs,
        measureMs: options.decodeMeasureMs,
        javaHeapMb: options.javaHeapMb,
        concurrent: options.quick,
        log,
      }),
    );
    return decodeScenarios(cases, { concurrent: options.quick });
  };
  const parts: Array<() => Promise<ScenarioResult[]>> = [
    ...(options.decode ? [() => guarded('decode', 'Decode PULL bodies', decode)] : []),
    ...run.scenarios.map(
      (scenario) => () =>
        guarded(scenario.id, scenario.description, () => {
          log(`scenario ${scenario.id}: ${scenario.description}`);
          return timed(`scenario ${scenario.id}`, () => scenario.run(context));
        }),
    ),
  ];
  const results: ScenarioResult[] = [];
  if (options.quick && parts.length > 1) {
    // The report's Time line then lists each part's own time and their common time.
    const all = await timed('decode and scenarios (at once)', () => Promise.all(parts.map((part) => part())));
    results.push(...all.flat());
  } else {
    for (const part of parts) results.push(...(await part()));
  }
  return { results, failed };
}

function failedScenario(id: string, title: string, error: unknown): ScenarioResult {
  return {
    id,
    title,
    workload: 'did not complete',
    runs: 0,
    consumers: [],
    ratios: [],
    error: messageOf(error),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
