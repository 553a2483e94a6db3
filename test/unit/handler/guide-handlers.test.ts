/**
 * The guide's handlers run the way the poller runs them: the serialized event through the LocalInvoker
 * (a JSON round trip and Lambda's calling convention), the response through the poller's result mapper.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { serializeEvent } from '../../../src/invoke/event-builder.js';
import { LocalInvoker } from '../../../src/invoke/local-invoker.js';
import { mapFunctionResult } from '../../../src/invoke/result-mapper.js';
import { consumed } from '../invoke/consumed-message.js';

const invoker = new LocalInvoker({
  baseDir: fileURLToPath(new URL('../../fixtures/handler-kit/', import.meta.url)),
});
afterAll(() => invoker.close());

const BODIES = [
  '{"orderId":"a","amount":5}',
  '{"orderId":"b","amount":-1}',
  '{"orderId":"c","amount":7}',
  'not json',
  '{"orderId":"e","amount":"9"}',
  '{"orderId":"f","amount":1}',
];

const batch: ConsumedMessage[] = BODIES.map((body, i) =>
  consumed({ msgId: `m-${i}`, queueOffset: i, body: Buffer.from(body), properties: { UNIQ_KEY: `m-${i}` } }),
);

async function run(exportName: string) {
  const outcome = await invoker.invoke({
    functionRef: `local:./orders.ts#${exportName}`,
    payload: serializeEvent('orders-consumer', batch),
  });
  return mapFunctionResult(
    outcome,
    batch.map((m) => ({ messageId: m.message.msgId })),
  );
}

describe('the handlers of the guide, invoked like the poller invokes them', () => {
  it.each(['handler', 'plain', 'withMiddy', 'withPowertools'])(
    '%s fails exactly the bad orders',
    async (name) => {
      expect(await run(name)).toMatchObject({ status: 'PARTIAL', failedIndexes: [1, 3, 4] });
    },
  );

  it('orderly: commits the orders before the first bad one and retries the rest', async () => {
    expect(await run('orderly')).toMatchObject({ status: 'PARTIAL', failedIndexes: [1, 2, 3, 4, 5] });
  });
});
