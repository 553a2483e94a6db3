/**
 * The life of one peer drain child, whatever its client: read the spec, start the client with a
 * {@link DrainMeasurement}, wait for every message (or give up at the spec's deadline with the count so
 * far on stderr), print the `BENCH_RESULT` line, then shut the client down within a bound and exit. The
 * result is printed before the shutdown because a client whose shutdown hangs (long polls in flight)
 * would otherwise turn a finished drain into a timeout; the shutdown is not measured either way.
 */
import { settlesWithin } from '../../src/util/settles-within.js';
import { DrainMeasurement, printDrainResult } from './drain-measurement.js';

const DEFAULT_CLOSE_WAIT_MS = 10_000;

/** What every peer child gets besides its client's address. */
export interface PeerChildBase {
  readonly topic: string;
  readonly group: string;
  readonly expected: number;
  /** The child gives up after this long (from its start), printing how far it got. */
  readonly timeoutMs: number;
  /** After the result, how long the client may take to close before the child exits anyway. @default 10_000 */
  readonly closeWaitMs?: number;
}

/** A started client, as the runner needs it. */
export interface StartedPeerClient {
  close(): Promise<void>;
}

/**
 * Runs the child and exits the process: 0 after a printed result, 1 on failure or at the deadline.
 * `start` constructs and starts the client, its listener calling `measurement.count`; it runs right
 * after `measurement.started()`.
 *
 * @example
 * ```ts
 * runPeerChild(spec, async (measurement) => {
 *   const consumer = await startMyConsumer(spec, (n) => measurement.count(n));
 *   return { close: () => consumer.shutdown() };
 * });
 * ```
 */
export function runPeerChild(
  spec: PeerChildBase,
  start: (measurement: DrainMeasurement) => Promise<StartedPeerClient>,
): void {
  const measurement = new DrainMeasurement(spec.expected);
  let deadline: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    deadline = setTimeout(
      () =>
        reject(
          new Error(
            `received ${measurement.received} of ${spec.expected} messages within ${spec.timeoutMs} ms`,
          ),
        ),
      spec.timeoutMs,
    );
  });
  const run = async (): Promise<void> => {
    measurement.started();
    const client = await start(measurement);
    await measurement.done;
    clearTimeout(deadline);
    printDrainResult(measurement.finish());
    const closed = client.close().catch((error: unknown) => {
      console.error('closing the client failed (after the result):', error);
    });
    const closeWaitMs = spec.closeWaitMs ?? DEFAULT_CLOSE_WAIT_MS;
    if (!(await settlesWithin(closed, closeWaitMs))) {
      console.error(`the client did not close within ${closeWaitMs} ms (after the result)`);
    }
  };
  Promise.race([run(), timedOut]).then(
    () => process.exit(0),
    (error: unknown) => {
      clearTimeout(deadline);
      measurement.stop();
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    },
  );
}

/**
 * Parses the child's only argument (JSON) as its spec; throws naming what is missing.
 *
 * @example
 * ```ts
 * const spec = parsePeerChildSpec<{ namesrvAddr: string }>(process.argv[2], ['namesrvAddr']);
 * ```
 */
export function parsePeerChildSpec<Extra extends object>(
  argument: string | undefined,
  extraKeys: readonly (keyof Extra & string)[],
): PeerChildBase & Extra {
  const parsed: unknown = JSON.parse(argument ?? '');
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`not a spec: ${String(argument)}`);
  for (const key of ['topic', 'group', 'expected', 'timeoutMs', ...extraKeys]) {
    if (!(key in parsed)) throw new Error(`the spec has no ${key}: ${String(argument)}`);
  }
  return parsed as PeerChildBase & Extra;
}
