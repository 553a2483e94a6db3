import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { parseFastjson, quoteBareIntegerKeys } from '../../../src/protocol/fastjson.js';
import {
  type BrokerData,
  isStaticTopic,
  MAX_ROUTE_BROKER_ADDRS,
  MAX_ROUTE_BROKER_GROUPS,
  MAX_ROUTE_QUEUE_NUMS,
  MAX_ROUTE_TOTAL_QUEUES,
  masterAddress,
  PermName,
  parseTopicRouteData,
  readableQueues,
  type TopicRouteData,
  writableQueues,
} from '../../../src/protocol/route-data.js';
import { splitHostPort } from '../../../src/util/split-host-port.js';

// What a 5.3.3 name server writes for a request with version >= 401 (BrowserCompatible, MapSortField).
const STANDARD =
  '{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911","1":"127.0.0.2:10911"},"brokerName":"broker-a",' +
  '"cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":' +
  '"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}';
// The same route from an old name server (plain fastjson, pre-4.9 topicSynFlag).
const LEGACY =
  '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.2:10911"},"brokerName":"broker-a",' +
  '"cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":' +
  '"broker-a","perm":6,"readQueueNums":4,"topicSynFlag":0,"writeQueueNums":4}]}';

const EXPECTED: TopicRouteData = {
  brokerDatas: [
    {
      cluster: 'DefaultCluster',
      brokerName: 'broker-a',
      brokerAddrs: new Map([
        [0, '127.0.0.1:10911'],
        [1, '127.0.0.2:10911'],
      ]),
      enableActingMaster: false,
    },
  ],
  queueDatas: [{ brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 }],
  filterServerTable: {},
};

const parse = (text: string): TopicRouteData => parseTopicRouteData(Buffer.from(text, 'utf8'));

function expectProtocolErrorOrValue(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
  }
}

describe('quoteBareIntegerKeys', () => {
  it('quotes bare integer keys, with whitespace and negative ids', () => {
    expect(quoteBareIntegerKeys('{0:"a", 1 : "b",-1:"c"}')).toBe('{"0":"a", "1" : "b","-1":"c"}');
    expect(quoteBareIntegerKeys('{ \n 12:{3:4}}')).toBe('{ \n "12":{"3":4}}');
  });

  it('leaves string literals alone, escaped quotes included', () => {
    const text = '{"zone":"{0:\\"x\\",1:2}","k":[1,2],"s":",5:"}';
    expect(quoteBareIntegerKeys(text)).toBe(text);
    expect(quoteBareIntegerKeys('{"a\\\\":{0:"b"}}')).toBe('{"a\\\\":{"0":"b"}}');
  });

  it('leaves array numbers, values and non-integer keys alone', () => {
    for (const text of ['[1,2,3]', '{"a":1,"b":-2}', '[-1, 2.5, 3e4]', '{1.5:"x"}', '{-:"x"}', '5', '"0:"']) {
      expect(quoteBareIntegerKeys(text)).toBe(text);
    }
  });

  it('returns standard JSON unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(quoteBareIntegerKeys(text)).toBe(text);
        expect(parseFastjson(text, 'x')).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('makes fastjson maps with bare Long keys parse like their quoted form', () => {
    const mapArb = fc.dictionary(
      fc.integer({ min: -1000, max: 10 ** 12 }).map(String),
      fc.string({ unit: 'grapheme' }),
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(mapArb, (map) => {
        const bare = `{${Object.entries(map)
          .map(([k, v]) => `${k}:${JSON.stringify(v)}`)
          .join(',')}}`;
        expect(parseFastjson(`{"brokerAddrs":${bare}}`, 'x')).toEqual({ brokerAddrs: { ...map } });
      }),
    );
  });
});

describe('parseTopicRouteData', () => {
  it('parses standard JSON (version >= 401)', () => {
    expect(parse(STANDARD)).toEqual(EXPECTED);
  });

  it('parses legacy fastjson with bare keys and topicSynFlag', () => {
    expect(parse(LEGACY)).toEqual(EXPECTED);
  });

  it('leaves "{0:" inside string values untouched', () => {
    const text = LEGACY.replace('"broker-a","cluster"', '"broker-a","zoneName":"z{0:\\"q\\",1:","cluster"');
    const route = parse(text);
    expect(route.brokerDatas[0]?.zoneName).toBe('z{0:"q",1:');
    expect(route.brokerDatas[0]?.brokerAddrs.get(1)).toBe('127.0.0.2:10911');
  });

  it('reads BrowserCompatible \\u escapes, optional fields and IPv6 addresses', () => {
    const text =
      '{"brokerDatas":[{"brokerAddrs":{0:"fd00::1:10911"},"brokerName":"\\u8ba2\\u5355-b","cluster":"c",' +
      '"zoneName":"zone-1"}],"orderTopicConf":"\\u8ba2\\u5355-b:2","queueDatas":[{"brokerName":"\\u8ba2\\u5355-b",' +
      '"perm":4,"readQueueNums":2,"topicSysFlag":3,"writeQueueNums":0}],' +
      '"filterServerTable":{"fd00::1:10911":["fd00::2:1"]}}';
    const route = parse(text);
    const broker = route.brokerDatas[0] as BrokerData;
    expect(broker.brokerName).toBe('订单-b');
    expect(broker.zoneName).toBe('zone-1');
    expect(broker.enableActingMaster).toBeUndefined();
    expect(route.orderTopicConf).toBe('订单-b:2');
    expect(route.queueDatas[0]?.topicSysFlag).toBe(3);
    expect(route.filterServerTable).toEqual({ 'fd00::1:10911': ['fd00::2:1'] });
    expect(splitHostPort(masterAddress(broker) ?? '')).toEqual({ host: 'fd00::1', port: 10911 });
    expect(isStaticTopic(route)).toBe(false);
  });

  it('defaults topicSysFlag to 0, accepts null optional fields and keeps static-topic mappings', () => {
    const route = parse(
      '{"brokerDatas":[],"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":1,"writeQueueNums":1}],' +
        '"orderTopicConf":null,"topicQueueMappingByBroker":{"b":{"bname":"b","epoch":1}}}',
    );
    expect(route.queueDatas[0]?.topicSysFlag).toBe(0);
    expect(route.orderTopicConf).toBeUndefined();
    expect(isStaticTopic(route)).toBe(true);
  });

  it('names the missing or malformed field in the ProtocolError', () => {
    const cases: [string, string][] = [
      ['{"queueDatas":[]}', 'brokerDatas is missing'],
      ['{"brokerDatas":[]}', 'queueDatas is missing'],
      ['{"brokerDatas":{},"queueDatas":[]}', 'brokerDatas is not an array'],
      [
        '{"brokerDatas":[{"brokerName":"b","cluster":"c"}],"queueDatas":[]}',
        'brokerDatas[0].brokerAddrs is missing',
      ],
      [
        '{"brokerDatas":[{"brokerAddrs":{},"cluster":"c"}],"queueDatas":[]}',
        'brokerDatas[0].brokerName is missing',
      ],
      [
        '{"brokerDatas":[{"brokerAddrs":{},"brokerName":"b"}],"queueDatas":[]}',
        'brokerDatas[0].cluster is missing',
      ],
      [
        '{"brokerDatas":[{"brokerAddrs":{"x":"a:1"},"brokerName":"b","cluster":"c"}],"queueDatas":[]}',
        'brokerDatas[0].brokerAddrs.x',
      ],
      [
        '{"brokerDatas":[{"brokerAddrs":{0:5},"brokerName":"b","cluster":"c"}],"queueDatas":[]}',
        'brokerDatas[0].brokerAddrs.0 is not a string',
      ],
      [
        '{"brokerDatas":[{"brokerAddrs":{},"brokerName":"b","cluster":"c","enableActingMaster":1}],"queueDatas":[]}',
        'brokerDatas[0].enableActingMaster is not a boolean',
      ],
      [
        '{"brokerDatas":[],"queueDatas":[{"brokerName":"b","perm":6,"writeQueueNums":1}]}',
        'queueDatas[0].readQueueNums is missing',
      ],
      [
        '{"brokerDatas":[],"queueDatas":[{"brokerName":"b","readQueueNums":1,"writeQueueNums":1}]}',
        'queueDatas[0].perm is missing',
      ],
      [
        '{"brokerDatas":[],"queueDatas":[{"perm":6,"readQueueNums":1,"writeQueueNums":1}]}',
        'queueDatas[0].brokerName is missing',
      ],
      [
        '{"brokerDatas":[],"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":-1,"writeQueueNums":1}]}',
        'queueDatas[0].readQueueNums is not a non-negative integer',
      ],
      [
        '{"brokerDatas":[],"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":1,"writeQueueNums":"1"}]}',
        'queueDatas[0].writeQueueNums is not a non-negative integer',
      ],
      ['{"brokerDatas":[],"queueDatas":[],"orderTopicConf":5}', 'orderTopicConf is not a string'],
      [
        '{"brokerDatas":[],"queueDatas":[],"filterServerTable":{"a":[1]}}',
        'filterServerTable.a[0] is not a string',
      ],
      ['[]', 'topic route data is not an object'],
      ['', 'topic route data is not valid JSON'],
      ['{"brokerDatas":[{{"topic":"t"}:1}]}', 'topic route data is not valid JSON'],
    ];
    for (const [text, message] of cases) {
      expect(() => parse(text), text).toThrow(ProtocolError);
      expect(() => parse(text), text).toThrow(message);
    }
  });

  it('wraps the JSON parser error as cause', () => {
    try {
      parse('{nope');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).cause).toBeInstanceOf(SyntaxError);
    }
  });

  it('throws only ProtocolError for random bytes and every truncation', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expectProtocolErrorOrValue(() => parseTopicRouteData(Buffer.from(bytes)));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'{}[]:,"\\0123 -abtrue'.split('')), maxLength: 60 }),
        (s) => {
          expectProtocolErrorOrValue(() => parse(s));
        },
      ),
      { numRuns: 2000 },
    );
    for (const text of [STANDARD, LEGACY]) {
      for (let n = 0; n < text.length; n++) expect(() => parse(text.slice(0, n))).toThrow(ProtocolError);
    }
  });
});

/** A route of `groups` broker groups, each with `addrs` addresses and `queues` read and write queues. */
function routeJson(groups: number, queues: number, addrs = 1): string {
  const brokerDatas: string[] = [];
  const queueDatas: string[] = [];
  for (let g = 0; g < groups; g++) {
    const brokerAddrs = Array.from({ length: addrs }, (_, id) => `"${id}":"10.0.${g % 250}.${id}:10911"`);
    brokerDatas.push(`{"brokerAddrs":{${brokerAddrs.join(',')}},"brokerName":"b${g}","cluster":"C"}`);
    queueDatas.push(
      `{"brokerName":"b${g}","perm":6,"readQueueNums":${queues},"topicSysFlag":0,"writeQueueNums":${queues}}`,
    );
  }
  return `{"brokerDatas":[${brokerDatas.join(',')}],"queueDatas":[${queueDatas.join(',')}]}`;
}

function protocolErrorOf(text: string): ProtocolError {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    return error as ProtocolError;
  }
  throw new Error('expected the route to be refused');
}

describe('parseTopicRouteData caps', () => {
  it('refuses readQueueNums 2147483647 naming the field, broker and value, without expanding it', () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const error = protocolErrorOf(STANDARD.replace('"readQueueNums":4', '"readQueueNums":2147483647'));
    expect(error.message).toBe(
      `topic route data queueDatas[0].readQueueNums of broker broker-a is 2147483647, above the cap of ${MAX_ROUTE_QUEUE_NUMS}`,
    );
    // Loose: the old parser allocated 2.4 GB here before giving up.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
  });

  it('refuses a writeQueueNums one above the cap and accepts exactly the cap', () => {
    const over = protocolErrorOf(
      routeJson(1, MAX_ROUTE_QUEUE_NUMS).replace(
        `"writeQueueNums":${MAX_ROUTE_QUEUE_NUMS}`,
        `"writeQueueNums":${MAX_ROUTE_QUEUE_NUMS + 1}`,
      ),
    );
    expect(over.message).toContain(
      `queueDatas[0].writeQueueNums of broker b0 is ${MAX_ROUTE_QUEUE_NUMS + 1}`,
    );
    const route = parse(routeJson(1, MAX_ROUTE_QUEUE_NUMS));
    expect(readableQueues('T', route)).toHaveLength(MAX_ROUTE_QUEUE_NUMS);
  });

  it('refuses 100,000 broker groups before converting any of them', () => {
    // 5 MB: what fits a 16 MiB frame with room to spare.
    const brokerData = '{"brokerAddrs":{"0":"10.0.0.1:10911"},"brokerName":"b","cluster":"C"}';
    const many = Array.from({ length: 100_000 }, () => brokerData).join(',');
    const error = protocolErrorOf(`{"brokerDatas":[${many}],"queueDatas":[]}`);
    expect(error.message).toBe(
      `topic route data brokerDatas has 100000 entries, above the cap of ${MAX_ROUTE_BROKER_GROUPS}`,
    );
  });

  it('refuses too many queue datas', () => {
    const queueData = '{"brokerName":"b","perm":6,"readQueueNums":1,"writeQueueNums":1}';
    const many = Array.from({ length: MAX_ROUTE_BROKER_GROUPS + 1 }, () => queueData).join(',');
    const error = protocolErrorOf(`{"brokerDatas":[],"queueDatas":[${many}]}`);
    expect(error.message).toContain(`queueDatas has ${MAX_ROUTE_BROKER_GROUPS + 1} entries`);
  });

  it('refuses a broker group with too many addresses, naming the broker', () => {
    const error = protocolErrorOf(routeJson(2, 4, MAX_ROUTE_BROKER_ADDRS + 1));
    expect(error.message).toBe(
      `topic route data brokerDatas[0].brokerAddrs of broker b0 has ${MAX_ROUTE_BROKER_ADDRS + 1} addresses, above the cap of ${MAX_ROUTE_BROKER_ADDRS}`,
    );
    expect(parse(routeJson(2, 4, MAX_ROUTE_BROKER_ADDRS)).brokerDatas[1]?.brokerAddrs.size).toBe(
      MAX_ROUTE_BROKER_ADDRS,
    );
  });

  it('refuses a route whose queues add up past the per-topic cap, accepts one that reaches it', () => {
    const groups = MAX_ROUTE_TOTAL_QUEUES / 256;
    const error = protocolErrorOf(routeJson(groups + 1, 256));
    expect(error.message).toContain(`queueDatas add up to ${MAX_ROUTE_TOTAL_QUEUES + 256} queues`);
    expect(error.message).toContain(`above the cap of ${MAX_ROUTE_TOTAL_QUEUES}`);
    const route = parse(routeJson(groups, 256, 3));
    expect(readableQueues('T', route)).toHaveLength(MAX_ROUTE_TOTAL_QUEUES);
    expect(writableQueues('T', route)).toHaveLength(MAX_ROUTE_TOTAL_QUEUES);
  });

  it('caps leave real clusters alone: 64 broker groups of 256 queues with 3 replicas each', () => {
    const route = parse(routeJson(64, 256, 3));
    expect(route.brokerDatas).toHaveLength(64);
    expect(readableQueues('T', route)).toHaveLength(64 * 256);
  });
});

describe('queues from a route', () => {
  const route = parse(
    '{"brokerDatas":[' +
      '{"brokerAddrs":{0:"a:1",1:"a2:1"},"brokerName":"broker-b","cluster":"c"},' +
      '{"brokerAddrs":{0:"b:1"},"brokerName":"broker-a","cluster":"c"},' +
      '{"brokerAddrs":{1:"s:1"},"brokerName":"broker-c","cluster":"c"}],' +
      '"queueDatas":[' +
      '{"brokerName":"broker-b","perm":6,"readQueueNums":2,"topicSysFlag":0,"writeQueueNums":3},' +
      '{"brokerName":"broker-a","perm":4,"readQueueNums":11,"topicSysFlag":0,"writeQueueNums":11},' +
      '{"brokerName":"broker-c","perm":6,"readQueueNums":1,"topicSysFlag":0,"writeQueueNums":1},' +
      '{"brokerName":"broker-d","perm":2,"readQueueNums":5,"topicSysFlag":0,"writeQueueNums":1}]}',
  );

  it('readableQueues takes READ queue datas, readQueueNums each, sorted', () => {
    const queues = readableQueues('T', route);
    expect(queues.map((q) => `${q.brokerName}:${q.queueId}`)).toEqual([
      ...Array.from({ length: 11 }, (_, i) => `broker-a:${i}`),
      'broker-b:0',
      'broker-b:1',
      'broker-c:0',
    ]);
    expect(queues.every((q) => q.topic === 'T')).toBe(true);
  });

  it('writableQueues takes WRITE queue datas whose broker has a master, writeQueueNums each', () => {
    expect(writableQueues('T', route)).toEqual([
      { topic: 'T', brokerName: 'broker-b', queueId: 0 },
      { topic: 'T', brokerName: 'broker-b', queueId: 1 },
      { topic: 'T', brokerName: 'broker-b', queueId: 2 },
    ]);
  });

  it('masterAddress is broker id 0', () => {
    expect(route.brokerDatas.map(masterAddress)).toEqual(['a:1', 'b:1', undefined]);
  });

  it('PermName has the Java bit values', () => {
    expect(PermName).toEqual({ PRIORITY: 8, READ: 4, WRITE: 2, INHERIT: 1 });
  });
});
