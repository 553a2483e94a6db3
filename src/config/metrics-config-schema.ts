/**
 * The `metrics` config key: where the poller publishes its lag metric (CloudWatch), which the poller
 * service's autoscaling tracks.
 */
import { z } from 'zod';
import { LAG_METRIC } from '../metrics/lag-metric.js';
import { endpointUrl, info, text } from './schema-meta.js';

/** Defaults of the `metrics.cloudwatch` keys. */
export const CLOUDWATCH_METRICS_DEFAULTS = {
  namespace: LAG_METRIC.namespace,
  /** The scaling policy reads one-minute averages: publish at least once a minute. */
  intervalSeconds: 60,
} as const;

/**
 * The top-level `metrics` key.
 *
 * @example
 * ```ts
 * metricsSchema.parse({ cloudwatch: { intervalSeconds: 30 } });
 * ```
 */
export const metricsSchema = z
  .strictObject({
    cloudwatch: z
      .strictObject({
        namespace: text()
          .optional()
          .meta(
            info({
              description:
                'The CloudWatch namespace (the generated scaling policy and task role use the default).',
              default: CLOUDWATCH_METRICS_DEFAULTS.namespace,
            }),
          ),
        intervalSeconds: z
          .number()
          .int()
          .min(1)
          .max(3600)
          .optional()
          .meta(
            info({
              description: 'Seconds between two publishes (the scaling policy needs at least one a minute).',
              default: CLOUDWATCH_METRICS_DEFAULTS.intervalSeconds,
            }),
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
          description: `When present (\`{}\` will do), publish \`${LAG_METRIC.namespace}/${LAG_METRIC.metricName}\` (dimension \`${LAG_METRIC.dimension}\`): per consumer group, the lag of the queues this poller holds (broker max offset minus consumed offset), which the service's autoscaling tracks.`,
          defaultText: 'off',
        }),
      ),
  })
  .optional()
  .meta(info({ description: 'Metrics the poller publishes.', defaultText: 'none' }));
