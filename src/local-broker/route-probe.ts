/**
 * One-shot requests over a fresh socket, the readiness check of the local broker: GET_ROUTEINFO_BY_TOPIC
 * (105) to the name server, and the registration nudge to the broker. They depend only on the
 * protocol layer, so they work before (and independently of) the client's connection machinery;
 * against a TLS-enforcing or ACL-enabled broker they connect with TLS and sign their requests.
 */

import net from 'node:net';
import tls from 'node:tls';
import { type AclCredentials, signRequest } from '../protocol/acl-signer.js';
import { ProtocolError } from '../protocol/errors.js';
import {
  CLIENT_LANGUAGE,
  CLIENT_VERSION,
  decodeFrame,
  encodeFrame,
  FrameSplitter,
  isResponse,
  type RemotingCommand,
} from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { splitHostPort } from '../util/split-host-port.js';
import { LocalBrokerError } from './local-broker-error.js';

/** One broker of a route: its name, cluster and addresses by broker id (`"0"` is the master). */
export interface ProbedBrokerData {
  brokerName: string;
  cluster: string;
  brokerAddrs: Record<string, string>;
}

/** One topic's queues on one broker. */
export interface ProbedQueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
}

/** The parts of a TopicRouteData the readiness check and tests look at. */
export interface ProbedTopicRoute {
  brokerDatas: ProbedBrokerData[];
  queueDatas: ProbedQueueData[];
}

/** What the name server answered. */
export interface RouteProbeResult {
  /** Response code: 0 with a route, 17 (TOPIC_NOT_EXIST) before any broker registered the topic. */
  code: number;
  remark?: string | undefined;
  /** The route when `code` is 0. */
  route?: ProbedTopicRoute | undefined;
}

/**
 * How a one-shot request reaches its server: plaintext and unsigned unless told otherwise.
 */
export interface ProbeConnectOptions {
  /** Connect with TLS, with these options (`host` and `port` are added). @default plaintext */
  tls?: tls.ConnectionOptions | undefined;
  /** Sign the request with these ACL credentials. @default unsigned */
  credentials?: AclCredentials | undefined;
}

/** Options of {@link probeTopicRoute}. */
export interface RouteProbeOptions extends ProbeConnectOptions {
  /** Gives up (rejects) after this long, connect (and TLS handshake) included. @default 3000 */
  timeoutMs?: number;
}

/**
 * Asks the name server at `namesrvAddr` (`host:port`) for the route of `topic`, over a socket of its
 * own that is closed afterwards. Sends version 401 and `acceptStandardJsonOnly=true`, so the body
 * is standard JSON. Rejects with {@link LocalBrokerError} when the server cannot be reached or does
 * not answer in time, with {@link ProtocolError} when the answer is malformed.
 */
export async function probeTopicRoute(
  namesrvAddr: string,
  topic: string,
  options: RouteProbeOptions = {},
): Promise<RouteProbeResult> {
  const response = await oneShotRequest(
    namesrvAddr,
    { code: RequestCode.GET_ROUTEINFO_BY_TOPIC, extFields: { topic, acceptStandardJsonOnly: 'true' } },
    options.timeoutMs ?? 3000,
    options,
  );
  return toProbeResult(response);
}

/**
 * Sends one request over a socket of its own and resolves with the response, closing the socket.
 * Rejects with {@link LocalBrokerError} when the server cannot be reached (TLS handshake failures
 * included, as its `cause`) or does not answer within `timeoutMs` (connect included), with
 * {@link ProtocolError} on undecodable bytes.
 */
export function oneShotRequest(
  address: string,
  request: { code: number; extFields: Record<string, string>; body?: Buffer },
  timeoutMs: number,
  connect: ProbeConnectOptions = {},
): Promise<RemotingCommand> {
  const { host, port } = splitAddress(address);
  const opaque = 1;
  const extFields =
    connect.credentials === undefined
      ? request.extFields
      : signRequest(request.extFields, request.body, connect.credentials);
  const frame = encodeFrame({
    ...request,
    extFields,
    language: CLIENT_LANGUAGE,
    version: CLIENT_VERSION,
    opaque,
    flag: 0,
  });
  return new Promise<RemotingCommand>((resolve, reject) => {
    const onConnected = (): void => {
      socket.write(frame);
    };
    const socket =
      connect.tls === undefined
        ? net.connect({ host, port }, onConnected)
        : tls.connect({ ...connect.tls, host, port }, onConnected);
    const splitter = new FrameSplitter();
    let settled = false;
    const finish = (outcome: { response: RemotingCommand } | { error: Error }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if ('response' in outcome) resolve(outcome.response);
      else reject(outcome.error);
    };
    const timer = setTimeout(() => {
      finish({ error: new LocalBrokerError(`${address} did not answer within ${timeoutMs} ms`) });
    }, timeoutMs);
    socket.on('error', (cause) => {
      finish({ error: new LocalBrokerError(`cannot reach ${address}`, { cause }) });
    });
    socket.on('close', () => {
      finish({ error: new LocalBrokerError(`${address} closed the connection before answering`) });
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const raw of splitter.push(chunk)) {
          const response = decodeFrame(raw);
          if (isResponse(response) && response.opaque === opaque) {
            finish({ response });
            return;
          }
        }
      } catch (err) {
        finish({
          error: err instanceof Error ? err : new ProtocolError('undecodable response', { cause: err }),
        });
      }
    });
  });
}

function toProbeResult(response: RemotingCommand): RouteProbeResult {
  if (response.code !== 0 || response.body === undefined) {
    return { code: response.code, remark: response.remark };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch (cause) {
    throw new ProtocolError('route body is not standard JSON', { cause });
  }
  return { code: response.code, remark: response.remark, route: toRoute(parsed) };
}

function toRoute(value: unknown): ProbedTopicRoute {
  const root = asRecord(value, 'route');
  const brokerDatas = asArray(root.brokerDatas ?? [], 'brokerDatas').map((item) => {
    const data = asRecord(item, 'brokerData');
    const addrs = asRecord(data.brokerAddrs ?? {}, 'brokerAddrs');
    const brokerAddrs: Record<string, string> = {};
    for (const [id, addr] of Object.entries(addrs)) brokerAddrs[id] = String(addr);
    return { brokerName: String(data.brokerName), cluster: String(data.cluster), brokerAddrs };
  });
  const queueDatas = asArray(root.queueDatas ?? [], 'queueDatas').map((item) => {
    const data = asRecord(item, 'queueData');
    return {
      brokerName: String(data.brokerName),
      readQueueNums: Number(data.readQueueNums),
      writeQueueNums: Number(data.writeQueueNums),
      perm: Number(data.perm),
    };
  });
  return { brokerDatas, queueDatas };
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProtocolError(`route field ${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new ProtocolError(`route field ${what} is not an array`);
  return value;
}

function splitAddress(address: string): { host: string; port: number } {
  const parsed = splitHostPort(address);
  if (parsed === undefined || parsed.port === 0)
    throw new LocalBrokerError(`address ${address} is not host:port`);
  return parsed;
}
