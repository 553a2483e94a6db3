import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { customReference, eventReference } from '../../../src/serverless/plugin-reference.js';
import { rocketmqCustomSchema } from '../../../src/serverless/rocketmq-custom-schema.js';
import { rocketmqEventSchema } from '../../../src/serverless/rocketmq-event-schema.js';
import { DEPLOYING_DOC_PATH, withCurrentReferences } from './deploying-reference.js';

/** Keys found by walking the zod schema itself (intrinsic alternatives are values, not keys). */
function zodKeys(schema: z.ZodType, prefix: string): string[] {
  if (schema instanceof z.ZodOptional) return zodKeys(schema.unwrap() as z.ZodType, prefix);
  if (schema instanceof z.ZodArray) return zodKeys(schema.element as z.ZodType, `${prefix}[]`);
  if (schema instanceof z.ZodUnion) {
    return (schema.options as readonly z.ZodType[]).flatMap((option) => zodKeys(option, prefix));
  }
  if (schema instanceof z.ZodObject) {
    const entries = Object.entries(schema.shape as Record<string, z.ZodType>);
    const [first] = entries;
    if (entries.length === 1 && first !== undefined && (first[0] === 'Ref' || first[0].startsWith('Fn::')))
      return [];
    return entries.flatMap(([key, child]) => {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      return [path, ...zodKeys(child, path)];
    });
  }
  return [];
}

function listedKeys(table: string): string[] {
  return [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1] ?? '');
}

describe('docs/deploying.md reference tables', () => {
  it('list every key of custom.rocketmq and of the rocketmq event, once, in schema order', () => {
    expect(listedKeys(customReference())).toEqual(zodKeys(rocketmqCustomSchema, ''));
    expect(listedKeys(eventReference())).toEqual(zodKeys(rocketmqEventSchema, ''));
  });

  it('give every key a description', () => {
    for (const row of [...customReference().split('\n'), ...eventReference().split('\n')].slice(2)) {
      if (row === '' || row.startsWith('|---') || row.startsWith('| Key')) continue;
      expect(row.split(' | ').at(-1), row).toMatch(/\w/);
    }
  });

  it('are what the doc shows (rewrite with `npx tsx test/unit/serverless/deploying-reference.ts`)', () => {
    const doc = readFileSync(DEPLOYING_DOC_PATH, 'utf8');
    expect(doc).toBe(withCurrentReferences(doc));
  });
});
