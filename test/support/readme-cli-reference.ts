/**
 * Keeps the README's command-line reference equal to what `rocketmq-lambda <command> --help` prints for
 * every command and subcommand, with the one exit-code table of every command (src/cli/exit-codes.ts).
 * `npm run readme:cli` rewrites the README; a unit test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../src/cli/command-table.js';
import { EXIT_CODE_RULES, EXIT_CODE_TABLE } from '../../src/cli/exit-codes.js';
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
  const sections = [`\`\`\`text\n${USAGE.trimEnd()}\n\`\`\``, exitCodeTable()];
  for (const name of commandNames()) {
    const node = COMMANDS[name];
    const argvs = [[name]];
    if (node !== undefined && 'subcommands' in node) {
      argvs.push(...Object.keys(node.subcommands).map((sub) => [name, sub]));
    }
    for (const argv of argvs) {
      sections.push(
        `#### \`rocketmq-lambda ${argv.join(' ')}\`\n\n\`\`\`text\n${(await helpOf([...argv, '--help'])).trimEnd()}\n\`\`\``,
      );
    }
  }
  return sections.join('\n\n');
}

/** The exit codes every command shares, as a Markdown table, and the rules beside it. */
function exitCodeTable(): string {
  const rows = Object.entries(EXIT_CODE_TABLE).map(([code, meaning]) => `| ${code} | ${meaning} |`);
  return [
    '#### Exit codes',
    '',
    'The same code for the same situation in every command (each help lists those it uses):',
    '',
    '| code | meaning |',
    '|---|---|',
    ...rows,
    '',
    ...EXIT_CODE_RULES.map((rule) => `- ${rule}`),
  ].join('\n');
}

/** The README text with its CLI reference block replaced by the current one. */
export async function withCurrentCliReference(readme: string): Promise<string> {
  return withBlock(readme, 'cli-reference', await cliReference());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README_PATH, await withCurrentCliReference(readFileSync(README_PATH, 'utf8')));
}
