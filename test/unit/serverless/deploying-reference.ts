/**
 * Keeps the reference tables of docs/deploying.md equal to the ones generated from the plugin's schemas
 * (`customReference()`, `eventReference()`). Run it to rewrite the doc:
 *
 *   npx tsx test/unit/serverless/deploying-reference.ts
 *
 * A unit test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { customReference, eventReference } from '../../../src/serverless/plugin-reference.js';

/** docs/deploying.md. */
export const DEPLOYING_DOC_PATH = fileURLToPath(new URL('../../../docs/deploying.md', import.meta.url));

/** The generated blocks of the doc: marker name → the table between its markers. */
const BLOCKS: Readonly<Record<string, () => string>> = {
  'custom-rocketmq-reference': customReference,
  'rocketmq-event-reference': eventReference,
};

/**
 * The doc with every generated block replaced by its current table.
 *
 * @example
 * ```ts
 * writeFileSync(DEPLOYING_DOC_PATH, withCurrentReferences(readFileSync(DEPLOYING_DOC_PATH, 'utf8')));
 * ```
 */
export function withCurrentReferences(doc: string): string {
  let text = doc;
  for (const [name, render] of Object.entries(BLOCKS)) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/deploying.md lacks the ${start} ... ${end} markers`);
    text = `${text.slice(0, from + start.length)}\n${render().trimEnd()}\n${text.slice(to)}`;
  }
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DEPLOYING_DOC_PATH, withCurrentReferences(readFileSync(DEPLOYING_DOC_PATH, 'utf8')));
}
