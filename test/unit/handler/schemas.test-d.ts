/** Type tests, checked by vitest's typecheck (`*.test-d.ts`): the zod schemas and the contract types agree. */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  RocketMQBatchResponseSchema,
  RocketMQEventSchema,
  RocketMQRecordSchema,
  RocketMQResponseSchema,
  RocketMQStatusResponseSchema,
} from '../../../src/handler/schemas.js';
import type {
  RocketMQBatchResponse,
  RocketMQEvent,
  RocketMQRecord,
  RocketMQResponse,
  RocketMQStatusResponse,
} from '../../../src/handler/types.js';

describe('schemas and types agree', () => {
  it('infers the contract types, assignable both ways', () => {
    expectTypeOf<z.infer<typeof RocketMQEventSchema>>().toExtend<RocketMQEvent>();
    expectTypeOf<RocketMQEvent>().toExtend<z.infer<typeof RocketMQEventSchema>>();
    expectTypeOf<z.infer<typeof RocketMQRecordSchema>>().toExtend<RocketMQRecord>();
    expectTypeOf<RocketMQRecord>().toExtend<z.infer<typeof RocketMQRecordSchema>>();
    expectTypeOf<z.infer<typeof RocketMQBatchResponseSchema>>().toExtend<RocketMQBatchResponse>();
    expectTypeOf<RocketMQBatchResponse>().toExtend<z.infer<typeof RocketMQBatchResponseSchema>>();
    expectTypeOf<z.infer<typeof RocketMQStatusResponseSchema>>().toExtend<RocketMQStatusResponse>();
    expectTypeOf<RocketMQStatusResponse>().toExtend<z.infer<typeof RocketMQStatusResponseSchema>>();
    expectTypeOf<z.infer<typeof RocketMQResponseSchema>>().toExtend<RocketMQResponse>();
    expectTypeOf<RocketMQResponse>().toExtend<z.infer<typeof RocketMQResponseSchema>>();
  });
});
