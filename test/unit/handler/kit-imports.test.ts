import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as kit from '../../../src/handler/index.js';

const HANDLER_DIR = join(import.meta.dirname, '../../../src/handler');
/** What code running inside users' functions may import: zod, Node built-ins and the kit's own files. */
const ALLOWED = /^(zod|node:[a-z_/]+|\.\/[a-z-]+\.js)$/;

describe('the handler kit', () => {
  it('imports nothing from the poller, nor middy', () => {
    const files = readdirSync(HANDLER_DIR).filter((file) => file.endsWith('.ts'));
    expect(files).toContain('index.ts');
    const imports = files.flatMap((file) =>
      [
        ...readFileSync(join(HANDLER_DIR, file), 'utf8').matchAll(
          /^(?:import|export)\b[^;]*?from '([^']+)'/gms,
        ),
      ].map((match) => `${file}: ${match[1]}`),
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((line) => !ALLOWED.test(line.split(': ')[1] ?? ''))).toEqual([]);
  });

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
      'processRocketMQBatch',
      'recordBody',
      'recordJson',
      'recordText',
      'rocketmqBatchProcessor',
    ]);
  });
});
