import { describe, expect, it } from 'vitest';
import { proxyConfig } from '../../../src/local-broker/proxy-config.js';

describe('the local proxy configuration', () => {
  const config = proxyConfig({
    clusterName: 'DefaultCluster',
    namesrvAddr: '127.0.0.1:19876',
    remotingPort: 18080,
    grpcPort: 18081,
    maxMessageBytes: 10_485_760,
  });

  it('runs in cluster mode in front of the given namesrv and cluster', () => {
    expect(config).toMatchObject({
      proxyMode: 'cluster',
      rocketMQClusterName: 'DefaultCluster',
      namesrvAddr: '127.0.0.1:19876',
    });
  });

  it('listens on the given ports and names itself 127.0.0.1 in the routes it answers', () => {
    expect(config).toMatchObject({ remotingListenPort: 18080, grpcServerPort: 18081 });
    expect(config.remotingAccessAddr).toBe('127.0.0.1');
    expect(config.enableRemotingLocalProxyGrpc).toBe(false);
  });

  it("lets messages as large as the broker's through (the proxy's own limit is 4 MiB)", () => {
    expect(config.maxMessageSize).toBe(10_485_760);
  });
});
