/**
 * The metrics reference for the README, rendered from a live registry (names, types, labels, help) and
 * the catalog's notes, and from the EMF metric list, so the documentation cannot drift from what the
 * poller exposes.
 */
import { EMF_METRICS } from './emf-document.js';
import { LAG_METRIC } from './lag-metric.js';
import { METRICS, type MetricDefinition } from './metric-catalog.js';
import { PollerMetrics } from './poller-metrics.js';
import { GC_DURATION_BUCKETS, RUNTIME_METRIC_PREFIX } from './process-metrics.js';

/**
 * The Markdown of the README's metrics section (below its heading): the outputs, the EMF metrics, the
 * HTTP endpoints and every Prometheus metric.
 */
export function metricsReference(): string {
  const registry = new PollerMetrics({ running: () => true, health: () => ({ healthy: true, problems: [] }) })
    .registry;
  const notes = new Map<string, MetricDefinition>(
    Object.values(METRICS).map((definition) => [definition.name, definition]),
  );
  const order = [...notes.keys()];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const metrics = registry.getMetricsAsArray().sort((a, b) => rank(a.name) - rank(b.name));
  const rows = metrics.map((metric) => {
    const definition = notes.get(metric.name);
    const labels = (definition?.labels ?? []).map((label) => `\`${label}\``).join(', ') || '—';
    const text = [metric.help, definition?.notes].filter((part) => part !== undefined).join(' ');
    return `| \`${metric.name}\` | ${String(metric.type)} | ${labels} | ${cell(text)} |`;
  });
  const emfRows = Object.values(EMF_METRICS).map(
    (metric) => `| \`${metric.name}\` | ${metric.unit} | ${cell(metric.description)} |`,
  );
  return [
    'Every poller keeps one registry of metrics and has three outputs, all off unless configured (`metrics` in',
    'the [configuration reference](#configuration-reference)):',
    '',
    `- \`metrics: { emf: {} }\`: every 60 s (\`intervalSeconds\`), one CloudWatch Embedded Metric Format line per consumer group on stdout, namespace \`${LAG_METRIC.namespace}\`, dimension \`${LAG_METRIC.dimension}\`. The awslogs log driver ships it to CloudWatch Logs, which extracts the metrics: no CloudWatch permission needed. The deploy templates turn it on; the scaling policy, alarms and dashboard read these names. Counts are deltas since the previous line; a graceful stop writes a last line with the counts only.`,
    '- `metrics: { prometheus: { port: 9464 } }`: an HTTP server (`host` defaults to `127.0.0.1`, loopback; set `0.0.0.0` for anything outside the network namespace of the task or pod) with `GET /metrics` (Prometheus text format), `GET /healthz` (200 while the process serves: liveness) and `GET /readyz` (200 when every mapping runs and is healthy, else 503 with `{"ready": false, "problems": [...], "mappings": [...]}`: the consume state of each mapping, e.g. `topic_missing` naming the topic; the same verdict as `rocketmq-lambda health`). `/metrics` also carries the Node.js runtime metrics and `rocketmq_lambda_build_info`.',
    `- \`metrics: { cloudwatch: {} }\`: only \`${LAG_METRIC.metricName}\`, published with PutMetricData (needs \`cloudwatch:PutMetricData\`), for log drivers that are not CloudWatch Logs.`,
    '',
    '**EMF metrics** (per consumer group):',
    '',
    '| Metric | Unit | Value |',
    '|---|---|---|',
    ...emfRows,
    '',
    "**Prometheus metrics** (`queue` is `<broker>@<queueId>`; `topic` may be the group's `%RETRY%` topic):",
    '',
    '| Metric | Type | Labels | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    `**Node.js runtime metrics** (\`/metrics\` only, one set per process): prom-client's default metrics under their standard names (no \`rocketmq_lambda_\` prefix, so stock Node.js dashboards work), among them ${RUNTIME_EXAMPLES.map((name) => `\`${RUNTIME_METRIC_PREFIX}${name}\``).join(', ')}. \`nodejs_eventloop_lag_seconds\` is the lag measured at the scrape; the \`nodejs_eventloop_lag_p50/p90/p99/max_seconds\` gauges cover the whole life of the process. GC buckets: ${GC_DURATION_BUCKETS.join(', ')} s. Linux adds \`process_open_fds\`, \`process_max_fds\`, \`process_virtual_memory_bytes\` and \`process_heap_bytes\`.`,
    '',
  ].join('\n');
}

/** Runtime metrics the reference names (without the prefix): what an SRE looks at first. */
const RUNTIME_EXAMPLES = [
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_gc_duration_seconds{kind}',
  'nodejs_active_handles_total',
  'nodejs_version_info',
] as const;

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
