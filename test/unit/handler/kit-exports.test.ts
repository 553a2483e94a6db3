// What the kit may import (zod, Node built-ins and its own files) is checked in test/unit/architecture.test.ts.
import { describe, expect, it } from 'vitest';
import * as kit from '../../../src/handler/index.js';

describe('the handler kit', () => {
  it('exports its runtime API from the entry point', () => {
    expect(Object.keys(kit).sort()).toEqual([
      'RocketMQBatchItemFailureSchema',
      'RocketMQBatchResponseSchema',
      'RocketMQEventSchema',
      'RocketMQParseError',
      'RocketMQRecordSchema',
      'RocketMQResponseSchema',
      'RocketMQStatusResponseSchema',
      'createBatchHandler',
      'parseEvent',
      'parseRecords',
      'parseTraceparent',
      'processRocketMQBatch',
      'recordBody',
      'recordJson',
      'recordSpanContext',
      'recordText',
      'rocketmqBatchProcessor',
    ]);
  });
});
