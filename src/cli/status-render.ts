/**
 * How `status` (and `offsets show`) print queue positions (operations/queue-position.ts), and, for
 * `status`, the live group beside them (operations/live-group.ts: the clients connected to the brokers
 * and what each holds) and the group's dead-letter depth: a table for people, JSON for tools.
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
 *     "brokerErrorKind": null,                    // topic-missing | group-missing | no-route | refused |
 *                                                 // failed | unreachable (null: no error, or not known)
 *     "liveGroup": {                              // the group at the brokers now (null: not read)
 *       "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING", // as the heartbeats said
 *       "subscriptions": [{ "topic": "Orders", "expression": "*" }],
 *       "brokersAsked": 1, "brokersAnswered": 1,
 *       "error": null, "errorKind": null,         // why (some) brokers could not list the group's clients
 *       "clients": [{                             // every client connected to the brokers, by client id
 *         "clientId": "10.0.0.5@1#8f2c...", "clientAddr": "10.0.0.5:53422",
 *         "language": "JAVA",                     // as announced (our pollers announce JAVA)
 *         "version": 401, "versionName": "V4_9_4", // version code and the RocketMQ version it names
 *         "runtime": "rocketmq-lambda 0.1.0 on Node.js v20.11.0", // what it says it is (null: not said)
 *         "startedAt": "2026-12-01T12:00:00.000Z", // when its consumer started (null: not said)
 *         "runningInfo": "answered",              // answered | no-answer | not-asked (GET_CONSUMER_RUNNING_INFO)
 *         "runningInfoError": null,               // why it gave no answer
 *         "filteredOut": 0,                       // messages its `filters` dropped before the invoke since
 *                                                 // it started (null: not said, e.g. not our poller)
 *         "queues": [{ "topic": "Orders", "broker": "broker-a", "queueId": 0 }], // held (null: no answer)
 *         "holdsNothing": false                   // PUSH: answered, holds no queue (runs, consumes nothing)
 *       }]
 *     },
 *     "deadLetters": {                            // the group's %DLQ% topic (null: not read)
 *       "topic": "%DLQ%orders-lambda",
 *       "depth": 3,                               // max - min offset summed over its queues: every dead
 *                                                 // letter the brokers store, redriven ones included
 *       "queues": 1, "error": null                // 0 queues, depth 0: the group never dead-lettered
 *     },
 *     "queues": [{
 *       "topic": "Orders",                        // or the group's %RETRY% topic (messages sent back)
 *       "broker": "broker-a", "queueId": 0,
 *       "minOffset": 0, "maxOffset": 30,          // null when the broker could not be asked
 *       "committedOffset": 28,                    // null: nothing committed yet
 *       "resumeOffset": 28,                       // committed, else where the mapping starts (null: unknown)
 *       "generation": 0,                          // offset generation (one more per reset)
 *       "lag": 2,                                 // maxOffset - resumeOffset (null: unknown)
 *       "oldestUnconsumedAgeMs": 4100,            // age of the message at resumeOffset when lag > 0, else null
 *       "liveHolders": ["10.0.0.5@1#8f2c..."],    // the clients that say they hold it now ([]: none;
 *                                                 // null: not read, or a client did not answer)
 *       "lastWriter": "10.0.0.5@1#8f2c...",       // the client id that wrote the stored offset last
 *       "lastWrite": "commit",                    // commit | release | reset (an operator's reset its holder
 *                                                 // has not adopted yet) | null (no record, local store)
 *       "holder": "10.0.0.5@1#8f2c...",           // the same as lastWriter (kept for older tools)
 *       "released": false,                        // that writer handed the queue over
 *       "lastCommitAt": "2026-12-01T12:59:57.000Z" // when it was written (null: the store keeps no time)
 *     }]
 *   }]
 * }
 * ```
 *
 * A `consumeMode: POP` mapping has no committed offsets: the brokers keep the group's position, and no poller
 * holds a queue (operations/pop-queue-positions.ts). Its entry says so and carries the broker's figures
 * instead (with `brokerErrorKind`, `liveGroup` and `deadLetters` as above; its clients hold no queue):
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
import { brokerProblemLine } from '../operations/broker-problem.js';
import {
  holdsNothing,
  isComplete,
  type LiveClient,
  type LiveGroup,
  lastWriteOf,
  liveHoldersOf,
} from '../operations/live-group.js';
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
  readonly liveHolders: readonly string[] | null;
  readonly lastWriter: string | null;
  readonly lastWrite: 'commit' | 'release' | 'reset' | null;
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

/** One connected client in the JSON output (see the file header). */
export interface LiveClientJson {
  readonly clientId: string;
  readonly clientAddr: string;
  readonly language: string;
  readonly version: number;
  readonly versionName: string;
  readonly runtime: string | null;
  readonly startedAt: string | null;
  readonly runningInfo: 'answered' | 'no-answer' | 'not-asked';
  readonly runningInfoError: string | null;
  readonly filteredOut: number | null;
  readonly queues:
    | readonly { readonly topic: string; readonly broker: string; readonly queueId: number }[]
    | null;
  readonly holdsNothing: boolean;
}

/** The live group in the JSON output (see the file header). */
export interface LiveGroupJson {
  readonly consumeType: string | null;
  readonly messageModel: string | null;
  readonly subscriptions: readonly { readonly topic: string; readonly expression: string }[];
  readonly brokersAsked: number;
  readonly brokersAnswered: number;
  readonly error: string | null;
  readonly errorKind: string | null;
  readonly clients: readonly LiveClientJson[];
}

/** The group's dead letters in the JSON output (see the file header). */
export interface DeadLettersJson {
  readonly topic: string;
  readonly depth: number | null;
  readonly queues: number | null;
  readonly error: string | null;
}

/** What the JSON entries of PUSH and POP mappings share. */
interface MappingStatusJsonBase {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly lag: number | null;
  readonly brokerError: string | null;
  readonly brokerErrorKind: string | null;
  readonly storeError: string | null;
  readonly liveGroup: LiveGroupJson | null;
  readonly deadLetters: DeadLettersJson | null;
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

/** The group's dead-letter depth as `status` read it (client/dead-letter-depth.ts), or why it could not. */
export interface DeadLetterStatus {
  readonly topic: string;
  readonly depth?: number | undefined;
  readonly queues?: number | undefined;
  readonly error?: string | undefined;
}

/**
 * What `status` reads of one mapping, PUSH or POP (operations/queue-position.ts), with the live group and
 * the dead letters beside it (`offsets show` reads neither: both are then absent).
 */
export type StatusSnapshot = MappingPositions & {
  readonly live?: LiveGroup | undefined;
  readonly deadLetters?: DeadLetterStatus | undefined;
};

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
      const pop = isPopSnapshot(snapshot);
      const common = {
        name: snapshot.mapping.name,
        topic: snapshot.mapping.topic,
        consumerGroup: snapshot.mapping.consumerGroup,
        lag: totalLag(snapshot.queues) ?? null,
        brokerError: snapshot.brokerError ?? null,
        brokerErrorKind: snapshot.brokerErrorKind ?? null,
        liveGroup: snapshot.live === undefined ? null : liveGroupJson(snapshot.live, pop),
        deadLetters: snapshot.deadLetters === undefined ? null : deadLettersJson(snapshot.deadLetters),
      };
      if (pop) {
        return {
          ...common,
          consumeMode: 'POP',
          offsetStore: 'broker',
          pollers: snapshot.pollers ?? null,
          retryLag: totalLag(snapshot.queues.filter((row) => row.retry)) ?? null,
          storeError: null,
          queues: snapshot.queues.map((row) => popQueueJson(row, nowMs)),
        } satisfies PopMappingStatusJson;
      }
      return {
        ...common,
        consumeMode: 'PUSH',
        offsetStore: snapshot.mapping.offsetStoreKind,
        storeError: snapshot.storeError ?? null,
        queues: snapshot.queues.map((row) => queueJson(row, snapshot.live, nowMs)),
      } satisfies PushMappingStatusJson;
    }),
  };
}

function liveGroupJson(live: LiveGroup, pop: boolean): LiveGroupJson {
  return {
    consumeType: live.consumeType ?? null,
    messageModel: live.messageModel ?? null,
    subscriptions: live.subscriptions,
    brokersAsked: live.brokersAsked,
    brokersAnswered: live.brokersAnswered,
    error: live.problem?.message ?? null,
    errorKind: live.problem?.kind ?? null,
    clients: live.clients.map((client) => {
      const info = client.runningInfo;
      const answered = info.state === 'answered' ? info : undefined;
      return {
        clientId: client.clientId,
        clientAddr: client.clientAddr,
        language: client.language,
        version: client.version,
        versionName: client.versionName,
        runtime: answered?.runtime ?? null,
        startedAt: answered?.startedAtMs === undefined ? null : new Date(answered.startedAtMs).toISOString(),
        runningInfo: info.state,
        runningInfoError: info.state === 'answered' ? null : info.reason,
        filteredOut: answered?.filteredOut ?? null,
        queues:
          answered === undefined
            ? null
            : answered.queues.map((q) => ({ topic: q.topic, broker: q.brokerName, queueId: q.queueId })),
        holdsNothing: !pop && holdsNothing(client),
      };
    }),
  };
}

function deadLettersJson(dead: DeadLetterStatus): DeadLettersJson {
  return {
    topic: dead.topic,
    depth: dead.depth ?? null,
    queues: dead.queues ?? null,
    error: dead.error ?? null,
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

function queueJson(row: QueuePosition, live: LiveGroup | undefined, nowMs: number): QueueStatusJson {
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
    liveHolders: live === undefined ? null : (liveHoldersOf(live, row.queue) ?? null),
    lastWriter: record?.holder ?? null,
    lastWrite: lastWriteOf(record, live, row.queue) ?? null,
    holder: record?.holder ?? null,
    released: record?.released ?? null,
    lastCommitAt: record?.updatedAtMs === undefined ? null : new Date(record.updatedAtMs).toISOString(),
  };
}

/**
 * The table of `snapshots` for a terminal (or a plain log): per mapping a title line, the live group's
 * clients (when read) and one row per queue; lagging queues in yellow, stale writers and errors in red
 * when `style` colours. The clients are numbered (`#1`): the queue rows name live clients by number. A
 * POP mapping's title says POP, its pollers and, once the group has a POP retry topic, the retry queues'
 * part of the lag; its rows show the group's consumer offset at the broker, and no holder.
 */
export function statusTable(
  snapshots: readonly StatusSnapshot[],
  nowMs: number,
  style: TerminalStyle,
): string {
  const out: string[] = [];
  for (const snapshot of snapshots) {
    const { mapping, live } = snapshot;
    const pop = isPopSnapshot(snapshot);
    const lag = totalLag(snapshot.queues);
    const retryLag = pop ? totalLag(snapshot.queues.filter((row) => row.retry)) : undefined;
    const lagText = `${lag === undefined ? 'lag ?' : `lag ${lag}`}${retryLag === undefined ? '' : ` (retry ${retryLag})`}`;
    const kind = pop
      ? `(POP, offsets at the broker)  pollers ${snapshot.pollers ?? '?'}`
      : `(${mapping.offsetStoreKind})`;
    const dead = snapshot.deadLetters;
    const deadText =
      dead === undefined ? '' : `  dead letters ${dead.depth === undefined ? '?' : String(dead.depth)}`;
    out.push(
      `${style.bold(mapping.name)}  topic ${mapping.topic}  group ${mapping.consumerGroup}  ${kind}  ${lag !== undefined && lag > 0 ? style.yellow(lagText) : lagText}${dead?.depth !== undefined && dead.depth > 0 ? style.yellow(deadText) : deadText}`,
    );
    if (snapshot.brokerError !== undefined)
      out.push(style.red(`  ${brokerProblemLine(snapshot.brokerError, snapshot.brokerErrorKind)}`));
    if (!pop && snapshot.storeError !== undefined)
      out.push(style.red(`  offset store unreachable: ${snapshot.storeError}`));
    if (dead?.error !== undefined) out.push(style.red(`  dead letters of ${dead.topic}: ${dead.error}`));
    if (live !== undefined) out.push(...liveGroupLines(live, mapping.topic, pop, style));
    const [header, rows] = pop
      ? [POP_HEADER, snapshot.queues.map((row) => popQueueCells(row, nowMs))]
      : [
          live === undefined
            ? PUSH_HEADER
            : [...PUSH_HEADER.slice(0, 6), 'LIVE HOLDER', ...PUSH_HEADER.slice(6)],
          snapshot.queues.map((row) => queueCells(row, mapping.topic, live, nowMs)),
        ];
    out.push(...tableLines(header, rows, style));
    if (snapshot.queues.length === 0 && snapshot.brokerError === undefined)
      out.push('  (the topic has no readable queue)');
    out.push('');
  }
  return `${out.join('\n')}`;
}

const PUSH_HEADER = [
  'QUEUE',
  'MIN',
  'MAX',
  'COMMITTED',
  'LAG',
  'OLDEST',
  'LAST WRITER',
  'LAST WRITE',
] as const;
const POP_HEADER = ['QUEUE', 'MIN', 'MAX', 'CONSUMER OFFSET', 'LAG', 'OLDEST'] as const;
const CLIENT_HEADER = ['#', 'CLIENT', 'ADDRESS', 'VERSION', 'LANGUAGE', 'RUNTIME', 'HOLDS'] as const;

/** The live group's lines: its problem, then its clients (numbered) or that none is connected. */
function liveGroupLines(live: LiveGroup, topic: string, pop: boolean, style: TerminalStyle): string[] {
  const lines: string[] = [];
  if (live.problem !== undefined)
    lines.push(style.red(`  live group: ${brokerProblemLine(live.problem.message, live.problem.kind)}`));
  if (live.brokersAsked === 0) return lines;
  const from = `${live.brokersAnswered} of ${live.brokersAsked} broker${live.brokersAsked === 1 ? '' : 's'}`;
  if (live.clients.length === 0) {
    lines.push(style.yellow(`  no client of group ${live.consumerGroup} is connected (${from} answered)`));
    return lines;
  }
  const model = [live.messageModel, live.consumeType].filter((text) => text !== undefined).join(', ');
  lines.push(
    `  clients ${live.clients.length}${model === '' ? '' : ` (${model})`}, connected to ${from} answering:`,
  );
  const rows = live.clients.map((client, index): Cell[] => [
    { text: String(index + 1) },
    { text: client.clientId },
    { text: client.clientAddr === '' ? '-' : client.clientAddr },
    { text: client.versionName },
    { text: client.language === '' ? '-' : client.language },
    { text: client.runningInfo.state === 'answered' ? (client.runningInfo.runtime ?? '-') : '-' },
    holdsCell(client, topic, pop),
  ]);
  lines.push(...tableLines(CLIENT_HEADER, rows, style).map((line) => `  ${line}`));
  const filtered = live.clients.map((client) =>
    client.runningInfo.state === 'answered' ? (client.runningInfo.filteredOut ?? 0) : 0,
  );
  const filteredOut = filtered.reduce((sum, count) => sum + count, 0);
  if (filteredOut > 0) {
    lines.push(
      `  filtered out (filters): ${filteredOut} message${filteredOut === 1 ? '' : 's'} dropped before the invoke since these clients started`,
    );
  }
  return lines;
}

/** What a client holds: `4 queues`, `4 queues + 1 retry` (of the group's retry topic), or why not known. */
function holdsCell(client: LiveClient, topic: string, pop: boolean): Cell {
  const info = client.runningInfo;
  if (pop) return { text: '- (POP: the broker hands out messages)' };
  if (info.state === 'no-answer') return { text: `? no answer to running info: ${info.reason}`, tone: 'bad' };
  if (info.state === 'not-asked') return { text: `? not asked: ${info.reason}` };
  if (info.queues.length === 0) return { text: 'nothing: running but holding no queue', tone: 'warn' };
  const own = info.queues.filter((queue) => queue.topic === topic).length;
  const other = info.queues.length - own;
  return { text: `${own} queue${own === 1 ? '' : 's'}${other === 0 ? '' : ` + ${other} retry`}` };
}

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

/** How a queue row names a client: `#n` for a live client (the clients table's number), else its id. */
function clientRef(live: LiveGroup | undefined, clientId: string): string {
  const index = live?.clients.findIndex((client) => client.clientId === clientId) ?? -1;
  return index < 0 ? clientId : `#${index + 1}`;
}

function queueCells(row: QueuePosition, topic: string, live: LiveGroup | undefined, nowMs: number): Cell[] {
  const record = row.committed;
  const lagging = row.lag !== undefined && row.lag > 0;
  const sinceCommitMs =
    record?.updatedAtMs === undefined ? undefined : Math.max(0, nowMs - record.updatedAtMs);
  const lastWrite = lastWriteOf(record, live, row.queue);
  const stale =
    lagging &&
    record !== undefined &&
    !record.released &&
    sinceCommitMs !== undefined &&
    sinceCommitMs > STALE_HOLDER_MS;
  // A writer that holds the queue without having handed it over, and is no longer connected.
  const gone =
    live !== undefined &&
    isComplete(live) &&
    record?.holder !== undefined &&
    !record.released &&
    !live.clients.some((client) => client.clientId === record.holder);
  let writer = '-';
  if (lastWrite === 'reset' && record !== undefined) writer = `reset g${record.generation}`;
  else if (record?.holder !== undefined) {
    const mark = record.released ? ' (released)' : gone ? ' (not connected)' : stale ? ' (stale)' : '';
    writer = `${clientRef(live, record.holder)}${mark}`;
  }
  const committed =
    record === undefined
      ? `- (starts at ${row.resumeOffset ?? '?'})`
      : `${record.offset}${record.generation > 0 ? ` g${record.generation}` : ''}`;
  const cells: Cell[] = [
    { text: `${row.queue.topic === topic ? '' : 'retry '}${row.queue.brokerName}:${row.queue.queueId}` },
    { text: numberText(row.minOffset) },
    { text: numberText(row.maxOffset) },
    { text: committed },
    { text: numberText(row.lag), tone: lagging ? 'warn' : undefined },
    {
      text: row.oldestUnconsumedAtMs === undefined ? '-' : formatDuration(nowMs - row.oldestUnconsumedAtMs),
      tone: lagging ? 'warn' : undefined,
    },
  ];
  if (live !== undefined) {
    const holders = liveHoldersOf(live, row.queue);
    cells.push(
      holders === undefined
        ? { text: '?' }
        : holders.length === 0
          ? { text: 'none', tone: lagging ? 'warn' : undefined }
          : { text: holders.map((id) => clientRef(live, id)).join(',') },
    );
  }
  cells.push(
    { text: writer, tone: stale || gone ? 'bad' : lastWrite === 'reset' ? 'warn' : undefined },
    {
      text: sinceCommitMs === undefined ? '-' : `${formatDuration(sinceCommitMs)} ago`,
      tone: stale ? 'bad' : undefined,
    },
  );
  return cells;
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
