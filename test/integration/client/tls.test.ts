/**
 * Our client against a real TLS-enforcing RocketMQ 5.3.3 (namesrv and broker), and against one that
 * also requires client certificates (mTLS): what works with the right trust settings, and how every
 * wrong setting fails and is classified by classifyTlsError.
 */
import net from 'node:net';
import type tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { selectedBrokerVersion } from '../../../src/local-broker/broker-version.js';
import { type LocalBroker, startLocalBroker } from '../../../src/local-broker/local-broker.js';
import { ConnectError, ConnectionClosedError } from '../../../src/network/errors.js';
import { classifyTlsError } from '../../../src/network/tls-errors.js';
import { buildTlsConnectionOptions } from '../../../src/network/tls-options.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type TlsTestCerts, tlsTestCerts } from '../../support/tls-certs.js';
import { waitFor } from '../../support/wait-for.js';

function newClient(
  broker: LocalBroker,
  tlsOptions: boolean | tls.ConnectionOptions | undefined,
): RocketMQClient {
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr, tls: tlsOptions });
  onTestFinished(() => client.close());
  return client;
}

/** Creates a topic, sends two messages through the route, pulls them back: the whole path over TLS. */
async function roundTrip(client: RocketMQClient, broker: LocalBroker): Promise<string[]> {
  const topic = uniqueTopic('Tls');
  await client.admin.createTopic(broker.brokerAddr, { topic, readQueueNums: 1 });
  const route = await waitFor(`route of ${topic}`, 15_000, async () => {
    const route = await client.nameServer.getRoute(topic, { refresh: true });
    return route.queueDatas[0] === undefined ? undefined : route;
  });
  expect(route.brokerDatas[0]?.brokerAddrs.get(0)).toBe(broker.brokerAddr);
  const producer = new Producer({ client });
  await producer.start();
  for (const body of ['secret one', 'secret two']) {
    expect((await producer.send({ topic, body }, { queueId: 0 })).status).toBe('SEND_OK');
  }
  const result = await client.broker.pullMessage(broker.brokerAddr, {
    consumerGroup: uniqueGroup('Tls'),
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
    bname: broker.brokerName,
  });
  return result.status === 'FOUND' ? result.messages.map((m) => m.body.toString()) : [];
}

async function routeFailure(client: RocketMQClient): Promise<unknown> {
  return client.nameServer.queryRoute('TBW102').then(
    () => {
      throw new Error('the route lookup should have failed');
    },
    (error: unknown) => error,
  );
}

/** What a plaintext socket sees from a TLS-only server after sending a valid GET_ROUTEINFO_BY_TOPIC frame. */
function plaintextExchange(
  address: string,
): Promise<{ bytes: number; ended: boolean; errorCode: string | undefined; hadError: boolean }> {
  const colon = address.lastIndexOf(':');
  const frame = Buffer.from('000000180000000c7b22636f6465223a3130357d', 'hex'); // {"code":105}
  return new Promise((resolve) => {
    const socket = net.connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
    let bytes = 0;
    let ended = false;
    let errorCode: string | undefined;
    socket.on('connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    socket.on('end', () => {
      ended = true;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      errorCode = error.code;
    });
    socket.on('close', (hadError) => resolve({ bytes, ended, errorCode, hadError }));
  });
}

let certs: TlsTestCerts;

beforeAll(async () => {
  certs = await tlsTestCerts();
});

describe('TLS-enforcing broker', () => {
  let broker: LocalBroker;

  beforeAll(async () => {
    broker = await startLocalBroker({
      heapMb: 256,
      tls: { certPath: certs.server.certPath, keyPath: certs.server.keyPath, caPath: certs.ca.certPath },
    });
  });

  afterAll(async () => {
    await broker?.stop();
  });

  it('serves route lookups, sends and pulls to a client that trusts our private CA', async () => {
    const client = newClient(broker, buildTlsConnectionOptions({ caPem: certs.ca.certPem }));

    expect(await roundTrip(client, broker)).toEqual(['secret one', 'secret two']);
  });

  it('is refused by a client with the default trust store: a permanent untrusted-certificate ConnectError', async () => {
    const client = newClient(broker, true);

    const error = await routeFailure(client);

    expect(error).toBeInstanceOf(ConnectError);
    expect(classifyTlsError(error)).toMatchObject({
      reason: 'untrusted-certificate',
      permanent: true,
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('is refused by a client trusting an unrelated CA, classified the same way', async () => {
    const client = newClient(broker, buildTlsConnectionOptions({ caPem: certs.otherCa.certPem }));

    const error = await routeFailure(client);

    expect(error).toBeInstanceOf(ConnectError);
    expect(classifyTlsError(error)).toMatchObject({ reason: 'untrusted-certificate', permanent: true });
  });

  it('is refused when the certificate does not name the expected server (serverName)', async () => {
    const client = newClient(
      broker,
      buildTlsConnectionOptions({ caPem: certs.ca.certPem, serverName: 'broker.example.com' }),
    );

    const error = await routeFailure(client);

    expect(classifyTlsError(error)).toMatchObject({
      reason: 'hostname-mismatch',
      permanent: true,
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('closes a plaintext connection at once with a FIN and not a single byte, on namesrv and broker alike', async () => {
    for (const address of [broker.namesrvAddr, broker.brokerAddr]) {
      expect(await plaintextExchange(address)).toEqual({
        bytes: 0,
        ended: true,
        errorCode: undefined,
        hadError: false,
      });
    }
    // Through our client: the request was written on an open TCP connection, then the connection
    // closed. Nothing TLS-specific is left to classify: it looks like any retriable close.
    const error = await routeFailure(newClient(broker, undefined));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as ConnectionClosedError).retriable).toBe(true);
    expect(classifyTlsError(error)).toBeUndefined();
  });
});

describe('a plaintext-only broker (the shared test broker, tls.server.mode=disabled)', () => {
  it('closes a TLS client during the handshake: handshake-interrupted, not permanent', async () => {
    const client = new RocketMQClient({
      nameServerAddresses: testBroker().namesrvAddr,
      tls: buildTlsConnectionOptions({ caPem: certs.ca.certPem }),
    });
    onTestFinished(() => client.close());

    const error = await routeFailure(client);

    expect(error).toBeInstanceOf(ConnectError);
    expect(classifyTlsError(error)).toMatchObject({
      reason: 'handshake-interrupted',
      permanent: false,
      code: 'ECONNRESET',
    });
  });
});

/**
 * RocketMQ's servers do TLS with OpenSSL when netty-tcnative is on their classpath (the 5.x distribution
 * ships it with the proxy jars; the 5.3.3-proxy profile's jars have it), else with the JDK's: the two
 * refuse a client certificate with different alerts (docs/broker-versions.md).
 */
const SERVER_ON_OPENSSL = selectedBrokerVersion().proxy;

describe('mTLS broker (tls.server.need.client.auth=require)', () => {
  let broker: LocalBroker;

  beforeAll(async () => {
    broker = await startLocalBroker({
      heapMb: 256,
      tls: {
        certPath: certs.server.certPath,
        keyPath: certs.server.keyPath,
        caPath: certs.ca.certPath,
        clientAuth: {
          caPath: certs.ca.certPath,
          certPath: certs.client.certPath,
          keyPath: certs.client.keyPath,
        },
      },
    });
  });

  afterAll(async () => {
    await broker?.stop();
  });

  it('works for a client presenting a certificate signed by the trusted CA', async () => {
    const client = newClient(
      broker,
      buildTlsConnectionOptions({
        caPem: certs.ca.certPem,
        certPem: certs.client.certPem,
        keyPem: certs.client.keyPem,
      }),
    );

    expect(await roundTrip(client, broker)).toEqual(['secret one', 'secret two']);
  });

  it('refuses a client without a certificate: bad_certificate alert (42), client-certificate-rejected', async () => {
    const client = newClient(broker, buildTlsConnectionOptions({ caPem: certs.ca.certPem }));

    const error = await routeFailure(client);

    // TLS 1.3: the client finishes its side of the handshake (the connection opens and the request is
    // written) before the server checks the certificate, so the alert closes an open connection.
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(classifyTlsError(error)).toMatchObject(
      SERVER_ON_OPENSSL
        ? {
            reason: 'client-certificate-required',
            permanent: true,
            code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
          }
        : {
            reason: 'client-certificate-rejected',
            permanent: true,
            code: 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
          },
    );
  });

  it('refuses a client certificate from an unrelated CA: certificate_unknown alert (46)', async () => {
    const client = newClient(
      broker,
      buildTlsConnectionOptions({
        caPem: certs.ca.certPem,
        certPem: certs.otherServer.certPem,
        keyPem: certs.otherServer.keyPem,
      }),
    );

    const error = await routeFailure(client);

    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(classifyTlsError(error)).toMatchObject(
      SERVER_ON_OPENSSL
        ? { reason: 'handshake-internal-error', permanent: true, code: 'ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR' }
        : {
            reason: 'client-certificate-rejected',
            permanent: true,
            code: 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
          },
    );
  });
});
