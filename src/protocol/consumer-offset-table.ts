/**
 * GET_ALL_CONSUMER_OFFSET (43) response body: the broker's whole `ConsumerOffsetManager`, every
 * group's committed offset of every queue, as fastjson writes it (queue ids are bare integer keys):
 *
 * ```
 * {"offsetTable":{"<topic>@<group>":{0:5,1:0}}, ...}
 * ```
 *
 * 5.x adds members beside `offsetTable` (`dataVersion`, ...); they are ignored. A queue the group never
 * committed on has no entry, which is what QUERY_CONSUMER_OFFSET of a 4.x broker cannot tell
 * (docs/protocol.md, "Broker versions").
 */

import { isPlainRecord } from '../util/plain-record.js';
import { ProtocolError } from './errors.js';
import { parseFastjson } from './fastjson.js';

/**
 * Committed offsets by `<topic>@<group>`, then by queue id.
 */
export type ConsumerOffsetTable = ReadonlyMap<string, ReadonlyMap<number, number>>;

/**
 * Parses a GET_ALL_CONSUMER_OFFSET response body. Throws {@link ProtocolError} when the body is not the
 * table described in the file comment.
 */
export function parseConsumerOffsetTable(body: Buffer | undefined): ConsumerOffsetTable {
  const what = 'GET_ALL_CONSUMER_OFFSET response body';
  if (body === undefined || body.length === 0) throw new ProtocolError(`${what} is empty`);
  const json = parseFastjson(body, what);
  if (!isPlainRecord(json)) throw new ProtocolError(`${what} is not a JSON object`);
  const offsetTable = json.offsetTable ?? {};
  if (!isPlainRecord(offsetTable)) throw new ProtocolError(`${what}: offsetTable is not an object`);
  const table = new Map<string, Map<number, number>>();
  for (const [topicAtGroup, queues] of Object.entries(offsetTable)) {
    if (!isPlainRecord(queues))
      throw new ProtocolError(`${what}: offsetTable[${topicAtGroup}] is not an object`);
    const offsets = new Map<number, number>();
    for (const [queueId, offset] of Object.entries(queues)) {
      const id = Number(queueId);
      if (!Number.isSafeInteger(id) || typeof offset !== 'number' || !Number.isSafeInteger(offset)) {
        throw new ProtocolError(`${what}: offsetTable[${topicAtGroup}] has a bad entry for queue ${queueId}`);
      }
      offsets.set(id, offset);
    }
    table.set(topicAtGroup, offsets);
  }
  return table;
}

/**
 * The offset `group` committed on queue `queueId` of `topic`, or undefined when the table has none.
 */
export function committedOffsetOf(
  table: ConsumerOffsetTable,
  group: string,
  topic: string,
  queueId: number,
): number | undefined {
  return table.get(`${topic}@${group}`)?.get(queueId);
}
