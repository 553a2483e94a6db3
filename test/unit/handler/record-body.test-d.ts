/** Type tests, checked by vitest's typecheck (`*.test-d.ts`): what recordJson and parseRecords return. */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { parseRecords } from '../../../src/handler/parse-event.js';
import { recordJson } from '../../../src/handler/record-body.js';
import type { RocketMQEvent, RocketMQRecord } from '../../../src/handler/types.js';

const Order = z.object({
  orderId: z.string(),
  items: z.array(z.object({ sku: z.string(), price: z.number().positive() })),
});

declare const record: RocketMQRecord;
declare const event: RocketMQEvent;

describe('recordJson', () => {
  it('returns unknown without a schema', () => {
    expectTypeOf(recordJson(record)).toEqualTypeOf<unknown>();
  });

  it("returns the schema's output with a schema", () => {
    expectTypeOf(recordJson(record, Order)).toEqualTypeOf<z.output<typeof Order>>();
  });
});

describe('parseRecords', () => {
  it("returns an array of the schema's output", () => {
    expectTypeOf(parseRecords(event, Order)).toEqualTypeOf<z.output<typeof Order>[]>();
  });
});
