import { describe, expect, it } from 'vitest';
import {
  offsetItemKey,
  offsetOfItem,
  offsetTableDefinition,
  parseOffsetItem,
} from '../../../src/offsets/dynamodb-offset-schema.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';

describe('offsets table schema', () => {
  it('defines group (HASH) + queue (RANGE) strings, on demand', () => {
    expect(offsetTableDefinition('offsets')).toEqual({
      TableName: 'offsets',
      KeySchema: [
        { AttributeName: 'group', KeyType: 'HASH' },
        { AttributeName: 'queue', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'group', AttributeType: 'S' },
        { AttributeName: 'queue', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('builds item keys and parses items', () => {
    expect(offsetItemKey('g', 'T@b@0')).toEqual({ group: { S: 'g' }, queue: { S: 'T@b@0' } });
    expect(parseOffsetItem({ group: { S: 'g' }, queue: { S: 'T@b@3' }, offset: { N: '42' } })).toEqual([
      'T@b@3',
      42,
    ]);
    expect(parseOffsetItem({ group: { S: 'g' }, queue: { S: 'T@b@3' } })).toBeUndefined();
    expect(offsetOfItem({}, 'T@b@0')).toBeUndefined();
  });

  it('rejects malformed items', () => {
    expect(() => offsetOfItem({ offset: { N: '-1' } }, 'T@b@0')).toThrow(OffsetStoreError);
    expect(() => offsetOfItem({ offset: { N: '9007199254740993' } }, 'T@b@0')).toThrow(OffsetStoreError);
    expect(() => offsetOfItem({ offset: { S: '5' } }, 'T@b@0')).toThrow(OffsetStoreError);
    expect(() => parseOffsetItem({ queue: { S: 'no-at-signs' }, offset: { N: '1' } })).toThrow(
      OffsetStoreError,
    );
    expect(() => parseOffsetItem({ offset: { N: '1' } })).toThrow(OffsetStoreError);
  });
});
