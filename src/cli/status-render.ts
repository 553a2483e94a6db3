/**
 * How `status` (and `offsets show`) print queue positions (operations/queue-position.ts): a table for
 * people, JSON for tools.
 *
 * The JSON shape (`--json`), one document per snapshot:
 *
 * ```
 * { "at": "2026-12-01T13:00:00.000Z",            // when the snapshot was taken
 *   "source": "poller.yaml",                      // where the settings came from
 *   "mappings": [{
 *     "name": "orders", "topic": "Orders", "consumerGroup": "orders-lambda",
 *     "consumeMode": "PUSH",                      // PUSH (below) | POP (see under this block)
 *     "offsetStore": "dynamodb",                  // dynamodb | file | memory
 *     "lag": 12,                                  // sum over the queues whose lag is known (null: none is)
 *     "brokerError": null, "storeError": null,    // why the brokers / the store could not be read
 *     "queues": [{
 *       "topic": "Orders",                        // or the group's %RETRY% topic (messages sent back)
 *       "broker": "broker-a", "queueId": 0,
 *       "minOffset": 0, "maxOffset": 30,          // null when the broker could not be asked
 *       "committedOffset": 28,                    // null: nothing committed yet
 *       "resumeOffset": 28,                       // committed, else where the mapping starts (null: unknown)
 *       "generation": 0,                          // offset generation (one more per reset)
 *       "lag": 2,                                 // maxOffset - resumeOffset (null: unknown)
 *       "oldestUnconsumedAgeMs": 4100,            // age of the message at resumeOffset when lag > 0, else null
 *       "holder": "10.0.0.5@1#8f2c...",           // the poller that committed last (null: none / local store)
 *       "released": false,                        // that poller handed the queue over
 *       "lastCommitAt": "2026-12-01T12:59:57.000Z" // null when the store keeps no time
 *     }]
 *   }]
 * }
 * ```
 *
 * A `consumeMode: POP` mapping has no committed offsets: the brokers keep the group's position, and no poller
 * holds a queue (operations/pop-queue-positions.ts). Its entry says so and carries the broker's figures instead:
 *
 * ```
 * { "name": "audit", "topic": "Audit", "consumerGroup": "audit-lambda",
 *   "consumeMode": "POP",                         // PUSH entries say "PUSH"
 *   "offsetStore": "broker",                      // the position is the group's consumer offset at the brokers
 *   "pollers": 2,                                 // the group's pollers the brokers know (null: none answered)
 *   "lag": 43,                                    // every queue below, the retry queues included
 *   "retryLag": 3,                                // the retry queues' part of it (null: no retry topic yet)
 *   "brokerError": null, "storeError": null,
 *   "queues": [{
 *     "topic": "Audit",                           // or the POP retry topic %RETRY%audit-lambda_Audit
 *     "retry": false,                             // true: failed messages waiting for their next delivery
 *     "broker": "broker-a", "queueId": 0,
 *     "minOffset": 0, "maxOffset": 120,
 *     "consumerOffset": 100,                      // QUERY_CONSUMER_OFFSET at the master (null: never popped)
 *     "resumeOffset": 100,                        // consumerOffset, else where the broker starts the queue
 *     "lag": 20,                                  // maxOffset - resumeOffset: what no poller popped yet
 *     "oldestUnconsumedAgeMs": 5300               // age of the message at resumeOffset when lag > 0
 *   }]
 * }
 * ```
 */
import type { StoredOffsetRecord } from '../offsets/offset-store.js';
import type { MappingPositions, QueuePosition } from '../operations/queue-position.js';
import type { TerminalStyle } from './terminal-style.js';

/** A holder that has not committed for this long while its queue lags is shown as stale. */
export const STALE_HOLDER_MS = 60_000;

/**
 * One queue in the JSON output (see the file header).
 */
export interface QueueStatusJson {
  readonly topic: string;
  readonly broker: string;
  readonly queueId: number;
  readonly minOffset: number | null;
  readonly maxOffset: number | null;
  readonly committedOffset: number | null;
  readonly resumeOffset: number | null;
  readonly generation: number | null;
  readonly lag: number | null;
  readonly oldestUnconsumedAgeMs: number | null;
  readonly holder: string | null;
  readonly released: boolean | null;
  readonly lastCommitAt: string | null;
}

/**
 * One queue of a POP mapping in the JSON output (see the file header).
 */
export interface PopQueueStatusJson {
  readonly topic: string;
  /** A queue of the group's POP retry topic. */
  readonly retry: boolean;
  readonly broker: string;
  readonly queueId: number;
  readonly minOffset: number | null;
  readonly maxOffset: number | null;
  readonly consumerOffset: number | null;
  readonly resumeOffset: number | null;
  readonly lag: number | null;
  readonly oldestUnconsumedAgeMs: number | null;
}

/** What the JSON entries of PUSH and POP mappings share. */
interface MappingStatusJsonBase {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly lag: number | null;
  readonly brokerError: string | null;
  readonly storeError: string | null;
}

/**
 * One PUSH mapping in the JSON output: its committed offsets, queue by queue.
 */
export interface PushMappingStatusJson extends MappingStatusJsonBase {
  readonly consumeMode: 'PUSH';
  readonly offsetStore: string;
  readonly queues: readonly QueueStatusJson[];
}

/**
 * One POP mapping in the JSON output: the group's consumer offsets at the brokers, and its pollers.
 */
export interface PopMappingStatusJson extends MappingStatusJsonBase {
  readonly consumeMode: 'POP';
  readonly offsetStore: 'broker';
  readonly pollers: number | null;
  /** The lag of the POP retry queues (part of `lag`); null when the group has no retry topic yet. */
  readonly retryLag: number | null;
  readonly queues: readonly PopQueueStatusJson[];
}

/**
 * One mapping in the JSON output; `consumeMode` tells which.
 */
export type MappingStatusJson = PushMappingStatusJson | PopMappingStatusJson;

/**
 * The JSON output of one snapshot (`M`: what a caller knows its mappings to be).
 */
export interface StatusJson<M extends MappingStatusJson = MappingStatusJson> {
  readonly at: string;
  readonly source: string;
  readonly mappings: readonly M[];
}

/** What `status` reads of one mapping, PUSH or POP (operations/queue-position.ts). */
export type StatusSnapshot = MappingPositions;

/** Whether `snapshot` is a POP mapping's (its position is the broker's, and it counts pollers). */
export function isPopSnapshot(snapshot: StatusSnapshot): boolean {
  return snapshot.mapping.consumeMode === 'POP';
}

/**
 * The JSON document of `snapshots` taken at `nowMs`.
 */
export function statusJson(source: string, snapshots: readonly StatusSnapshot[], nowMs: number): StatusJson {
  return {
    at: new Date(nowMs).toISOString(),
    source,
    mappings: snapshots.map((snapshot) => {
      const common = {
        name: snapshot.mapping.name,
        topic: snapshot.mapping.topic,
        consumerGroup: snapshot.mapping.consumerGroup,
      };
      if (isPopSnapshot(snapshot)) {
        return {
          ...common,
          consumeMode: 'POP',
          offsetStore: 'broker',
          pollers: snapshot.pollers ?? null,
          lag: totalLag(snapshot.queues) ?? null,
          retryLag: totalLag(snapshot.queues.filter((row) => row.retry)) ?? null,
          brokerError: snapshot.brokerError ?? null,
          storeError: null,
          queues: snapshot.queues.map((row) => popQueueJson(row, nowMs)),
        } satisfies PopMappingStatusJson;
      }
      return {
        ...common,
        consumeMode: 'PUSH',
        offsetStore: snapshot.mapping.offsetStoreKind,
        lag: totalLag(snapshot.queues) ?? null,
        brokerError: snapshot.brokerError ?? null,
        storeError: snapshot.storeError ?? null,
        queues: snapshot.queues.map((row) => queueJson(row, nowMs)),
      } satisfies PushMappingStatusJson;
    }),
  };
}

function popQueueJson(row: QueuePosition, nowMs: number): PopQueueStatusJson {
  return {
    topic: row.queue.topic,
    retry: row.retry === true,
    broker: row.queue.brokerName,
    queueId: row.queue.queueId,
    minOffset: row.minOffset ?? null,
    maxOffset: row.maxOffset ?? null,
    consumerOffset: row.consumerOffset ?? null,
    resumeOffset: row.resumeOffset ?? null,
    lag: row.lag ?? null,
    oldestUnconsumedAgeMs: ageMs(row.oldestUnconsumedAtMs, nowMs),
  };
}

function ageMs(atMs: number | undefined, nowMs: number): number | null {
  return atMs === undefined ? null : Math.max(0, nowMs - atMs);
}

function queueJson(row: QueuePosition, nowMs: number): QueueStatusJson {
  const record: StoredOffsetRecord | undefined = row.committed;
  return {
    topic: row.queue.topic,
    broker: row.queue.brokerName,
    queueId: row.queue.queueId,
    minOffset: row.minOffset ?? null,
    maxOffset: row.maxOffset ?? null,
    committedOffset: record?.offset ?? null,
    resumeOffset: row.resumeOffset ?? null,
    generation: record?.generation ?? null,
    lag: row.lag ?? null,
    oldestUnconsumedAgeMs: ageMs(row.oldestUnconsumedAtMs, nowMs),
    holder: record?.holder ?? null,
    released: record?.released ?? null,
    lastCommitAt: record?.updatedAtMs === undefined ? null : new Date(record.updatedAtMs).toISOString(),
  };
}

/**
 * The table of `snapshots` for a terminal (or a plain log): per mapping a title line and one row per
 * queue; lagging queues in yellow, stale holders and errors in red when `style` colours. A POP mapping's
 * title says POP, its pollers and, once the group has a POP retry topic, the retry queues' part of the lag;
 * its rows show the group's consumer offset at the broker, and no holder.
 */
export function statusTable(
  snapshots: readonly StatusSnapshot[],
  nowMs: number,
  style: TerminalStyle,
): string {
  const out: string[] = [];
  for (const snapshot of snapshots) {
    const { mapping } = snapshot;
    const lag = totalLag(snapshot.queues);
    const retryLag = isPopSnapshot(snapshot)
      ? totalLag(snapshot.queues.filter((row) => row.retry))
      : undefined;
    const lagText = `${lag === undefined ? 'lag ?' : `lag ${lag}`}${retryLag === undefined ? '' : ` (retry ${retryLag})`}`;
    const kind = isPopSnapshot(snapshot)
      ? `(POP, offsets at the broker)  pollers ${snapshot.pollers ?? '?'}`
      : `(${mapping.offsetStoreKind})`;
    out.push(
      `${style.bold(mapping.name)}  topic ${mapping.topic}  group ${mapping.consumerGroup}  ${kind}  ${lag !== undefined && lag > 0 ? style.yellow(lagText) : lagText}`,
    );
    if (snapshot.brokerError !== undefined)
      out.push(style.red(`  broker unreachable: ${snapshot.brokerError}`));
    if (!isPopSnapshot(snapshot) && snapshot.storeError !== undefined)
      out.push(style.red(`  offset store unreachable: ${snapshot.storeError}`));
    const [header, rows] = isPopSnapshot(snapshot)
      ? [POP_HEADER, snapshot.queues.map((row) => popQueueCells(row, nowMs))]
      : [PUSH_HEADER, snapshot.queues.map((row) => queueCells(row, mapping.topic, nowMs))];
    out.push(...tableLines(header, rows, style));
    if (snapshot.queues.length === 0 && snapshot.brokerError === undefined)
      out.push('  (the topic has no readable queue)');
    out.push('');
  }
  return `${out.join('\n')}`;
}

const PUSH_HEADER = ['QUEUE', 'MIN', 'MAX', 'COMMITTED', 'LAG', 'OLDEST', 'HOLDER', 'LAST COMMIT'] as const;
const POP_HEADER = ['QUEUE', 'MIN', 'MAX', 'CONSUMER OFFSET', 'LAG', 'OLDEST'] as const;

/** The header and the rows, each column as wide as its widest cell, indented by two spaces. */
function tableLines(header: readonly string[], rows: readonly Cell[][], style: TerminalStyle): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((cells) => cells[column]?.text.length ?? 0)),
  );
  const lines = [
    `  ${header
      .map((title, column) => title.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}`,
  ];
  for (const cells of rows) {
    const line = cells.map((cell, column) => {
      const padded = cell.text.padEnd(widths[column] ?? 0);
      if (cell.tone === 'warn') return style.yellow(padded);
      if (cell.tone === 'bad') return style.red(padded);
      return padded;
    });
    lines.push(`  ${line.join('  ').trimEnd()}`);
  }
  return lines;
}

interface Cell {
  readonly text: string;
  readonly tone?: 'warn' | 'bad' | undefined;
}

function queueCells(row: QueuePosition, topic: string, nowMs: number): Cell[] {
  const record = row.committed;
  const lagging = row.lag !== undefined && row.lag > 0;
  const sinceCommitMs =
    record?.updatedAtMs === undefined ? undefined : Math.max(0, nowMs - record.updatedAtMs);
  const stale =
    lagging &&
    record !== undefined &&
    !record.released &&
    sinceCommitMs !== undefined &&
    sinceCommitMs > STALE_HOLDER_MS;
  const holder =
    record?.holder === undefined
      ? '-'
      : `${record.holder}${record.released ? ' (released)' : stale ? ' (stale)' : ''}`;
  const committed =
    record === undefined
      ? `- (starts at ${row.resumeOffset ?? '?'})`
      : `${record.offset}${record.generation > 0 ? ` g${record.generation}` : ''}`;
  return [
    { text: `${row.queue.topic === topic ? '' : 'retry '}${row.queue.brokerName}:${row.queue.queueId}` },
    { text: numberText(row.minOffset) },
    { text: numberText(row.maxOffset) },
    { text: committed },
    { text: numberText(row.lag), tone: lagging ? 'warn' : undefined },
    {
      text: row.oldestUnconsumedAtMs === undefined ? '-' : formatDuration(nowMs - row.oldestUnconsumedAtMs),
      tone: lagging ? 'warn' : undefined,
    },
    { text: holder, tone: stale ? 'bad' : undefined },
    {
      text: sinceCommitMs === undefined ? '-' : `${formatDuration(sinceCommitMs)} ago`,
      tone: stale ? 'bad' : undefined,
    },
  ];
}

function popQueueCells(row: QueuePosition, nowMs: number): Cell[] {
  const lagging = row.lag !== undefined && row.lag > 0;
  return [
    { text: `${row.retry ? 'retry ' : ''}${row.queue.brokerName}:${row.queue.queueId}` },
    { text: numberText(row.minOffset) },
    { text: numberText(row.maxOffset) },
    {
      // No consumer offset at the broker yet: the group never popped the queue.
      text:
        row.consumerOffset === undefined
          ? `- (starts at ${row.resumeOffset ?? '?'})`
          : String(row.consumerOffset),
    },
    { text: numberText(row.lag), tone: lagging ? 'warn' : undefined },
    {
      text: row.oldestUnconsumedAtMs === undefined ? '-' : formatDuration(nowMs - row.oldestUnconsumedAtMs),
      tone: lagging ? 'warn' : undefined,
    },
  ];
}

function numberText(value: number | undefined): string {
  return value === undefined ? '?' : String(value);
}

/**
 * The lag of a mapping: the sum over its queues whose lag is known, or undefined when none is.
 */
export function totalLag(queues: readonly { readonly lag: number | undefined }[]): number | undefined {
  const known = queues.flatMap((row) => (row.lag === undefined ? [] : [row.lag]));
  return known.length === 0 ? undefined : known.reduce((sum, lag) => sum + lag, 0);
}

/**
 * A duration for people: `850ms`, `4s`, `3m12s`, `2h05m`, `3d04h`.
 */
export function formatDuration(ms: number): string {
  const value = Math.max(0, Math.round(ms));
  if (value < 1000) return `${value}ms`;
  const seconds = Math.floor(value / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d${String(hours % 24).padStart(2, '0')}h`;
}
