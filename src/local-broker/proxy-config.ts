/**
 * The configuration file (`rmq-proxy.json`) of a local RocketMQ 5.x proxy in cluster mode: its remoting
 * and gRPC ports, the namesrv of the cluster behind it, and the address it hands clients in routes.
 * A pure function from options to values.
 */

/** Inputs of {@link proxyConfig}. */
export interface ProxyConfigInput {
  /** The cluster the proxy serves (`rocketMQClusterName`). */
  clusterName: string;
  /** The namesrv of that cluster. */
  namesrvAddr: string;
  /** The remoting port clients use as their name server and broker. */
  remotingPort: number;
  /** The gRPC port (unused by our client, but the proxy always opens it). */
  grpcPort: number;
  /** The broker's `maxMessageSize`: the proxy checks message sizes itself (4 MiB unless told). */
  maxMessageBytes: number;
}

/**
 * The proxy's values. `remotingAccessAddr` is the host the proxy writes into every route it answers
 * (as broker address, with its remoting port); unset, it is the host's first non-loopback address,
 * which loopback-only tests cannot rely on.
 */
export function proxyConfig(input: ProxyConfigInput): Record<string, string | number | boolean> {
  return {
    proxyMode: 'cluster',
    rocketMQClusterName: input.clusterName,
    proxyClusterName: input.clusterName,
    proxyName: 'local-proxy',
    namesrvAddr: input.namesrvAddr,
    remotingListenPort: input.remotingPort,
    grpcServerPort: input.grpcPort,
    localServeAddr: '127.0.0.1',
    remotingAccessAddr: '127.0.0.1',
    // The remoting server speaks remoting only: no gRPC sniffing on the remoting port (local mode's).
    enableRemotingLocalProxyGrpc: false,
    maxMessageSize: input.maxMessageBytes,
    // A slow thread pool would otherwise print jstacks into the log every minute on a busy 2-core box.
    enablePrintJstack: false,
  };
}
