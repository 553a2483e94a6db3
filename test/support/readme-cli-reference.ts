/**
 * Keeps the README's command-line reference equal to what `rocketmq-lambda <command> --help` prints for
 * every command. `npm run readme:cli` rewrites the README; a unit test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandNames, main, USAGE } from '../../src/cli/main.js';
import { runCaptured } from './fake-cli-io.js';
import { README_PATH, withBlock } from './readme-block.js';

/** What `main` prints on stdout for `argv`. */
async function helpOf(argv: readonly string[]): Promise<string> {
  const { code, out } = await runCaptured((io) => main(argv, io));
  if (code !== 0) throw new Error(`rocketmq-lambda ${argv.join(' ')} exited ${code}`);
  return out;
}

/**
 * The CLI reference: the top-level usage, then each command's help, as fenced blocks.
 *
 * @example
 * ```ts
 * const markdown = await cliReference();
 * ```
 */
export async function cliReference(): Promise<string> {
  const sections = [`\`\`\`text\n${USAGE.trimEnd()}\n\`\`\``];
  for (const name of commandNames()) {
    sections.push(
      `#### \`rocketmq-lambda ${name}\`\n\n\`\`\`text\n${(await helpOf([name, '--help'])).trimEnd()}\n\`\`\``,
    );
  }
  return sections.join('\n\n');
}

/** The README text with its CLI reference block replaced by the current one. */
export async function withCurrentCliReference(readme: string): Promise<string> {
  return withBlock(readme, 'cli-reference', await cliReference());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README_PATH, await withCurrentCliReference(readFileSync(README_PATH, 'utf8')));
}
