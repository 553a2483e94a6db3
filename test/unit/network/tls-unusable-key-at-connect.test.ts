/**
 * A Connection given raw TLS options whose key cannot be used (a wrong passphrase): tls.connect throws
 * at every connect, so the request fails at once with a permanent ConnectError, never a retriable one.
 */
import net from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/network/connection.js';
import { ConnectError } from '../../../src/network/errors.js';
import { classifyTlsError } from '../../../src/network/tls-errors.js';
import { encryptedKeyPem, type TlsTestCerts, tlsTestCerts } from '../../support/tls-certs.js';

let certs: TlsTestCerts;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  certs = await tlsTestCerts();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a TLS key that cannot be used, given as raw connection options', () => {
  it('fails the request with a permanent ConnectError naming the key, and opens no socket', async () => {
    let accepted = 0;
    const server = net.createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as net.AddressInfo).port;
    const key = encryptedKeyPem(certs.client, 'right-one');
    const connection = new Connection({
      address: `127.0.0.1:${port}`,
      tls: { cert: certs.client.certPem, key, passphrase: 'Wrong-One-77', ca: certs.ca.certPem },
    });
    cleanups.push(() => connection.close());

    const error = await connection.request({ code: 105 }, 3000).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).permanent).toBe(true);
    expect(classifyTlsError(error)?.reason).toBe('client-settings-invalid');
    expect((error as Error).message).toMatch(/our TLS certificate, key or passphrase is unusable/);
    expect((error as Error).message).not.toContain('Wrong-One-77');
    expect(accepted).toBe(0);
  });
});
