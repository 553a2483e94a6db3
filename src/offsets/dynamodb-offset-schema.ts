/**
 * The DynamoDB table of consumer offsets, one item per (consumer group, queue):
 * `group` (HASH, S) + `queue` (RANGE, S, `topic@brokerName@queueId`), with `offset` (N), `generation`
 * (N, absent = 0: see offset-store.ts), `updatedAt` (N, epoch ms), `clientId` (S, the poller that wrote
 * last) and `released` (BOOL, that poller handed the queue over). Only the key is part of the table's
 * schema, so items written before `generation` and `released` existed read as generation 0, not released.
 * Pure data: the store and the CloudFormation templates share it.
 */
import type { AttributeDefinition, AttributeValue, KeySchemaElement } from '@aws-sdk/client-dynamodb';
import { parseMessageQueueKey } from '../protocol/message-queue.js';
import type { StoredOffsetRecord } from './offset-store.js';
import { OffsetStoreError } from './offset-store-error.js';

/** Attribute names of an offset item. `group` and `offset` are reserved words: use placeholders. */
export const OffsetAttribute = {
  group: 'group',
  queue: 'queue',
  offset: 'offset',
  generation: 'generation',
  updatedAt: 'updatedAt',
  clientId: 'clientId',
  released: 'released',
} as const;

/** The parts of a CreateTable request (and of an `AWS::DynamoDB::Table`) that define the offsets table. */
export interface OffsetTableDefinition {
  TableName: string;
  KeySchema: KeySchemaElement[];
  AttributeDefinitions: AttributeDefinition[];
  BillingMode: 'PAY_PER_REQUEST';
}

/**
 * The schema of the offsets table named `tableName`: on-demand billing, key `group` + `queue`.
 */
export function offsetTableDefinition(tableName: string): OffsetTableDefinition {
  return {
    TableName: tableName,
    KeySchema: [
      { AttributeName: OffsetAttribute.group, KeyType: 'HASH' },
      { AttributeName: OffsetAttribute.queue, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: OffsetAttribute.group, AttributeType: 'S' },
      { AttributeName: OffsetAttribute.queue, AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/**
 * The primary key of the item of (`group`, `queueKey`).
 */
export function offsetItemKey(group: string, queueKey: string): Record<string, AttributeValue> {
  return { [OffsetAttribute.group]: { S: group }, [OffsetAttribute.queue]: { S: queueKey } };
}

/**
 * The offset held by an item's `offset` attribute, or undefined when it has none. Throws a non-retriable
 * {@link OffsetStoreError} when the attribute is not a non-negative safe integer number.
 */
export function offsetOfItem(item: Record<string, AttributeValue>, queueKey: string): number | undefined {
  const attribute = item[OffsetAttribute.offset];
  if (attribute === undefined) return undefined;
  const text = attribute.N;
  const offset = text === undefined ? Number.NaN : Number(text);
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new OffsetStoreError(
      `stored offset of ${queueKey} is not a non-negative safe integer: ${JSON.stringify(attribute)}`,
    );
  }
  return offset;
}

/**
 * The queue key and offset of an item returned by a Query, or undefined for an item without an offset.
 * Throws a non-retriable {@link OffsetStoreError} on a malformed item.
 */
export function parseOffsetItem(item: Record<string, AttributeValue>): [string, number] | undefined {
  const queueKey = item[OffsetAttribute.queue]?.S;
  if (queueKey === undefined) throw new OffsetStoreError('offset item without a string "queue" key');
  try {
    parseMessageQueueKey(queueKey);
  } catch (cause) {
    throw new OffsetStoreError(`offset item has a malformed queue key ${JSON.stringify(queueKey)}`, {
      cause,
    });
  }
  const offset = offsetOfItem(item, queueKey);
  return offset === undefined ? undefined : [queueKey, offset];
}

/**
 * The whole record of an item (offset, generation, holder, released, updatedAt), or undefined for an item
 * without an offset. Throws a non-retriable {@link OffsetStoreError} on a malformed offset or generation.
 */
export function recordOfItem(
  item: Record<string, AttributeValue>,
  queueKey: string,
): StoredOffsetRecord | undefined {
  const offset = offsetOfItem(item, queueKey);
  if (offset === undefined) return undefined;
  const generationAttribute = item[OffsetAttribute.generation];
  const generation = generationAttribute === undefined ? 0 : Number(generationAttribute.N);
  if (!Number.isSafeInteger(generation) || generation < 0) {
    throw new OffsetStoreError(
      `stored offset generation of ${queueKey} is not a non-negative safe integer: ${JSON.stringify(generationAttribute)}`,
    );
  }
  const updatedAt = Number(item[OffsetAttribute.updatedAt]?.N);
  return {
    offset,
    generation,
    holder: item[OffsetAttribute.clientId]?.S,
    released: item[OffsetAttribute.released]?.BOOL === true,
    updatedAtMs: Number.isSafeInteger(updatedAt) ? updatedAt : undefined,
  };
}
