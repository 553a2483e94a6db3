/**
 * The README's generated blocks: text between `<!-- <name>:start -->` and `<!-- <name>:end -->` that a
 * generator owns (the config reference, the CLI reference, the metrics reference). Each generator script
 * rewrites its block; a unit test fails while a block differs from what its generator gives.
 */
import { fileURLToPath } from 'node:url';

export const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));

/**
 * `readme` with the block `name` replaced by `content`.
 *
 * @example
 * ```ts
 * withBlock(readme, 'cli-reference', cliReference());
 * ```
 */
export function withBlock(readme: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md lacks the ${start} ... ${end} markers`);
  return `${readme.slice(0, from + start.length)}\n${content.trimEnd()}\n${readme.slice(to)}`;
}
