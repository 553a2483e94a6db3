/**
 * The config keys about AWS services besides the offsets table: `lambda` (the Invoke API's region and
 * endpoint) and `destinations` (the SQS/SNS endpoint of `onFailure` records). Credentials come from the
 * SDK's standard chain; an endpoint on loopback needs none (util/local-endpoint-credentials.ts).
 */
import { z } from 'zod';
import { endpointUrl, info, text } from './schema-meta.js';

/**
 * The top-level `lambda` key: how Lambda functions are invoked.
 */
export const lambdaSchema = z
  .strictObject({
    region: text()
      .optional()
      .meta(
        info({
          description:
            'AWS region of functions named without a full ARN (a full ARN names its own region). Filled from `AWS_REGION` when absent.',
          defaultText: "`AWS_REGION`, else the SDK's default chain (`us-east-1` when `endpoint` is set)",
        }),
      ),
    endpoint: endpointUrl()
      .optional()
      .meta(
        info({
          description:
            'Another Lambda Invoke API endpoint (serverless-offline, a local Lambda API). Filled from `AWS_ENDPOINT_URL_LAMBDA` when absent. On loopback, no AWS credentials are needed (placeholders when the chain has none).',
          defaultText: '`AWS_ENDPOINT_URL_LAMBDA`, else AWS',
        }),
      ),
  })
  .optional()
  .meta(
    info({
      description:
        'How Lambda functions are invoked (credentials come from the standard AWS chain; an endpoint on loopback needs none). Read only by mappings whose `function` is a Lambda function.',
      defaultText: 'from the environment',
    }),
  );

/**
 * The top-level `destinations` key: where `onFailure` records are sent.
 */
export const destinationsSchema = z
  .strictObject({
    endpoint: endpointUrl()
      .optional()
      .meta(
        info({
          description:
            'One endpoint for SQS, SNS and S3 (a local emulator; S3 is addressed path-style). Without it, `AWS_ENDPOINT_URL_SQS`, `AWS_ENDPOINT_URL_SNS` and `AWS_ENDPOINT_URL_S3` apply per service. On loopback, no AWS credentials are needed.',
          defaultText: '`AWS_ENDPOINT_URL_SQS` / `_SNS` / `_S3`, else AWS',
        }),
      ),
  })
  .optional()
  .meta(
    info({
      description:
        "Where `onFailure` records are sent (an SQS queue's or SNS topic's region comes from its ARN, an S3 bucket's from S3 itself).",
      defaultText: 'from the environment',
    }),
  );
