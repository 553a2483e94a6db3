/**
 * The live view of `rocketmq-lambda dev`: one line per mapping (state, queues held, lag, invocations,
 * failed messages), redrawn every second at the bottom of a terminal; as
 * structured log lines (when something changed) when stdout is not a terminal.
 */
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import type { ConsumerLag } from '../consumer/queue-lag.js';
import type { Logger } from '../util/logger.js';

/**
 * One mapping's numbers.
 *
 * @example
 * ```ts
 * const line: MappingLine = { name: 'orders', topic: 'Orders', consumerGroup: 'orders-lambda', state: 'running',
 *   queues: 4, retryQueues: 1, lag: 12, invocations: 3, failures: 0 };
 * ```
 */
export interface MappingLine {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly state: string;
  /** Queues of the topic held. */
  readonly queues: number;
  /** Queues of the group's `%RETRY%` topic held. */
  readonly retryQueues: number;
  /**
   * Messages not yet handled in the held queues (broker max offset minus consumed offset, retry queues
   * included); undefined while it cannot be measured.
   */
  readonly lag: number | undefined;
  readonly invocations: number;
  /** Messages the handler failed. */
  readonly failures: number;
}

/**
 * The line of one mapping from its status, lag and invoke count.
 *
 * @example
 * ```ts
 * mappingLineOf(status, await runtime.lag(), poller.invokeStats().mappings.get(status.name)?.invokes ?? 0);
 * ```
 */
export function mappingLineOf(
  status: ConsumerRuntimeStatus,
  lag: ConsumerLag | undefined,
  invocations: number,
): MappingLine {
  const retryQueues = status.queues.filter((q) => q.queue.topic !== status.topic).length;
  return {
    name: status.name,
    topic: status.topic,
    consumerGroup: status.consumerGroup,
    state: status.state,
    queues: status.queues.length - retryQueues,
    retryQueues,
    lag:
      lag === undefined || (lag.unknownQueues > 0 && lag.unknownQueues === lag.queues.length)
        ? undefined
        : lag.total,
    invocations,
    failures: status.counters.consumedFailed,
  };
}

/**
 * A line as text.
 *
 * @example
 * ```ts
 * formatMappingLine(line);
 * // => 'orders  Orders → orders-lambda  running  queues 4 (+1 retry)  lag 12  invocations 3  failures 0'
 * ```
 */
export function formatMappingLine(line: MappingLine): string {
  const retry = line.retryQueues > 0 ? ` (+${line.retryQueues} retry)` : '';
  const lag = line.lag === undefined ? '?' : String(line.lag);
  return `${line.name}  ${line.topic} → ${line.consumerGroup}  ${line.state}  queues ${line.queues}${retry}  lag ${lag}  invocations ${line.invocations}  failures ${line.failures}`;
}

/** A writable text stream (process.stdout). */
export interface TextStream {
  write: NodeJS.WriteStream['write'];
}

/**
 * Shows the lines: on a terminal, a block kept at the bottom (other writes to the stream erase it first; the
 * next render draws it again); otherwise, a log line per mapping whose numbers changed.
 *
 * @example
 * ```ts
 * const display = new StatusDisplay({ stream: process.stdout, tty: process.stdout.isTTY === true, log });
 * display.render(lines);
 * display.close();
 * ```
 */
export class StatusDisplay {
  readonly #stream: TextStream;
  readonly #tty: boolean;
  readonly #log: Logger;
  readonly #originalWrite: TextStream['write'];
  readonly #last = new Map<string, string>();
  #drawnLines = 0;

  constructor(options: { stream: TextStream; tty: boolean; log: Logger }) {
    this.#stream = options.stream;
    this.#tty = options.tty;
    this.#log = options.log;
    this.#originalWrite = options.stream.write;
    if (this.#tty) {
      const original = this.#originalWrite.bind(options.stream);
      const erase = (): void => this.#erase(original);
      options.stream.write = ((...args: Parameters<TextStream['write']>) => {
        erase();
        return original(...(args as [string]));
      }) as TextStream['write'];
    }
  }

  render(lines: readonly MappingLine[]): void {
    if (!this.#tty) {
      for (const line of lines) {
        const text = formatMappingLine(line);
        if (this.#last.get(line.name) === text) continue;
        this.#last.set(line.name, text);
        this.#log.info({ ...line }, 'mapping status');
      }
      return;
    }
    const write = this.#originalWrite.bind(this.#stream);
    this.#erase(write);
    const text = lines.map((line) => `\x1b[2K${formatMappingLine(line)}`).join('\n');
    write(`${text}\n`);
    this.#drawnLines = lines.length;
  }

  /** Erases the block and gives the stream its own write back. */
  close(): void {
    if (!this.#tty) return;
    this.#erase(this.#originalWrite.bind(this.#stream));
    this.#stream.write = this.#originalWrite;
  }

  #erase(write: (text: string) => unknown): void {
    if (this.#drawnLines === 0) return;
    const lines = this.#drawnLines;
    this.#drawnLines = 0;
    write(`\x1b[${lines}F\x1b[J`);
  }
}
