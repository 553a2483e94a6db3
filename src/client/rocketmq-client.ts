/**
 * The composition root of the client layer, one per poller instance: a connection pool (ACL-signing
 * every request when credentials are set), the name server client, broker and admin calls, the
 * handler for broker-initiated requests, and this instance's client id.
 */
import type tls from 'node:tls';
import { ConnectionPool } from '../network/connection-pool.js';
import { type AclCredentials, signRequest } from '../protocol/acl-signer.js';
import { FLAG_RESPONSE, type RemotingCommand } from '../protocol/remoting-command.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { BrokerAdminClient } from './admin-client.js';
import { BrokerClient, type BrokerTimeouts } from './broker-client.js';
import { createClientId } from './client-id.js';
import { ClientRequestHandler } from './client-request-handler.js';
import { NameServerClient } from './name-server-client.js';

/**
 * Options of {@link RocketMQClient}.
 *
 * @example
 * ```ts
 * new RocketMQClient({ nameServerAddresses: ['ns1:9876', 'ns2:9876'], credentials: { accessKey: 'ak', secretKey: 'sk' } });
 * ```
 */
export interface RocketMQClientOptions {
  /** Name server addresses, as a list or `a:9876;b:9876`. */
  nameServerAddresses: readonly string[] | string;
  /** ACL credentials: when set, every request is signed. */
  credentials?: AclCredentials | undefined;
  /** TLS towards name servers and brokers. */
  tls?: boolean | tls.ConnectionOptions | undefined;
  /** A fixed client id; default: a new unique `ip@pid#unique`. */
  clientId?: string | undefined;
  /** The IP part of the generated client id. */
  clientIp?: string | undefined;
  /** @default 3000 */
  connectTimeoutMs?: number | undefined;
  /** @default 3000 */
  nameServerTimeoutMs?: number | undefined;
  timeouts?: Partial<BrokerTimeouts> | undefined;
  logger?: Logger | undefined;
}

/**
 * Everything a consumer or producer needs to talk to RocketMQ.
 *
 * @example
 * ```ts
 * const client = new RocketMQClient({ nameServerAddresses: '127.0.0.1:9876' });
 * const route = await client.nameServer.getRoute('TopicTest');
 * client.requestHandler.onConsumerIdsChanged((group) => rebalanceNow(group));
 * await client.close();
 * ```
 */
export class RocketMQClient {
  /** This instance's client id (`ip@pid#unique`). */
  readonly clientId: string;
  readonly pool: ConnectionPool;
  readonly nameServer: NameServerClient;
  readonly broker: BrokerClient;
  readonly admin: BrokerAdminClient;
  readonly requestHandler: ClientRequestHandler;
  private closed = false;

  constructor(options: RocketMQClientOptions) {
    const logger = options.logger;
    this.clientId = options.clientId ?? createClientId({ ip: options.clientIp });
    this.requestHandler = new ClientRequestHandler({ logger });
    const credentials = options.credentials;
    this.pool = new ConnectionPool({
      requestHandler: this.requestHandler.handle,
      ...(credentials === undefined ? {} : { beforeSend: (command) => signCommand(command, credentials) }),
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      logger: componentLogger('network.connection', logger),
    });
    this.nameServer = new NameServerClient({
      addresses: options.nameServerAddresses,
      transport: this.pool,
      timeoutMs: options.nameServerTimeoutMs,
      logger,
    });
    this.broker = new BrokerClient({ transport: this.pool, timeouts: options.timeouts });
    this.admin = new BrokerAdminClient({ transport: this.pool });
  }

  /** Closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
  }
}

/**
 * Signs an outgoing request with ACL credentials (replies are never signed).
 */
export function signCommand(command: RemotingCommand, credentials: AclCredentials): RemotingCommand {
  if ((command.flag & FLAG_RESPONSE) !== 0) return command;
  return { ...command, extFields: signRequest(command.extFields, command.body, credentials) };
}
