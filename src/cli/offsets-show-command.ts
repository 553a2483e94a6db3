/**
 * `rocketmq-lambda offsets show`: the committed offsets of each mapping (or of --mapping), per queue,
 * printed as `status` prints them. A consumeMode POP mapping has none (the brokers keep its group's
 * position): refused when --mapping names it, skipped with a note otherwise.
 */
import { popOffsetsRefusal } from '../operations/pop-offsets-refusal.js';
import { readPushQueuePositions } from '../operations/push-queue-positions.js';
import { type CommandHelp, declareCommand, parseArgs } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE } from './exit-codes.js';
import { reportUnreachable } from './status-command.js';
import { statusJson, statusTable } from './status-render.js';
import { declareTargetOptions, type TargetOptionValues, withTarget } from './target-options.js';
import { terminalStyle } from './terminal-style.js';

/** What `offsets show --help` says beyond its options. */
export const OFFSETS_SHOW_HELP: CommandHelp = {
  name: 'offsets show',
  description: `Shows the committed offsets of each mapping (or of --mapping), per queue, with the broker's min and max offsets, the lag, the offset generation and the poller holding the queue. A consumeMode POP mapping has none (the broker keeps its group's position; see it with status): refused when --mapping names it, skipped with a note otherwise.`,
  examples: [
    'rocketmq-lambda offsets show --config poller.yaml',
    'rocketmq-lambda offsets show --mapping orders --json',
  ],
  exitCodes: {
    [EXIT_FAILURE]: 'a broker or the offset store could not be read, or every mapping shown is a POP mapping',
  },
};

/** Runs `offsets show` with the arguments after `show`; resolves with the exit code. */
export const offsetsShowCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  const command = declareTargetOptions(declareCommand(OFFSETS_SHOW_HELP, io)).option('--json', 'JSON output');
  const { options } = parseArgs<TargetOptionValues & { json?: boolean }>(command, args);
  return withTarget(command, options, io, async (target, selected) => {
    // A POP mapping has no committed offsets: refused when named, skipped (with the reason) otherwise.
    const mappings = selected.filter((m) => popOffsetsRefusal(m) === undefined);
    const verdict = mappings.length === 0 ? 'refused' : 'skipped';
    for (const m of selected) {
      const refusal = popOffsetsRefusal(m);
      if (refusal !== undefined) io.stderr.write(`${command.name()}: ${verdict}: ${refusal}\n`);
    }
    if (mappings.length === 0 && selected.length > 0) return EXIT_FAILURE;
    const snapshots = await Promise.all(
      mappings.map((m) =>
        readPushQueuePositions(target.client, m, target.offsetStore(m), { messageAges: false }),
      ),
    );
    const nowMs = Date.now();
    if (options.json === true)
      io.stdout.write(`${JSON.stringify(statusJson(target.source, snapshots, nowMs))}\n`);
    else
      io.stdout.write(statusTable(snapshots, nowMs, terminalStyle(io.stdout as { isTTY?: boolean }, io.env)));
    return reportUnreachable(command, snapshots, io);
  });
});
