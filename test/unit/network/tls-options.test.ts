import { createPrivateKey } from 'node:crypto';
import type net from 'node:net';
import tls from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyTlsError } from '../../../src/network/tls-errors.js';
import {
  buildTlsConnectionOptions,
  secureTlsConnectionOptions,
  type TlsClientSettings,
  TlsSettingsError,
  withServerNameFor,
} from '../../../src/network/tls-options.js';
import { encryptedKeyPem, type TlsTestCerts, tlsTestCerts } from '../../support/tls-certs.js';

let certs: TlsTestCerts;

beforeAll(async () => {
  certs = await tlsTestCerts();
});

describe('buildTlsConnectionOptions', () => {
  it('verifies the server against the public CAs when given nothing', () => {
    expect(buildTlsConnectionOptions()).toEqual({ rejectUnauthorized: true });
    expect(buildTlsConnectionOptions({})).toEqual({ rejectUnauthorized: true });
  });

  it('turns verification off only when asked to', () => {
    expect(buildTlsConnectionOptions({ verifyServer: false }).rejectUnauthorized).toBe(false);
    expect(buildTlsConnectionOptions({ verifyServer: true }).rejectUnauthorized).toBe(true);
  });

  it('trusts the given CAs instead of the public ones', () => {
    expect(buildTlsConnectionOptions({ caPem: certs.ca.certPem }).ca).toEqual([certs.ca.certPem]);
    expect(buildTlsConnectionOptions({ caPem: [certs.ca.certPem, certs.otherCa.certPem] }).ca).toEqual([
      certs.ca.certPem,
      certs.otherCa.certPem,
    ]);
  });

  it('passes the client certificate, key and passphrase', () => {
    const options = buildTlsConnectionOptions({
      certPem: certs.client.certPem,
      keyPem: certs.client.keyPem,
      keyPassphrase: 'pass',
    });

    expect(options).toMatchObject({
      cert: certs.client.certPem,
      key: certs.client.keyPem,
      passphrase: 'pass',
    });
  });

  it('sends a DNS serverName as SNI, and checks an IP serverName without sending it', () => {
    expect(buildTlsConnectionOptions({ serverName: 'broker-a.internal' })).toEqual({
      rejectUnauthorized: true,
      servername: 'broker-a.internal',
    });
    const byIp = buildTlsConnectionOptions({ serverName: '10.0.0.5' });
    expect(byIp.servername).toBeUndefined();
    expect(byIp.checkServerIdentity).toBeTypeOf('function');
  });

  it('withServerNameFor adds SNI for DNS hosts only, and never overrides a serverName', () => {
    const base = buildTlsConnectionOptions();

    expect(withServerNameFor(base, 'broker-a.internal')).toEqual({
      ...base,
      servername: 'broker-a.internal',
    });
    expect(withServerNameFor(base, '10.0.0.5')).toBe(base);
    expect(withServerNameFor(base, '::1')).toBe(base);
    const named = buildTlsConnectionOptions({ serverName: 'proxy.example.com' });
    expect(withServerNameFor(named, 'broker-a.internal')).toBe(named);
  });

  it.each([
    ['an empty CA list', { caPem: [] }, /caPem/],
    ['a CA that is not PEM', { caPem: 'hello' }, /caPem/],
    ['a certificate without its key', { certPem: 'CERT' }, /both certPem and keyPem/],
    ['a key without its certificate', { keyPem: 'KEY' }, /both certPem and keyPem/],
    ['a passphrase without a key', { keyPassphrase: 'pass' }, /keyPassphrase/],
    ['an empty serverName', { serverName: ' ' }, /serverName/],
  ])('rejects %s with a permanent TlsSettingsError', (_what, settings, message) => {
    let thrown: unknown;
    try {
      buildTlsConnectionOptions(settings);
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(TlsSettingsError);
    expect((thrown as TlsSettingsError).message).toMatch(message);
    expect((thrown as TlsSettingsError).permanent).toBe(true);
    expect((thrown as TlsSettingsError).retriable).toBe(false);
  });

  it('never puts key material in its errors', () => {
    const secretKey = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n';
    let thrown: unknown;
    try {
      buildTlsConnectionOptions({
        certPem: 'not a certificate',
        keyPem: secretKey,
        keyPassphrase: 'hunter2',
      });
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(TlsSettingsError);
    expect(String(thrown)).not.toContain('c2VjcmV0');
    expect(String(thrown)).not.toContain('hunter2');
  });
});

/** The passphrase the encrypted client key is made with, and one that does not decrypt it. */
const PASSPHRASE = 'Right-Passphrase-7d1c';
const WRONG_PASSPHRASE = 'Wrong-Passphrase-93fa';

/**
 * The client key encrypted with {@link PASSPHRASE}: PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`), or SEC1
 * with a `Proc-Type: 4,ENCRYPTED` header (openssl's traditional format).
 */
function encryptedClientKey(type: 'pkcs8' | 'sec1' = 'pkcs8'): string {
  return encryptedKeyPem(certs.client, PASSPHRASE, type);
}

/** The TlsSettingsError `settings` throw with; fails the test when they do not throw one. */
function refusal(settings: TlsClientSettings, names?: Parameters<typeof secureTlsConnectionOptions>[1]) {
  try {
    secureTlsConnectionOptions(settings, names);
  } catch (error) {
    if (error instanceof TlsSettingsError) return error;
    throw error;
  }
  throw new Error('expected a TlsSettingsError');
}

/** The base64 body lines of a PEM text: what must never reach a message. */
function pemBody(pem: string): string[] {
  return pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
}

describe('secureTlsConnectionOptions', () => {
  it('builds the secure context once: the key decrypted, and no key material left in the options', () => {
    const options = secureTlsConnectionOptions({
      caPem: certs.ca.certPem,
      certPem: certs.client.certPem,
      keyPem: encryptedClientKey(),
      keyPassphrase: PASSPHRASE,
      serverName: 'localhost',
    });

    expect(options.secureContext?.context).toBeDefined();
    expect(options).toMatchObject({ rejectUnauthorized: true, servername: 'localhost' });
    for (const key of ['ca', 'cert', 'key', 'passphrase'] as const) expect(options[key]).toBeUndefined();
  });

  it.each(['pkcs8', 'sec1'] as const)(
    'refuses, before any connection, a key (%s) its passphrase does not decrypt or that needs one',
    (type) => {
      const keyPem = encryptedClientKey(type);
      const wrong = refusal({ certPem: certs.client.certPem, keyPem, keyPassphrase: WRONG_PASSPHRASE });
      const missing = refusal({ certPem: certs.client.certPem, keyPem });

      expect(wrong.message).toBe('keyPassphrase: does not decrypt keyPem (wrong passphrase)');
      expect(missing.message).toBe('keyPem: the key is encrypted and keyPassphrase is not set');
      for (const error of [wrong, missing]) {
        expect(error.permanent).toBe(true);
        const text = `${String(error)} ${JSON.stringify(error)} ${error.stack ?? ''}`;
        expect(text).not.toContain(WRONG_PASSPHRASE);
        expect(text).not.toContain(PASSPHRASE);
        for (const line of pemBody(keyPem)) expect(text).not.toContain(line);
      }
    },
  );

  it('blames the passphrase also when a wrong one happens to decrypt the key into bytes that are no key', () => {
    // AES-CBC with a wrong key passes the padding check about once in 256: OpenSSL then reports the
    // garbage (ERR_OSSL_UNSUPPORTED) instead of a bad decrypt. Find such an encryption of the key.
    let keyPem: string | undefined;
    for (let attempt = 0; attempt < 5000 && keyPem === undefined; attempt++) {
      const candidate = encryptedClientKey();
      try {
        createPrivateKey({ key: candidate, format: 'pem', passphrase: WRONG_PASSPHRASE });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ERR_OSSL_BAD_DECRYPT') keyPem = candidate;
      }
    }
    if (keyPem === undefined) throw new Error('no encryption the wrong passphrase decrypts to garbage');

    expect(refusal({ certPem: certs.client.certPem, keyPem, keyPassphrase: WRONG_PASSPHRASE }).message).toBe(
      'keyPassphrase: does not decrypt keyPem (wrong passphrase)',
    );
  });

  it("refuses a key that is not the certificate's, and text that is no key or no certificate", () => {
    const mismatch = refusal({ certPem: certs.client.certPem, keyPem: certs.server.keyPem });
    const notAKey = refusal({
      certPem: certs.client.certPem,
      keyPem: '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n',
    });
    const notACertificate = refusal({
      certPem: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA\n-----END CERTIFICATE-----\n',
      keyPem: certs.client.keyPem,
    });

    expect(mismatch.message).toBe(
      'keyPem: not the private key of certPem (ERR_OSSL_X509_KEY_VALUES_MISMATCH)',
    );
    expect(notAKey.message).toMatch(/^keyPem: not a usable private key \(ERR_OSSL_\w+\)$/);
    expect(notACertificate.message).toMatch(/^certPem: not a usable certificate \(ERR_OSSL_\w+\)$/);
    for (const line of pemBody(certs.server.keyPem)) expect(mismatch.message).not.toContain(line);
  });

  it("names the settings in the caller's terms", () => {
    const names = {
      caPem: 'tls.caFile',
      certPem: 'tls.certFile',
      keyPem: 'tls.keyFile',
      keyPassphrase: 'tls.keyPassphrase',
    };
    const error = refusal(
      { certPem: certs.client.certPem, keyPem: encryptedClientKey(), keyPassphrase: WRONG_PASSPHRASE },
      names,
    );

    expect(error.message).toBe('tls.keyPassphrase: does not decrypt tls.keyFile (wrong passphrase)');
  });

  it('still refuses what buildTlsConnectionOptions refuses', () => {
    expect(() => secureTlsConnectionOptions({ keyPem: certs.client.keyPem })).toThrow(
      'a client certificate needs both certPem and keyPem',
    );
  });
});

describe('buildTlsConnectionOptions in real handshakes', () => {
  const servers: tls.Server[] = [];
  const accepted: net.Socket[] = [];

  afterEach(async () => {
    for (const socket of accepted.splice(0)) socket.destroy();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A server presenting `server`; resolves each connection's SNI and whether its client cert was authorized. */
  async function startServer(
    options: tls.TlsOptions = {},
  ): Promise<{ port: number; seen: Array<{ sni: string | false; authorized: boolean }> }> {
    const seen: Array<{ sni: string | false; authorized: boolean }> = [];
    const server = tls.createServer(
      { cert: certs.server.certPem, key: certs.server.keyPem, ...options },
      (socket) => {
        const sni = (socket as tls.TLSSocket & { servername?: string | false }).servername ?? false;
        seen.push({ sni, authorized: socket.authorized });
        socket.end();
      },
    );
    server.on('tlsClientError', () => undefined);
    server.on('connection', (socket: net.Socket) => accepted.push(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as net.AddressInfo).port, seen };
  }

  function connect(host: string, port: number, options: tls.ConnectionOptions): Promise<unknown> {
    return new Promise((resolve) => {
      const socket = tls.connect({ ...options, host, port }, () => {
        socket.end();
        resolve('connected');
      });
      socket.once('error', (error) => {
        socket.destroy();
        resolve(error);
      });
    });
  }

  it('an IP host: verified against the IP SAN, no SNI sent', async () => {
    const { port, seen } = await startServer();

    expect(await connect('127.0.0.1', port, buildTlsConnectionOptions({ caPem: certs.ca.certPem }))).toBe(
      'connected',
    );
    await expect.poll(() => seen).toEqual([{ sni: false, authorized: false }]);
  });

  it('a DNS host: verified against the DNS SAN; sent as SNI only through withServerNameFor', async () => {
    const { port, seen } = await startServer();
    const options = buildTlsConnectionOptions({ caPem: certs.ca.certPem });

    expect(await connect('localhost', port, options)).toBe('connected');
    await expect.poll(() => seen.length).toBe(1);
    expect(await connect('localhost', port, withServerNameFor(options, 'localhost'))).toBe('connected');
    await expect
      .poll(() => seen)
      .toEqual([
        { sni: false, authorized: false },
        { sni: 'localhost', authorized: false },
      ]);
  });

  it('serverName replaces the host in the check: a name the certificate lacks fails, one it has passes', async () => {
    const { port, seen } = await startServer();

    expect(
      await connect(
        '127.0.0.1',
        port,
        buildTlsConnectionOptions({ caPem: certs.ca.certPem, serverName: 'localhost' }),
      ),
    ).toBe('connected');
    const wrongName = await connect(
      '127.0.0.1',
      port,
      buildTlsConnectionOptions({ caPem: certs.ca.certPem, serverName: 'broker.example.com' }),
    );
    const wrongIp = await connect(
      'localhost',
      port,
      buildTlsConnectionOptions({ caPem: certs.ca.certPem, serverName: '127.0.0.2' }),
    );

    expect(classifyTlsError(wrongName)?.reason).toBe('hostname-mismatch');
    expect(classifyTlsError(wrongIp)?.reason).toBe('hostname-mismatch');
    await expect.poll(() => seen[0]).toEqual({ sni: 'localhost', authorized: false });
  });

  it('verifies by default: an unknown CA fails, and passes only with verifyServer: false', async () => {
    const { port } = await startServer({ cert: certs.otherServer.certPem, key: certs.otherServer.keyPem });

    const refused = await connect('127.0.0.1', port, buildTlsConnectionOptions({ caPem: certs.ca.certPem }));
    const accepted = await connect('127.0.0.1', port, buildTlsConnectionOptions({ verifyServer: false }));

    expect(classifyTlsError(refused)?.reason).toBe('untrusted-certificate');
    expect(accepted).toBe('connected');
  });

  it('a secure context built once verifies the server against its CAs and presents the decrypted client key', async () => {
    const { port, seen } = await startServer({
      ca: certs.ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
    });
    const { port: otherPort } = await startServer({
      cert: certs.otherServer.certPem,
      key: certs.otherServer.keyPem,
    });
    const options = secureTlsConnectionOptions({
      caPem: certs.ca.certPem,
      certPem: certs.client.certPem,
      keyPem: encryptedClientKey(),
      keyPassphrase: PASSPHRASE,
    });

    expect(await connect('127.0.0.1', port, options)).toBe('connected');
    expect(await connect('127.0.0.1', port, options)).toBe('connected');
    expect(classifyTlsError(await connect('127.0.0.1', otherPort, options))?.reason).toBe(
      'untrusted-certificate',
    );
    await expect
      .poll(() => seen)
      .toEqual([
        { sni: false, authorized: true },
        { sni: false, authorized: true },
      ]);
  });

  it('presents the client certificate to a server that requires one', async () => {
    const { port, seen } = await startServer({
      ca: certs.ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
    });

    const result = await connect(
      '127.0.0.1',
      port,
      buildTlsConnectionOptions({
        caPem: certs.ca.certPem,
        certPem: certs.client.certPem,
        keyPem: certs.client.keyPem,
      }),
    );

    expect(result).toBe('connected');
    await expect.poll(() => seen).toEqual([{ sni: false, authorized: true }]);
  });
});
