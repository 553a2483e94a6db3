/**
 * The local cluster launcher with TLS and ACL 2.0, as the single broker's: a group of a master and a
 * slave, TLS-only, every request signed. Our own setup requests (readiness, topic creation) use the CA
 * and the super user; the slave replicates from its master; a client with both sends and pulls, and an
 * unsigned one is refused.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import type { LocalCluster } from '../../../src/local-broker/local-cluster.js';
import { buildTlsConnectionOptions } from '../../../src/network/tls-options.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type TlsTestCerts, tlsTestCerts } from '../../support/tls-certs.js';
import { waitFor } from '../../support/wait-for.js';
import { CLUSTER_HEAP_MB, startOwnCluster } from './own-cluster.js';

const ADMIN = { accessKey: 'cluster-admin', secretKey: 'cluster-secret-1' };

let certs: TlsTestCerts;
let cluster: LocalCluster;

beforeAll(async () => {
  certs = await tlsTestCerts();
  cluster = await startOwnCluster({
    brokerGroups: 1,
    slavesPerGroup: 1,
    heapMb: CLUSTER_HEAP_MB,
    tls: { certPath: certs.server.certPath, keyPath: certs.server.keyPath, caPath: certs.ca.certPath },
    acl: ADMIN,
  });
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
}, 60_000);

function newClient(credentials: typeof ADMIN | undefined): RocketMQClient {
  const client = new RocketMQClient({
    nameServerAddresses: cluster.namesrvAddr,
    tls: buildTlsConnectionOptions({ caPem: certs.ca.certPem }),
    credentials,
  });
  onTestFinished(() => client.close());
  return client;
}

describe('local cluster with TLS and ACL', () => {
  it('creates topics on master and slave, replicates, serves a signed TLS client and refuses an unsigned one', async () => {
    const topic = uniqueTopic('cl_tlsacl');
    await cluster.createTopic(topic, 1);
    const master = cluster.node('broker-a', 0);
    const slave = cluster.node('broker-a', 1);

    const client = newClient(ADMIN);
    const producer = new Producer({ client });
    await producer.start();
    onTestFinished(() => producer.shutdown());
    for (const body of ['one', 'two', 'three']) {
      expect((await producer.send({ topic, body }, { queueId: 0 })).status).toBe('SEND_OK');
    }
    await waitFor('the slave to replicate', 60_000, async () =>
      (await client.broker.getMaxOffset(slave.address, { topic, queueId: 0 })) === 3 ? true : undefined,
    );
    const pulled = await client.broker.pullMessage(master.address, {
      consumerGroup: uniqueGroup('cl_tlsacl'),
      topic,
      queueId: 0,
      queueOffset: 0,
      maxMsgNums: 32,
      sysFlag: buildPullSysFlag({ suspend: false, subscription: true }),
      commitOffset: 0,
      suspendTimeoutMillis: 15_000,
      subscription: '*',
      expressionType: 'TAG',
      subVersion: 0,
      bname: 'broker-a',
    });
    expect(pulled.status === 'FOUND' ? pulled.messages.map((m) => m.body.toString()) : []).toEqual([
      'one',
      'two',
      'three',
    ]);

    const unsigned = newClient(undefined);
    // ACL 2.0 refuses unsigned requests with NO_PERMISSION (16), a permanent refusal.
    await expect(
      unsigned.broker.queryConsumerOffset(master.address, {
        consumerGroup: uniqueGroup('cl_tlsacl'),
        topic,
        queueId: 0,
      }),
    ).rejects.toMatchObject({
      code: 16,
      permanent: true,
    });
  });
});
