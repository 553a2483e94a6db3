/**
 * Topic route data from the name server (GET_ROUTEINFO_BY_TOPIC body) and what a client derives from it:
 * the readable/writable queues and the broker addresses.
 *
 * Body shape (fastjson `TopicRouteData`; absent/null fields omitted):
 * ```
 * { "brokerDatas": [{ "brokerAddrs": {"0": "host:port", ...}, "brokerName", "cluster",
 *                     "enableActingMaster"?, "zoneName"? }],
 *   "queueDatas":  [{ "brokerName", "perm", "readQueueNums", "topicSysFlag" | "topicSynFlag",
 *                     "writeQueueNums" }],
 *   "filterServerTable"?: { addr: [addr] }, "orderTopicConf"?, "topicQueueMappingByBroker"? }
 * ```
 * `brokerAddrs` keys are bare (`{0:"..."}`) unless the request had version >= 401 or
 * `acceptStandardJsonOnly=true`; we accept both.
 *
 * A route is peer-supplied and its counts turn into allocations (`readQueueNums: 2147483647` once took
 * a poller to 2.4 GB in 15 s), so every count is capped. The caps are far above real clusters (topics
 * of 64-256 queues per broker, dozens of broker groups); a route over one is refused whole.
 */
import { ProtocolError } from './errors.js';
import { parseFastjson } from './fastjson.js';
import { compareMessageQueues, type MessageQueue } from './message-queue.js';

/**
 * Queue permission bits (Java `PermName`).
 */
export const PermName = { PRIORITY: 8, READ: 4, WRITE: 2, INHERIT: 1 } as const;

/**
 * Broker id of a broker group's master in `brokerAddrs`.
 */
export const MASTER_BROKER_ID = 0;

/**
 * Most read or write queues one broker group may offer a topic: 4096. Common topics have 8-256 queues per
 * broker; each queue costs the broker at least one mapped consume-queue file (300,000 entries of 20 bytes,
 * 5.7 MB), so 4096 queues of one topic on one broker is already 23 GB of consume queue.
 */
export const MAX_ROUTE_QUEUE_NUMS = 4096;

/**
 * Most broker groups (`brokerDatas`) and queue datas (`queueDatas`, one per group) a route may list:
 * 1024. Large clusters run dozens of broker groups, the largest public ones a few hundred; every group
 * listed also costs a heartbeat and a connection per address.
 */
export const MAX_ROUTE_BROKER_GROUPS = 1024;

/**
 * Most addresses (`brokerAddrs`: a master and its replicas) one broker group may list: 16. Groups have
 * one to three brokers, five in DLedger or controller mode; 16 is three times that.
 */
export const MAX_ROUTE_BROKER_ADDRS = 16;

/**
 * Most queues a topic's route may add up to (per group, the larger of its read and write counts): 65,536,
 * 256 broker groups of 256 queues. It bounds what {@link readableQueues} and {@link writableQueues}
 * allocate (a few MB) whatever the individual counts.
 */
export const MAX_ROUTE_TOTAL_QUEUES = 65_536;

/**
 * One broker group (a master and its slaves) serving the topic.
 *
 * `brokerAddrs` is a `Map` from broker id (0 = master, > 0 = slaves) to `host:port`; the JSON keys
 * (strings, or bare integers from old name servers) are parsed to numbers.
 */
export interface BrokerData {
  cluster: string;
  brokerName: string;
  brokerAddrs: Map<number, string>;
  enableActingMaster?: boolean;
  zoneName?: string;
}

/**
 * The queues one broker group offers for the topic.
 */
export interface QueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  /** {@link PermName} bits. */
  perm: number;
  /** Written as `topicSynFlag` by brokers before 4.9.x; read from either. */
  topicSysFlag: number;
}

/**
 * A topic's route as returned by the name server.
 */
export interface TopicRouteData {
  brokerDatas: BrokerData[];
  queueDatas: QueueData[];
  /** `brokerName:writeQueueNums;...` for order topics when the name server has `orderMessageEnable`. */
  orderTopicConf?: string;
  /** Broker address → filter server addresses (filter servers are gone in 5.x; usually empty). */
  filterServerTable?: Record<string, string[]>;
  /**
   * Present only for static (logical-queue) topics, which this client does not support; kept raw.
   * Use {@link isStaticTopic} to detect them.
   */
  topicQueueMappingByBroker?: Record<string, unknown>;
}

type JsonObject = Record<string, unknown>;

/**
 * Parses a GET_ROUTEINFO_BY_TOPIC response body. Accepts standard JSON and fastjson's bare integer
 * keys, then checks the shape and the caps ({@link MAX_ROUTE_QUEUE_NUMS} and friends). Throws
 * {@link ProtocolError} naming the offending field (and broker, and value, for a cap).
 */
export function parseTopicRouteData(body: Buffer): TopicRouteData {
  const root = requireObject(parseFastjson(body, 'topic route data'), 'topic route data');
  // Lengths first: a route of 100,000 brokers is refused before a single entry is converted.
  const brokerDatas = requireArray(root.brokerDatas, 'brokerDatas');
  const queueDatas = requireArray(root.queueDatas, 'queueDatas');
  requireAtMost(brokerDatas.length, MAX_ROUTE_BROKER_GROUPS, 'brokerDatas has', 'entries');
  requireAtMost(queueDatas.length, MAX_ROUTE_BROKER_GROUPS, 'queueDatas has', 'entries');
  const route: TopicRouteData = {
    brokerDatas: brokerDatas.map((item, i) => parseBrokerData(item, `brokerDatas[${i}]`)),
    queueDatas: queueDatas.map((item, i) => parseQueueData(item, `queueDatas[${i}]`)),
  };
  let totalQueues = 0;
  for (const queueData of route.queueDatas) {
    totalQueues += Math.max(queueData.readQueueNums, queueData.writeQueueNums);
  }
  requireAtMost(
    totalQueues,
    MAX_ROUTE_TOTAL_QUEUES,
    'queueDatas add up to',
    'queues (per broker, the larger of readQueueNums and writeQueueNums)',
  );
  if (root.orderTopicConf !== undefined && root.orderTopicConf !== null) {
    route.orderTopicConf = requireString(root.orderTopicConf, 'orderTopicConf');
  }
  if (root.filterServerTable !== undefined && root.filterServerTable !== null) {
    const table = requireObject(root.filterServerTable, 'filterServerTable');
    const out: Record<string, string[]> = {};
    for (const [addr, servers] of Object.entries(table)) {
      const field = `filterServerTable.${addr}`;
      defineOwn(
        out,
        addr,
        requireArray(servers, field).map((s, i) => requireString(s, `${field}[${i}]`)),
      );
    }
    route.filterServerTable = out;
  }
  if (root.topicQueueMappingByBroker !== undefined && root.topicQueueMappingByBroker !== null) {
    route.topicQueueMappingByBroker = requireObject(
      root.topicQueueMappingByBroker,
      'topicQueueMappingByBroker',
    );
  }
  return route;
}

function parseBrokerData(value: unknown, path: string): BrokerData {
  const o = requireObject(value, path);
  const brokerName = requireString(o.brokerName, `${path}.brokerName`);
  const addrs = requireObject(o.brokerAddrs, `${path}.brokerAddrs`);
  requireAtMost(
    Object.keys(addrs).length,
    MAX_ROUTE_BROKER_ADDRS,
    `${path}.brokerAddrs of broker ${brokerName} has`,
    'addresses',
  );
  const brokerAddrs = new Map<number, string>();
  for (const [key, addr] of Object.entries(addrs)) {
    const field = `${path}.brokerAddrs.${key}`;
    if (!/^-?\d{1,16}$/.test(key) || !Number.isSafeInteger(Number(key))) {
      throw new ProtocolError(`topic route data ${field}: broker id is not an integer`);
    }
    brokerAddrs.set(Number(key), requireString(addr, field));
  }
  const brokerData: BrokerData = {
    cluster: requireString(o.cluster, `${path}.cluster`),
    brokerName,
    brokerAddrs,
  };
  if (o.enableActingMaster !== undefined && o.enableActingMaster !== null) {
    if (typeof o.enableActingMaster !== 'boolean') {
      throw new ProtocolError(`topic route data ${path}.enableActingMaster is not a boolean`);
    }
    brokerData.enableActingMaster = o.enableActingMaster;
  }
  if (o.zoneName !== undefined && o.zoneName !== null) {
    brokerData.zoneName = requireString(o.zoneName, `${path}.zoneName`);
  }
  return brokerData;
}

function parseQueueData(value: unknown, path: string): QueueData {
  const o = requireObject(value, path);
  const flag = o.topicSysFlag ?? o.topicSynFlag;
  const brokerName = requireString(o.brokerName, `${path}.brokerName`);
  return {
    brokerName,
    readQueueNums: requireQueueNums(o.readQueueNums, `${path}.readQueueNums`, brokerName),
    writeQueueNums: requireQueueNums(o.writeQueueNums, `${path}.writeQueueNums`, brokerName),
    perm: requireCount(o.perm, `${path}.perm`),
    topicSysFlag: flag === undefined || flag === null ? 0 : requireCount(flag, `${path}.topicSysFlag`),
  };
}

function requireObject(value: unknown, field: string): JsonObject {
  if (value === undefined || value === null) throw new ProtocolError(`topic route data ${field} is missing`);
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ProtocolError(`topic route data ${field} is not an object`);
  }
  return value as JsonObject;
}

function requireArray(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) throw new ProtocolError(`topic route data ${field} is missing`);
  if (!Array.isArray(value)) throw new ProtocolError(`topic route data ${field} is not an array`);
  return value;
}

function requireString(value: unknown, field: string): string {
  if (value === undefined || value === null) throw new ProtocolError(`topic route data ${field} is missing`);
  if (typeof value !== 'string') throw new ProtocolError(`topic route data ${field} is not a string`);
  return value;
}

/** A non-negative Java int. */
function requireCount(value: unknown, field: string): number {
  if (value === undefined || value === null) throw new ProtocolError(`topic route data ${field} is missing`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
    throw new ProtocolError(`topic route data ${field} is not a non-negative integer`);
  }
  return value;
}

/** A queue count of one broker group, at most {@link MAX_ROUTE_QUEUE_NUMS}. */
function requireQueueNums(value: unknown, field: string, brokerName: string): number {
  const count = requireCount(value, field);
  requireAtMost(count, MAX_ROUTE_QUEUE_NUMS, `${field} of broker ${brokerName} is`, '');
  return count;
}

/** Refuses a count above its cap: `topic route data <subject> <count> <unit>, above the cap of <max>`. */
function requireAtMost(count: number, max: number, subject: string, unit: string): void {
  if (count <= max) return;
  const what = unit === '' ? `${count}` : `${count} ${unit}`;
  throw new ProtocolError(`topic route data ${subject} ${what}, above the cap of ${max}`);
}

/** Sets an own property even for a key such as `__proto__`. */
function defineOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * True when the route describes a static (logical-queue) topic, whose queues this client cannot map.
 */
export function isStaticTopic(route: TopicRouteData): boolean {
  return (
    route.topicQueueMappingByBroker !== undefined && Object.keys(route.topicQueueMappingByBroker).length > 0
  );
}

/**
 * The queues a consumer may subscribe to: ids `0..readQueueNums-1` of every queue data with READ
 * permission (Java `topicRouteData2TopicSubscribeInfo`), sorted with {@link compareMessageQueues}.
 */
export function readableQueues(topic: string, route: TopicRouteData): MessageQueue[] {
  const queues = new Map<string, MessageQueue>();
  for (const qd of route.queueDatas) {
    if ((qd.perm & PermName.READ) === 0) continue;
    for (let queueId = 0; queueId < qd.readQueueNums; queueId++) {
      queues.set(`${qd.brokerName}@${queueId}`, { topic, brokerName: qd.brokerName, queueId });
    }
  }
  return [...queues.values()].sort(compareMessageQueues);
}

/**
 * The queues a producer may send to: ids `0..writeQueueNums-1` of every queue data with WRITE
 * permission whose broker group has a master (Java `topicRouteData2TopicPublishInfo` for a normal
 * topic), sorted with {@link compareMessageQueues}.
 */
export function writableQueues(topic: string, route: TopicRouteData): MessageQueue[] {
  const queues = new Map<string, MessageQueue>();
  for (const qd of route.queueDatas) {
    if ((qd.perm & PermName.WRITE) === 0) continue;
    const brokerData = route.brokerDatas.find((bd) => bd.brokerName === qd.brokerName);
    if (brokerData === undefined || masterAddress(brokerData) === undefined) continue;
    for (let queueId = 0; queueId < qd.writeQueueNums; queueId++) {
      queues.set(`${qd.brokerName}@${queueId}`, { topic, brokerName: qd.brokerName, queueId });
    }
  }
  return [...queues.values()].sort(compareMessageQueues);
}

/**
 * The master's address (broker id 0) of a broker group, or undefined while the group has no master.
 */
export function masterAddress(brokerData: BrokerData): string | undefined {
  return brokerData.brokerAddrs.get(MASTER_BROKER_ID);
}
