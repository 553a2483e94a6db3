import net from 'node:net';
import tls from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectError, ConnectionClosedError } from '../../../src/network/errors.js';
import { classifyTlsError, tlsFailureReasonInfo } from '../../../src/network/tls-errors.js';
import { type TlsTestCerts, tlsTestCerts } from '../../support/tls-certs.js';

let certs: TlsTestCerts;
const servers: net.Server[] = [];
const accepted: net.Socket[] = [];

beforeAll(async () => {
  certs = await tlsTestCerts();
});

afterEach(async () => {
  for (const socket of accepted.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** A local TLS server; it ignores its own socket errors (the point is what the client sees). */
function tlsServer(options: tls.TlsOptions): Promise<number> {
  const server = tls.createServer(options, (socket) => socket.end());
  server.on('tlsClientError', () => undefined);
  return listen(server);
}

/** Connects and resolves with the first error the client socket raises (a handshake is expected to fail). */
function handshakeError(port: number, options: tls.ConnectionOptions): Promise<Error> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ ...options, host: '127.0.0.1', port });
    socket.once('error', (error) => {
      socket.destroy();
      resolve(error);
    });
    socket.once('close', () => {
      socket.destroy();
      reject(new Error('the connection closed without an error'));
    });
  });
}

describe('classifyTlsError on real Node handshake errors', () => {
  it('an unknown CA: untrusted-certificate, permanent', async () => {
    const port = await tlsServer({ cert: certs.otherServer.certPem, key: certs.otherServer.keyPem });

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toEqual({
      reason: 'untrusted-certificate',
      permanent: true,
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      description: tlsFailureReasonInfo('untrusted-certificate').description,
    });
  });

  it('a self-signed server certificate: self-signed-certificate', async () => {
    const port = await tlsServer({
      cert: certs.selfSignedServer.certPem,
      key: certs.selfSignedServer.keyPem,
    });

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({ reason: 'self-signed-certificate', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('a chain ending in an untrusted root: self-signed-certificate', async () => {
    const port = await tlsServer({
      cert: `${certs.otherServer.certPem}${certs.otherCa.certPem}`,
      key: certs.otherServer.keyPem,
    });

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({ reason: 'self-signed-certificate', code: 'SELF_SIGNED_CERT_IN_CHAIN' });
  });

  it('an expired server certificate: expired-certificate', async () => {
    const port = await tlsServer({ cert: certs.expiredServer.certPem, key: certs.expiredServer.keyPem });

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({
      reason: 'expired-certificate',
      permanent: true,
      code: 'CERT_HAS_EXPIRED',
    });
  });

  it('a certificate for another name: hostname-mismatch', async () => {
    const port = await tlsServer({ cert: certs.server.certPem, key: certs.server.keyPem });

    const failure = classifyTlsError(
      await handshakeError(port, { ca: certs.ca.certPem, servername: 'broker.example.com' }),
    );

    expect(failure).toMatchObject({ reason: 'hostname-mismatch', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('a server requiring a client certificate (TLS 1.3): client-certificate-required', async () => {
    const port = await tlsServer({
      cert: certs.server.certPem,
      key: certs.server.keyPem,
      ca: certs.ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
    });

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({
      reason: 'client-certificate-required',
      permanent: true,
      code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    });
  });

  it('a server requiring a client certificate (TLS 1.2): handshake-rejected', async () => {
    const port = await tlsServer({
      cert: certs.server.certPem,
      key: certs.server.keyPem,
      ca: certs.ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion: 'TLSv1.2',
    });

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({ reason: 'handshake-rejected', permanent: true });
  });

  it('no common TLS version: handshake-rejected', async () => {
    const port = await tlsServer({
      cert: certs.server.certPem,
      key: certs.server.keyPem,
      minVersion: 'TLSv1.3',
    });

    const failure = classifyTlsError(
      await handshakeError(port, { ca: certs.ca.certPem, maxVersion: 'TLSv1.2' }),
    );

    expect(failure).toMatchObject({ reason: 'handshake-rejected', permanent: true });
  });

  it('a plaintext server that answers with its own bytes: not-tls', async () => {
    const port = await listen(
      net.createServer((socket) => {
        socket.on('error', () => undefined);
        socket.end(Buffer.from('000000180000000c7b22636f6465223a3130357d', 'hex'));
      }),
    );

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({
      reason: 'not-tls',
      permanent: true,
      code: 'ERR_SSL_WRONG_VERSION_NUMBER',
    });
  });

  it('a server that closes during the handshake (a plaintext RocketMQ does): handshake-interrupted, not permanent', async () => {
    const port = await listen(net.createServer((socket) => socket.destroy()));

    const failure = classifyTlsError(await handshakeError(port, { ca: certs.ca.certPem }));

    expect(failure).toMatchObject({ reason: 'handshake-interrupted', permanent: false, code: 'ECONNRESET' });
  });
});

describe('classifyTlsError on our own unusable settings', () => {
  it('a key that does not match the certificate: client-settings-invalid', () => {
    let thrown: unknown;
    try {
      tls.createSecureContext({ cert: certs.client.certPem, key: certs.server.keyPem });
    } catch (error) {
      thrown = error;
    }

    expect(classifyTlsError(thrown)).toMatchObject({
      reason: 'client-settings-invalid',
      permanent: true,
      code: 'ERR_OSSL_X509_KEY_VALUES_MISMATCH',
    });
  });

  it('a key that is not PEM: client-settings-invalid', () => {
    let thrown: unknown;
    try {
      tls.createSecureContext({ cert: certs.client.certPem, key: 'not a key' });
    } catch (error) {
      thrown = error;
    }

    expect(classifyTlsError(thrown)).toMatchObject({ reason: 'client-settings-invalid', permanent: true });
  });
});

describe('classifyTlsError on wrapped and foreign errors', () => {
  function codeError(code: string, message = code): Error {
    return Object.assign(new Error(message), { code });
  }

  it('finds the TLS error on the cause chain of a network error', () => {
    const closed = new ConnectionClosedError('connection to 127.0.0.1:9876 closed', {
      address: '127.0.0.1:9876',
      cause: codeError('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'),
    });

    expect(classifyTlsError(new Error('route lookup failed', { cause: closed }))).toMatchObject({
      reason: 'client-certificate-required',
    });
  });

  it('returns undefined for errors that are not TLS failures', () => {
    const refused = new ConnectError('could not connect to 127.0.0.1:1 (ECONNREFUSED)', {
      address: '127.0.0.1:1',
      cause: codeError('ECONNREFUSED'),
    });

    expect(classifyTlsError(refused)).toBeUndefined();
    expect(classifyTlsError(codeError('ECONNRESET', 'read ECONNRESET'))).toBeUndefined();
    expect(classifyTlsError(codeError('toString'))).toBeUndefined();
    expect(classifyTlsError('CERT_HAS_EXPIRED')).toBeUndefined();
    expect(classifyTlsError(undefined)).toBeUndefined();
  });

  it('stops following a cause cycle', () => {
    const a = codeError('EPIPE');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });

    expect(classifyTlsError(b)).toBeUndefined();
  });

  it('an internal_error alert (an OpenSSL RocketMQ server refusing our client certificate): handshake-internal-error', () => {
    // What Node raises for the alert, as seen from a 5.3.3 broker with netty-tcnative on its classpath
    // (test/integration/client/tls.test.ts runs against one in the 5.3.3-proxy profile).
    const alert = Object.assign(
      new Error('error:0A000438:SSL routines:ssl3_read_bytes:tlsv1 alert internal error:SSL alert number 80'),
      {
        code: 'ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR',
        library: 'SSL routines',
        reason: 'tlsv1 alert internal error',
      },
    );

    expect(classifyTlsError(new Error('connection closed', { cause: alert }))).toMatchObject({
      reason: 'handshake-internal-error',
      permanent: true,
      code: 'ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR',
    });
  });

  it('marks every reason but handshake-interrupted permanent', () => {
    expect(tlsFailureReasonInfo('handshake-interrupted').permanent).toBe(false);
    for (const reason of [
      'untrusted-certificate',
      'hostname-mismatch',
      'client-certificate-rejected',
      'handshake-internal-error',
    ] as const) {
      expect(tlsFailureReasonInfo(reason).permanent).toBe(true);
    }
  });
});
