/**
 * The bench's charts as Vega-Lite specs, built from a results file (bench-results.ts) alone, so that
 * `npm run bench:charts` redraws them from latest.json without a run: drain throughput per consumer
 * (median bars, min–max rules), latency percentiles of the scenarios that report `latency*` metrics,
 * and RSS over time (one line per consumer, its median run).
 */
import type { TopLevelSpec } from 'vega-lite';
import type { BenchResults } from './bench-results.js';
import { DRAIN_METRICS } from './drain-summary.js';

/**
 * One chart: the file-name suffix (`throughput` → `latest-throughput.png`) and its spec.
 *
 * @example
 * ```ts
 * for (const chart of chartSpecs(results)) console.log(chart.name);
 * ```
 */
export interface ChartSpec {
  readonly name: 'throughput' | 'latency' | 'rss';
  readonly title: string;
  readonly spec: TopLevelSpec;
}

const WIDTH = 560;
const HEIGHT = 300;
const FONT = 'DejaVu Sans';
const P50 = /^latency.*p50/i;
const P99 = /^latency.*p99/i;

/**
 * The three charts of `results` (a chart without data says so instead of being left out, so that
 * links to it never break).
 *
 * @example
 * ```ts
 * const [throughput, latency, rss] = chartSpecs(JSON.parse(readFileSync('latest.json', 'utf8')));
 * ```
 */
export function chartSpecs(results: BenchResults): ChartSpec[] {
  const subtitle = `${results.date.slice(0, 10)}, ${results.machine.cpus} CPUs, load ${results.machine.loadAverage.start}–${results.machine.loadAverage.end}${results.quick ? ', quick run: figures mean nothing' : ''}`;
  return [throughput(results, subtitle), latency(results, subtitle), rss(results, subtitle)];
}

function throughput(results: BenchResults, subtitle: string): ChartSpec {
  const drain = results.scenarios.find((scenario) => scenario.id === 'drain');
  const rows = (drain?.consumers ?? []).flatMap((consumer) => {
    const value = consumer.metrics[DRAIN_METRICS.firstToAll];
    return value === undefined
      ? []
      : [{ consumer: consumer.id, median: value.median, min: value.min, max: value.max }];
  });
  const title = 'Drain throughput, msgs/s first → all (median; rule: min–max)';
  if (rows.length === 0)
    return { name: 'throughput', title, spec: empty(title, subtitle, 'no drain race in these results') };
  return {
    name: 'throughput',
    title,
    spec: {
      ...base(title, subtitle),
      data: { values: rows },
      encoding: {
        x: { field: 'consumer', type: 'nominal', sort: null, title: null, axis: { labelAngle: 0 } },
      },
      layer: [
        {
          mark: { type: 'bar', tooltip: true },
          encoding: {
            y: { field: 'median', type: 'quantitative', title: 'msgs/s' },
            color: { field: 'consumer', type: 'nominal', legend: null },
          },
        },
        {
          mark: { type: 'rule', strokeWidth: 2 },
          encoding: { y: { field: 'min', type: 'quantitative' }, y2: { field: 'max' } },
        },
        {
          mark: { type: 'text', dy: -8 },
          encoding: {
            y: { field: 'max', type: 'quantitative' },
            text: { field: 'median', type: 'quantitative', format: ',.0f' },
          },
        },
      ],
    },
  };
}

function latency(results: BenchResults, subtitle: string): ChartSpec {
  const rows = results.scenarios.flatMap((scenario) =>
    scenario.consumers.flatMap((consumer) =>
      Object.entries(consumer.metrics).flatMap(([metric, value]) => {
        const percentile = P50.test(metric) ? 'p50' : P99.test(metric) ? 'p99' : undefined;
        return percentile === undefined
          ? []
          : [{ scenario: scenario.id, consumer: consumer.id, percentile, ms: value.median }];
      }),
    ),
  );
  const title = 'Latency, ms (median over runs of each percentile)';
  if (rows.length === 0) {
    return { name: 'latency', title, spec: empty(title, subtitle, 'no latency scenario in these results') };
  }
  return {
    name: 'latency',
    title,
    spec: {
      title: { text: title, subtitle },
      config: { font: FONT },
      background: 'white',
      data: { values: rows },
      facet: { field: 'scenario', type: 'nominal', title: null },
      columns: 2,
      spec: {
        width: WIDTH / 2,
        height: HEIGHT * 0.8,
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x: { field: 'consumer', type: 'nominal', title: null, axis: { labelAngle: -30 } },
          xOffset: { field: 'percentile', type: 'nominal' },
          y: { field: 'ms', type: 'quantitative', title: 'ms' },
          color: { field: 'percentile', type: 'nominal', title: 'percentile' },
        },
      },
    },
  };
}

function rss(results: BenchResults, subtitle: string): ChartSpec {
  const drain = results.scenarios.find((scenario) => scenario.id === 'drain');
  const rows = (drain?.consumers ?? []).flatMap((consumer) =>
    (consumer.series?.rssMiBOverTimeMs ?? []).map(([ms, mib]) => ({
      consumer: consumer.id,
      seconds: ms / 1000,
      mib,
    })),
  );
  const title = 'RSS over time while draining, MiB (one median run per consumer)';
  if (rows.length === 0)
    return { name: 'rss', title, spec: empty(title, subtitle, 'no RSS series in these results') };
  return {
    name: 'rss',
    title,
    spec: {
      ...base(title, subtitle),
      data: { values: rows },
      mark: { type: 'line', interpolate: 'monotone' },
      encoding: {
        x: { field: 'seconds', type: 'quantitative', title: 's since start()' },
        y: { field: 'mib', type: 'quantitative', title: 'RSS (MiB)' },
        color: { field: 'consumer', type: 'nominal', title: 'consumer', legend: { labelLimit: 400 } },
      },
    },
  };
}

function base(title: string, subtitle: string) {
  return {
    title: { text: title, subtitle },
    width: WIDTH,
    height: HEIGHT,
    config: { font: FONT },
    background: 'white',
  };
}

/** A chart that says what is missing. */
function empty(title: string, subtitle: string, text: string): TopLevelSpec {
  return {
    ...base(title, subtitle),
    height: 60,
    data: { values: [{ text }] },
    mark: { type: 'text', fontSize: 14 },
    encoding: { text: { field: 'text', type: 'nominal' } },
  };
}
