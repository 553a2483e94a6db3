/**
 * The DynamoDB table of consumer offsets, one item per (consumer group, queue):
 * `group` (HASH, S) + `queue` (RANGE, S, `topic@brokerName@queueId`), with `offset` (N), `updatedAt`
 * (N, epoch ms) and `clientId` (S). Pure data: the store and the CloudFormation templates share it.
 */
import type { AttributeDefinition, AttributeValue, KeySchemaElement } from '@aws-sdk/client-dynamodb';
import { parseMessageQueueKey } from '../protocol/message-queue.js';
import { OffsetStoreError } from './offset-store-error.js';

/** Attribute names of an offset item. `group` and `offset` are reserved words: use placeholders. */
export const OffsetAttribute = {
  group: 'group',
  queue: 'queue',
  offset: 'offset',
  updatedAt: 'updatedAt',
  clientId: 'clientId',
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
 *
 * @example
 * ```ts
 * await client.send(new CreateTableCommand(offsetTableDefinition('rocketmq-offsets')));
 * ```
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
 *
 * @example
 * ```ts
 * offsetItemKey('orders', 'T@broker-a@0'); // => { group: { S: 'orders' }, queue: { S: 'T@broker-a@0' } }
 * ```
 */
export function offsetItemKey(group: string, queueKey: string): Record<string, AttributeValue> {
  return { [OffsetAttribute.group]: { S: group }, [OffsetAttribute.queue]: { S: queueKey } };
}

/**
 * The offset held by an item's `offset` attribute, or undefined when it has none. Throws a non-retriable
 * {@link OffsetStoreError} when the attribute is not a non-negative safe integer number.
 *
 * @example
 * ```ts
 * offsetOfItem({ offset: { N: '42' } }, 'T@broker-a@0'); // => 42
 * ```
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
 *
 * @example
 * ```ts
 * parseOffsetItem({ group: { S: 'g' }, queue: { S: 'T@b@0' }, offset: { N: '7' } }); // => ['T@b@0', 7]
 * ```
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
