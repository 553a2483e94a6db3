/**
 * The live view of `rocketmq-lambda dev`: one line per mapping (state, queues held, messages consumed and
 * failed, lag, invocations and how long ago the last one was), redrawn every second at the bottom of a
 * terminal; as
 * structured log lines (when something changed) when stdout is not a terminal.
 */
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import type { ConsumerLag } from '../metrics/queue-lag.js';
import type { Logger } from '../util/logger.js';

/**
 * One mapping's numbers.
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
  /** Messages the handler succeeded on. */
  readonly consumed: number;
  /** Messages the handler failed. */
  readonly failures: number;
  /** When the invocation count last grew (epoch ms), as far as the display saw; undefined before the first. */
  readonly lastInvokeAtMs: number | undefined;
}

/**
 * The line of one mapping from its status, lag, invoke count and when that count last grew.
 */
export function mappingLineOf(
  status: ConsumerRuntimeStatus,
  lag: ConsumerLag | undefined,
  invocations: number,
  lastInvokeAtMs?: number | undefined,
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
    consumed: status.counters.consumedOk,
    failures: status.counters.consumedFailed,
    lastInvokeAtMs,
  };
}

/**
 * Remembers, per mapping, when its invocation count was last seen to grow (the listener counts invokes but
 * keeps no time).
 */
export class LastInvokeTracker {
  readonly #seen = new Map<string, { invocations: number; atMs: number | undefined }>();

  /** The time the count of `name` last grew, given its count now; undefined while it is 0. */
  observe(name: string, invocations: number, nowMs: number = Date.now()): number | undefined {
    const previous = this.#seen.get(name);
    if (previous !== undefined && previous.invocations === invocations) return previous.atMs;
    const atMs = invocations === 0 ? undefined : nowMs;
    this.#seen.set(name, { invocations, atMs });
    return atMs;
  }
}

/**
 * A line as text, the last invocation's age taken at `nowMs`.
 */
export function formatMappingLine(line: MappingLine, nowMs: number = Date.now()): string {
  const retry = line.retryQueues > 0 ? ` (+${line.retryQueues} retry)` : '';
  const lag = line.lag === undefined ? '?' : String(line.lag);
  const last =
    line.lastInvokeAtMs === undefined ? '' : ` (last ${formatAge(nowMs - line.lastInvokeAtMs)} ago)`;
  return `${line.name}  ${line.topic} → ${line.consumerGroup}  ${line.state}  queues ${line.queues}${retry}  consumed ${line.consumed}  failed ${line.failures}  lag ${lag}  invocations ${line.invocations}${last}`;
}

/** `4s`, `3m12s`, `2h5m`: an age to the second, compact. */
function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}

/** A writable text stream (process.stdout). */
export interface TextStream {
  write: NodeJS.WriteStream['write'];
}

/**
 * Shows the lines: on a terminal, a block kept at the bottom (other writes to the stream erase it first; the
 * next render draws it again); otherwise, a log line per mapping whose numbers changed.
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
        // The numbers, not the text: the last invocation's age changes every second.
        const text = JSON.stringify(line);
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
