/**
 * The `metrics` config key: the outputs of the poller's metrics. `emf` writes CloudWatch Embedded Metric
 * Format lines to stdout (the lag the poller service's autoscaling tracks, and the alarms' metrics);
 * `cloudwatch` publishes the lag with PutMetricData instead (log drivers that are not CloudWatch Logs);
 * `prometheus` serves `/metrics`, `/healthz` and `/readyz` over HTTP. All are off unless present.
 */
import { z } from 'zod';
import { LAG_METRIC } from '../metrics/lag-metric.js';
import { endpointUrl, info, text } from './schema-meta.js';

/** Defaults of the keys `metrics.emf` and `metrics.cloudwatch` share. */
export const CLOUDWATCH_OUTPUT_DEFAULTS = {
  namespace: LAG_METRIC.namespace,
  /** The scaling policy reads one-minute averages: at least one value a minute. */
  intervalSeconds: 60,
} as const;

/** Defaults of the `metrics.prometheus` keys. */
export const PROMETHEUS_METRICS_DEFAULTS = {
  /**
   * Loopback: whoever reaches the port reads the metrics and the readiness problems, so nobody else does
   * unless asked. A scraper or sidecar in the same ECS task (awsvpc) or pod shares the loopback interface;
   * anything outside the task's or pod's network namespace (another pod or host, a kubelet probe, ECS bridge
   * mode) needs `0.0.0.0` (and a security group deciding who gets in).
   */
  host: '127.0.0.1',
} as const;

/** `namespace` of an output to CloudWatch (`emf`, `cloudwatch`): what uses the default differs. */
function namespaceKey(description: string) {
  return text()
    .optional()
    .meta(info({ description, default: CLOUDWATCH_OUTPUT_DEFAULTS.namespace }));
}

/** `intervalSeconds` of an output to CloudWatch (`emf`, `cloudwatch`). */
function intervalSecondsKey(description: string) {
  return z
    .number()
    .int()
    .min(1)
    .max(3600)
    .optional()
    .meta(info({ description, default: CLOUDWATCH_OUTPUT_DEFAULTS.intervalSeconds }));
}

/**
 * The top-level `metrics` key.
 */
export const metricsSchema = z
  .strictObject({
    emf: z
      .strictObject({
        namespace: namespaceKey(
          'The CloudWatch namespace (the generated scaling policy, alarms and dashboard use the default).',
        ),
        intervalSeconds: intervalSecondsKey(
          'Seconds between two lines per consumer group (the scaling policy needs at least one a minute).',
        ),
      })
      .optional()
      .meta(
        info({
          description: `When present (\`{}\` will do), write one CloudWatch Embedded Metric Format line per consumer group to stdout every interval: \`${LAG_METRIC.metricName}\` (what the autoscaling tracks), \`OldestMessageAge\`, \`Invocations\`, \`InvokeErrors\`, \`Throttles\`, \`SentBack\`, \`DeadLettered\`, \`FilteredOut\`, \`DeadLetterDepth\` (messages stored in the group's DLQ), \`Unhealthy\`, \`CannotConsume\` (a mapping whose topic or group is missing, whose subscription is refused or that is assigned nothing) (dimension \`${LAG_METRIC.dimension}\`). The awslogs log driver turns them into metrics: no CloudWatch permission needed. See [Metrics](#metrics).`,
          defaultText: 'off',
        }),
      ),
    prometheus: z
      .strictObject({
        port: z
          .number()
          .int()
          .min(0)
          .max(65_535)
          .meta(info({ description: 'TCP port of the HTTP server (0 picks a free one, logged).' })),
        host: text()
          .optional()
          .meta(
            info({
              description:
                "Address the HTTP server listens on. Loopback by default: a scraper or sidecar in the same ECS task or pod reaches it there; set `0.0.0.0` for anything outside the task's or pod's network namespace (another pod or host, a kubelet probe, ECS bridge mode), and let a security group decide who gets in.",
              default: PROMETHEUS_METRICS_DEFAULTS.host,
            }),
          ),
      })
      .optional()
      .meta(
        info({
          description:
            'When present, serve `/metrics` (Prometheus text format), `/healthz` (200 while the process serves) and `/readyz` (200 when every mapping runs and is healthy, else 503 with the problems as JSON) over HTTP: GET and HEAD only, request bodies never read, at most 64 connections, headers within 5 s and 8 KiB, idle connections closed after 15 s. See [Metrics](#metrics).',
          defaultText: 'off',
        }),
      ),
    cloudwatch: z
      .strictObject({
        namespace: namespaceKey(
          'The CloudWatch namespace (the generated scaling policy and task role use the default).',
        ),
        intervalSeconds: intervalSecondsKey(
          'Seconds between two publishes (the scaling policy needs at least one a minute).',
        ),
        region: text()
          .optional()
          .meta(
            info({
              description: 'AWS region of CloudWatch. Filled from `AWS_REGION` when absent.',
              defaultText: "`AWS_REGION`, else the SDK's default chain (`us-east-1` when `endpoint` is set)",
            }),
          ),
        endpoint: endpointUrl()
          .optional()
          .meta(
            info({
              description:
                'Another CloudWatch API endpoint (a local emulator). Filled from `AWS_ENDPOINT_URL_CLOUDWATCH` when absent.',
              defaultText: '`AWS_ENDPOINT_URL_CLOUDWATCH`, else AWS',
            }),
          ),
      })
      .optional()
      .meta(
        info({
          description: `When present (\`{}\` will do), publish \`${LAG_METRIC.namespace}/${LAG_METRIC.metricName}\` (dimension \`${LAG_METRIC.dimension}\`) with PutMetricData: per consumer group, the lag of the queues this poller holds (broker max offset minus consumed offset), which the service's autoscaling tracks. The alternative to \`emf\` where the log driver is not CloudWatch Logs; needs \`cloudwatch:PutMetricData\`.`,
          defaultText: 'off',
        }),
      ),
  })
  .optional()
  .meta(info({ description: 'Metrics the poller publishes.', defaultText: 'none' }));
