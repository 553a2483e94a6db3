/**
 * Example handler (orderly mapping): ledger entries must apply in queue order. The batch stops at the
 * first failure; that record and everything after it are retried in order.
 *
 * In your own service the kit comes from its package, `import ... from 'rocketmq-lambda-handler'`;
 * this repository's examples import its source.
 */
import { createBatchHandler, type RocketMQRecord, recordText } from '../handler/index.js';

async function applyEntry(record: RocketMQRecord): Promise<void> {
  console.log(
    JSON.stringify({
      handler: 'ledger',
      queue: `${record.brokerName}#${record.queueId}`,
      offset: record.queueOffset,
      entry: recordText(record),
    }),
  );
}

/** The Lambda entry point, orderly: stops at the first failed record. */
export const handler = createBatchHandler(applyEntry, { orderly: true });
