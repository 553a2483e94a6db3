import { describe, expect, it } from 'vitest';
import {
  isSystemProperty,
  MessageConst,
  SYSTEM_PROPERTY_KEYS,
  userProperties,
} from '../../../src/protocol/message.js';

describe('MessageConst and user properties', () => {
  it('spells the keys as Java MessageConst does', () => {
    expect(MessageConst.UNIQ_KEY).toBe('UNIQ_KEY');
    expect(MessageConst.WAIT).toBe('WAIT');
    expect(MessageConst.REAL_QID).toBe('REAL_QID');
    expect(MessageConst.TRAN_MSG).toBe('TRAN_MSG');
    expect(MessageConst.CONSUME_START_TIME).toBe('CONSUME_START_TIME');
    expect(MessageConst.TRANSACTION_ID).toBe('__transactionId__');
    expect(MessageConst.CRC32).toBe('__CRC32#');
  });

  it('treats every MessageConst key and transient keys as system properties', () => {
    for (const key of Object.values(MessageConst)) expect(SYSTEM_PROPERTY_KEYS.has(key)).toBe(true);
    expect(isSystemProperty('__RMQ.TRANSIENT.TOPIC_SYS_FLAG')).toBe(true);
    expect(isSystemProperty('orderId')).toBe(false);
  });

  it('userProperties keeps only user keys', () => {
    const all = {
      TAGS: 'a',
      KEYS: 'k',
      UNIQ_KEY: 'X',
      MIN_OFFSET: '0',
      CLUSTER: 'c',
      orderId: '7',
      color: '红',
    };
    expect(userProperties(all)).toEqual({ orderId: '7', color: '红' });
  });
});
