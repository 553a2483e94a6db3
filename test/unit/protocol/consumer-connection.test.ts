/**
 * GET_CONSUMER_CONNECTION_LIST's body (a broker's `ConsumerConnection`, as fastjson writes it) and the
 * RocketMQ version names of version codes (what `mqadmin consumerConnection` prints per client).
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_CONSUMER_CONNECTIONS,
  MAX_CONSUMER_SUBSCRIPTIONS,
  MAX_PEER_TEXT_CHARS,
  parseConsumerConnection,
} from '../../../src/protocol/consumer-connection.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { MQVersionCode, mqVersionName } from '../../../src/protocol/mq-version.js';

/** A body the way a 5.x broker writes it for one Java consumer and one of our pollers. */
const BODY = JSON.stringify({
  connectionSet: [
    { clientAddr: '10.0.0.7:53422', clientId: '10.0.0.7@4242#abc', language: 'JAVA', version: 479 },
    { clientAddr: '10.0.0.5:40100', clientId: '10.0.0.5@1#def', language: 'JAVA', version: 401 },
  ],
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  consumeType: 'CONSUME_PASSIVELY',
  messageModel: 'CLUSTERING',
  subscriptionTable: {
    Orders: {
      classFilterMode: false,
      codeSet: [],
      expressionType: 'TAG',
      subString: '*',
      subVersion: 1,
      tagsSet: [],
      topic: 'Orders',
    },
    '%RETRY%orders-lambda': { expressionType: 'TAG', subString: '*', topic: '%RETRY%orders-lambda' },
  },
});

describe('parseConsumerConnection', () => {
  it('reads the connections, the consume type and model, and the subscriptions', () => {
    expect(parseConsumerConnection(Buffer.from(BODY))).toEqual({
      connections: [
        { clientId: '10.0.0.7@4242#abc', clientAddr: '10.0.0.7:53422', language: 'JAVA', version: 479 },
        { clientId: '10.0.0.5@1#def', clientAddr: '10.0.0.5:40100', language: 'JAVA', version: 401 },
      ],
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      subscriptions: [
        { topic: 'Orders', subString: '*', expressionType: 'TAG' },
        { topic: '%RETRY%orders-lambda', subString: '*', expressionType: 'TAG' },
      ],
    });
  });

  it('keeps what a hostile peer sends printable and short', () => {
    const parsed = parseConsumerConnection(
      Buffer.from(
        JSON.stringify({
          connectionSet: [{ clientId: 'evil\u001b[2J\u0007', clientAddr: 'x'.repeat(10_000), language: 7 }],
        }),
      ),
    );
    const [entry] = parsed.connections;
    expect(entry?.clientId).toBe('evil?[2J?');
    expect(entry?.clientAddr).toHaveLength(MAX_PEER_TEXT_CHARS + 1);
    expect(entry?.language).toBe('7');
    expect(entry?.version).toBe(-1);
    expect(parsed.subscriptions).toEqual([]);
    expect(parsed.consumeType).toBeUndefined();
  });

  it('refuses a body that is not a ConsumerConnection', () => {
    expect(() => parseConsumerConnection(undefined)).toThrow(ProtocolError);
    expect(() => parseConsumerConnection(Buffer.from('not json'))).toThrow(/not valid JSON/);
    expect(() => parseConsumerConnection(Buffer.from('[]'))).toThrow(/not an object/);
    expect(() => parseConsumerConnection(Buffer.from('{"connectionSet":{}}'))).toThrow(/not a list/);
    expect(() => parseConsumerConnection(Buffer.from('{"connectionSet":[{"version":1}]}'))).toThrow(
      /connection 0 has no clientId/,
    );
  });
});

describe('parseConsumerConnection bounds', () => {
  const body = (value: unknown) => Buffer.from(JSON.stringify(value));
  const clients = (n: number) => Array.from({ length: n }, (_, i) => ({ clientId: `c${i}` }));
  const subscriptions = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`T${i}`, { subString: '*' }]));

  it('reads a list at the caps and refuses one past them, naming the count', () => {
    const atCaps = parseConsumerConnection(
      body({
        connectionSet: clients(MAX_CONSUMER_CONNECTIONS),
        subscriptionTable: subscriptions(MAX_CONSUMER_SUBSCRIPTIONS),
      }),
    );
    expect(atCaps.connections).toHaveLength(MAX_CONSUMER_CONNECTIONS);
    expect(atCaps.subscriptions).toHaveLength(MAX_CONSUMER_SUBSCRIPTIONS);
    expect(() =>
      parseConsumerConnection(body({ connectionSet: clients(MAX_CONSUMER_CONNECTIONS + 1) })),
    ).toThrow(
      new ProtocolError(
        `GET_CONSUMER_CONNECTION_LIST names ${MAX_CONSUMER_CONNECTIONS + 1} clients, above the cap of ${MAX_CONSUMER_CONNECTIONS}`,
      ),
    );
    expect(() =>
      parseConsumerConnection(
        body({ connectionSet: [], subscriptionTable: subscriptions(MAX_CONSUMER_SUBSCRIPTIONS + 1) }),
      ),
    ).toThrow(/names 1025 subscriptions, above the cap of 1024/);
  });
});

describe('mqVersionName', () => {
  it('names the version codes as Java MQVersion.Version does', () => {
    expect(mqVersionName(MQVersionCode.V4_9_4)).toBe('V4_9_4');
    expect(mqVersionName(MQVersionCode.V4_9_7)).toBe('V4_9_7');
    expect(mqVersionName(MQVersionCode.V5_0_0)).toBe('V5_0_0');
    expect(mqVersionName(MQVersionCode.V5_3_3)).toBe('V5_3_3');
    expect(mqVersionName(MQVersionCode.V5_5_1)).toBe('V5_5_1');
    expect(mqVersionName(MQVersionCode.V5_5_1 - 1)).toBe('V5_5_1_SNAPSHOT');
    // The 3.0.0 pre-releases, and the gaps of the 3.x line (no 3.3.0, no 3.5.0).
    expect(mqVersionName(0)).toBe('V3_0_0_SNAPSHOT');
    expect(mqVersionName(15)).toBe('V3_0_0_FINAL');
    expect(mqVersionName(17)).toBe('V3_0_1');
    expect(mqVersionName(85)).toBe('V3_2_9');
    expect(mqVersionName(87)).toBe('V3_3_1');
    expect(mqVersionName(212)).toBe('V4_0_0_SNAPSHOT');
    expect(mqVersionName(611)).toBe('V5_9_9');
    expect(mqVersionName(612)).toBe('HIGHER_VERSION');
    expect(mqVersionName(10_000)).toBe('HIGHER_VERSION');
    expect(mqVersionName(-1)).toBe('-1');
  });
});
