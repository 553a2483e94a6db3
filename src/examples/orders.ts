/**
 * Example handler (concurrent mapping): order events as JSON, validated with zod, one record at a time.
 * A record that fails validation or processing is reported in `batchItemFailures` and redelivered;
 * the rest of the batch commits.
 *
 * In your own service the kit comes from its package, `import ... from 'rocketmq-lambda-handler'`;
 * this repository's examples import its source.
 */
import { z } from 'zod';
import { createBatchHandler, type RocketMQRecord, recordJson } from '../handler/index.js';

const Order = z.object({ orderId: z.union([z.string(), z.number()]), total: z.number().nonnegative() });

async function handleOrder(record: RocketMQRecord): Promise<void> {
  const order = recordJson(record, Order);
  console.log(
    JSON.stringify({
      handler: 'orders',
      messageId: record.messageId,
      tags: record.tags,
      orderId: order.orderId,
    }),
  );
}

/** The Lambda entry point: `{ batchItemFailures }` for the records that threw. */
export const handler = createBatchHandler(handleOrder, { concurrency: 4 });
