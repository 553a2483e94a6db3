/**
 * `custom.rocketmq.alarms` and `custom.rocketmq.dashboard`: the CloudWatch alarms per consumer group and
 * the dashboard of the poller service (built by poller-alarms.ts and poller-dashboard.ts). Part of the
 * closed schema of `custom.rocketmq`.
 *
 * ```yaml
 * custom:
 *   rocketmq:
 *     alarms:
 *       topicArn: arn:aws:sns:eu-west-1:123456789012:rocketmq-alarms
 *       messageAgeSeconds: 600
 *     dashboard: true
 * ```
 */
import { z } from 'zod';
import { info } from '../config/schema-meta.js';
import { cfnIntrinsicSchema } from './cfn-intrinsic.js';

/**
 * Defaults of the alarm and dashboard keys.
 */
export const ALARM_DEFAULTS = {
  alarms: true,
  /**
   * Seconds the oldest message of a group may wait, 5 minutes running, before the age alarm fires; raised
   * to the longest invoke (batching window + function timeout) plus a minute when that is longer.
   */
  messageAgeSeconds: 300,
  dashboard: true,
} as const;

/**
 * Bounds of `alarms.messageAgeSeconds`: one alarm period, up to a week (older messages are better caught
 * by `maxRecordAge`).
 */
export const MESSAGE_AGE_LIMITS = { min: 60, max: 604_800 } as const;

/** CloudWatch takes at most 5 actions per alarm state. */
const MAX_ALARM_ACTIONS = 5;

/** An SNS topic ARN. */
const SNS_TOPIC_ARN = /^arn:aws[a-zA-Z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

const alarmTopicArn = z.union(
  [z.string().regex(SNS_TOPIC_ARN, { error: 'must be an SNS topic ARN' }), cfnIntrinsicSchema],
  { error: 'must be an SNS topic ARN, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join' },
);

/**
 * The schema of `custom.rocketmq.alarms`.
 */
export const alarmsSchema = z
  .union(
    [
      z.boolean(),
      z.strictObject({
        topicArn: z
          .union([alarmTopicArn, z.array(alarmTopicArn).min(1).max(MAX_ALARM_ACTIONS)], {
            error: `must be an SNS topic ARN or a list of up to ${MAX_ALARM_ACTIONS}`,
          })
          .optional()
          .meta(
            info({
              description: `SNS topics (up to ${MAX_ALARM_ACTIONS}) told when an alarm goes to ALARM and back to OK.`,
              defaultText: 'none (the alarms only show in the console)',
            }),
          ),
        messageAgeSeconds: z
          .number()
          .int()
          .min(MESSAGE_AGE_LIMITS.min)
          .max(MESSAGE_AGE_LIMITS.max)
          .optional()
          .meta(
            info({
              description:
                "The message age alarm fires when a group's oldest unconsumed message has been older than this for 5 minutes running: a backlog that does not drain, not one slow batch. A message waits up to the batching window plus the function's timeout in a healthy flow, so keep it above that.",
              defaultText: `${ALARM_DEFAULTS.messageAgeSeconds}; when a mapping's \`maximumBatchingWindow\` + function timeout + 10 s is longer, that plus 60, rounded up to a minute`,
            }),
          ),
      }),
    ],
    { error: 'must be true, false or { topicArn, messageAgeSeconds }' },
  )
  .optional()
  .meta(
    info({
      description:
        'CloudWatch alarms per consumer group: messages dead-lettered in a minute; the oldest message older than `messageAgeSeconds`; a poller unhealthy, or none publishing, for 3 minutes; a poller that cannot consume (topic or group missing, subscription refused, no queue assigned) for 2 minutes. `false`: none.',
      default: ALARM_DEFAULTS.alarms,
    }),
  );

/**
 * The schema of `custom.rocketmq.dashboard`.
 */
export const dashboardSchema = z
  .boolean()
  .optional()
  .meta(
    info({
      description:
        'A CloudWatch dashboard of the service: lag, oldest message age, invokes, errors and throttles, sent back and dead-lettered, dead letters stored, unhealthy pollers, tasks, CPU and memory. `false`: none.',
      default: ALARM_DEFAULTS.dashboard,
    }),
  );

/**
 * `custom.rocketmq.alarms`: on or off, or where to send them and the message age threshold.
 */
export type RocketMQAlarmOptions = z.output<typeof alarmsSchema>;
