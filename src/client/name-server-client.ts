/**
 * Route lookups (GET_ROUTEINFO_BY_TOPIC) against one or more name servers, with failover and a route
 * cache. Name servers hold the same data, so any of them answers; we stick to the last one that did.
 */

import { RocketMQError } from '../errors.js';
import { parseNameServerAddresses } from '../network/name-server-addresses.js';
import { ProtocolError } from '../protocol/errors.js';
import type { GetRouteInfoRequestHeader } from '../protocol/headers.js';
import { toExtFields } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { parseTopicRouteData, type TopicRouteData } from '../protocol/route-data.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { ThrottledLog } from '../util/throttled-log.js';
import { BrokerError, expectSuccess } from './broker-error.js';
import type { RemotingTransport } from './transport.js';

/**
 * Java's name server RPC timeout.
 */
export const DEFAULT_NAME_SERVER_TIMEOUT_MS = 3000;

/**
 * Options of {@link NameServerClient}.
 */
export interface NameServerClientOptions {
  /** Name server addresses, as a list or Java's `a:9876;b:9876` string. */
  addresses: readonly string[] | string;
  transport: RemotingTransport;
  /** @default 3000 */
  timeoutMs?: number | undefined;
  logger?: Logger | undefined;
}

/**
 * Looks up topic routes.
 */
export class NameServerClient {
  readonly addresses: readonly string[];
  private readonly transport: RemotingTransport;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  /**
   * A name server that fails is asked again within seconds while a consumer lacks a route
   * (membership-recovery.ts): one line per name server and kind of failure per interval, with counts.
   */
  private readonly warnings: ThrottledLog;
  private readonly routes = new Map<string, TopicRouteData>();
  private readonly inFlight = new Map<string, Promise<TopicRouteData>>();
  private preferredIndex = 0;

  constructor(options: NameServerClientOptions) {
    this.addresses = parseNameServerAddresses(options.addresses);
    if (this.addresses.length === 0) throw new RocketMQError('at least one name server address is required');
    this.transport = options.transport;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_NAME_SERVER_TIMEOUT_MS;
    this.log = componentLogger('client.name-server', options.logger);
    this.warnings = new ThrottledLog(this.log);
  }

  /** The name server that answered last (tried first next time). */
  get preferredAddress(): string {
    return this.addresses[this.preferredIndex] ?? (this.addresses[0] as string);
  }

  /**
   * The topic's route: from the cache unless `refresh` is set or none is cached. Concurrent lookups of
   * one topic share one request. Throws {@link BrokerError} with code TOPIC_NOT_EXIST (not retriable)
   * when no name server knows the topic.
   */
  async getRoute(topic: string, options: { refresh?: boolean } = {}): Promise<TopicRouteData> {
    if (!options.refresh) {
      const cached = this.routes.get(topic);
      if (cached !== undefined) return cached;
    }
    const pending = this.inFlight.get(topic);
    if (pending !== undefined) return pending;
    const lookup = this.queryRoute(topic).finally(() => this.inFlight.delete(topic));
    this.inFlight.set(topic, lookup);
    const route = await lookup;
    this.routes.set(topic, route);
    return route;
  }

  /** The cached route of a topic, if any; never does I/O. */
  cachedRoute(topic: string): TopicRouteData | undefined {
    return this.routes.get(topic);
  }

  /** Forgets a topic's cached route (after a staleRoute error, for example). */
  invalidate(topic: string): void {
    this.routes.delete(topic);
  }

  /**
   * Asks the name servers for a route, bypassing the cache: the preferred one first, then each other
   * one on network errors, retriable answers (e.g. "name server not ready") and routes that fail to
   * parse or exceed the route caps (ProtocolError, thrown when every name server gave one).
   */
  async queryRoute(topic: string): Promise<TopicRouteData> {
    const header: GetRouteInfoRequestHeader = { topic, acceptStandardJsonOnly: true };
    const request = { code: RequestCode.GET_ROUTEINFO_BY_TOPIC, extFields: toExtFields(header) };
    let lastError: unknown;
    for (let attempt = 0; attempt < this.addresses.length; attempt++) {
      const index = (this.preferredIndex + attempt) % this.addresses.length;
      const address = this.addresses[index] as string;
      let response: Awaited<ReturnType<RemotingTransport['request']>>;
      try {
        response = await this.transport.request(address, request, this.timeoutMs);
      } catch (error) {
        this.warnings.warn(
          `request:${address}`,
          { address, topic, err: error },
          'name server request failed, trying the next one',
        );
        lastError = error;
        continue;
      }
      if (response.code === ResponseCode.TOPIC_NOT_EXIST) {
        this.preferredIndex = index;
        throw new BrokerError({
          code: response.code,
          remark: response.remark,
          requestCode: request.code,
          address,
          retriable: false,
        });
      }
      try {
        expectSuccess(response, request, address);
      } catch (error) {
        if (error instanceof BrokerError && error.retriable) {
          this.warnings.warn(
            `refused:${address}`,
            { address, topic, err: error },
            'name server refused, trying the next one',
          );
          lastError = error;
          continue;
        }
        throw error;
      }
      if (response.body === undefined) {
        this.preferredIndex = index;
        throw new ProtocolError(`GET_ROUTEINFO_BY_TOPIC response from ${address} for ${topic} has no body`);
      }
      let route: TopicRouteData;
      try {
        route = parseTopicRouteData(response.body);
      } catch (error) {
        // A malformed or oversized route (see MAX_ROUTE_QUEUE_NUMS) from one name server: another may
        // answer sanely; if none does, the caller keeps the route it had.
        this.warnings.warn(
          `unusable:${address}`,
          { address, topic, err: error },
          'name server sent an unusable route, trying the next one',
        );
        lastError = error;
        continue;
      }
      this.preferredIndex = index;
      for (const kind of ['request', 'refused', 'unusable']) this.warnings.clear(`${kind}:${address}`);
      return route;
    }
    throw lastError;
  }
}
