/**
 * TLS material without files: PEM text in the config or in the environment (ROCKETMQ_TLS_CA,
 * ROCKETMQ_TLS_CERT, ROCKETMQ_TLS_KEY, ROCKETMQ_TLS_KEY_PASSPHRASE, as ECS injects secrets), one source
 * per piece, bounds, and checks at load whose errors never show the material or the passphrase.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { TLS_MATERIAL_LIMITS } from '../../../src/config/tls-material.js';
import { TlsSettingsError } from '../../../src/network/tls-options.js';
import { configTlsConnectionOptions } from '../../../src/poller/rocketmq-client-of-config.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';

type Env = Record<string, string | undefined>;

const config = (tls?: unknown) => ({
  nameServer: '127.0.0.1:9876',
  ...(tls === undefined ? {} : { tls }),
  offsets: { store: 'memory' },
  mappings: [
    { topic: 'T', consumerGroup: 'G', function: 'arn:aws:lambda:eu-west-1:123456789012:function:f' },
  ],
});

function problems(raw: unknown, env: Env = {}, baseDir?: string): readonly string[] {
  try {
    parseConfig(raw, { env, baseDir });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** Every line of PEM text and the passphrase: none may appear in what an error says. */
function secretFragments(...texts: string[]): string[] {
  return texts.flatMap((text) => text.split('\n').filter((line) => line.trim().length >= 8));
}

function expectNoneOf(said: string, fragments: readonly string[]): void {
  for (const fragment of fragments) expect(said).not.toContain(fragment);
}

describe('TLS material from the environment', () => {
  it('fills tls from ROCKETMQ_TLS_* with no file: CA, client certificate and an encrypted key with its passphrase', async () => {
    const certs = await tlsTestCerts();
    const passphrase = 'Env-Passphrase-4b1d';
    const env = {
      ROCKETMQ_TLS_CA: certs.ca.certPem,
      ROCKETMQ_TLS_CERT: certs.client.certPem,
      ROCKETMQ_TLS_KEY: encryptedKeyPem(certs.client, passphrase),
      ROCKETMQ_TLS_KEY_PASSPHRASE: passphrase,
    };

    for (const tls of [undefined, true, { serverName: 'localhost' }]) {
      const resolved = parseConfig(config(tls), { env }).tls;
      expect(resolved).toMatchObject({
        caPem: certs.ca.certPem.trim(),
        certPem: certs.client.certPem.trim(),
        keyPassphrase: passphrase,
        verifyServer: true,
        settingNames: {
          caPem: 'tls.ca (or ROCKETMQ_TLS_CA)',
          certPem: 'tls.cert (or ROCKETMQ_TLS_CERT)',
          keyPem: 'tls.key (or ROCKETMQ_TLS_KEY)',
        },
      });
      // The secure context builds: the key decrypts and is the certificate's.
      expect(configTlsConnectionOptions(resolved ?? {})).toHaveProperty('secureContext');
    }
  });

  it('takes PEM text in the config, and PEM on one line with \\n escapes', async () => {
    const certs = await tlsTestCerts();
    const oneLine = (pem: string) => pem.replace(/\n/g, '\\n');
    const resolved = parseConfig(
      config({
        ca: oneLine(certs.ca.certPem),
        cert: certs.client.certPem,
        key: oneLine(certs.client.keyPem),
      }),
      { env: {} },
    ).tls;
    expect(String(resolved?.caPem).trim()).toBe(certs.ca.certPem.trim());
    expect(configTlsConnectionOptions(resolved ?? {})).toHaveProperty('secureContext');
  });

  it('refuses two sources for one piece, and material in the environment with tls: false', async () => {
    const certs = await tlsTestCerts();
    const dir = await mkdtemp(path.join(tmpdir(), 'tls-material-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'ca.pem'), certs.ca.certPem);
    const env = { ROCKETMQ_TLS_CA: certs.ca.certPem };

    expect(problems(config({ caFile: 'ca.pem' }), env, dir)).toEqual([
      'tls.caFile: set together with ROCKETMQ_TLS_CA: give the CA certificates one way',
    ]);
    expect(problems(config({ caFile: 'ca.pem', ca: certs.ca.certPem }), {}, dir)).toEqual([
      'tls.ca: set together with caFile: give the CA certificates one way',
    ]);
    expect(problems(config(false), env)).toEqual([
      'tls: is false but ROCKETMQ_TLS_CA is set: remove tls: false, or unset them',
    ]);
    expect(problems(config(), { ROCKETMQ_TLS_CERT: certs.client.certPem })).toEqual([
      'tls.key: required with cert',
    ]);
    expect(problems(config({ caFile: 'ca.pem', keyPassphrase: 'x' }), {}, dir)).toEqual([
      'tls.keyPassphrase: set without a key to decrypt',
    ]);
  });

  it('checks the PEM when the config is loaded, naming the source and never quoting the material', async () => {
    const certs = await tlsTestCerts();
    // The first base64 line holds the DER header: zeroed, nothing parses.
    const zeroFirstLine = (pem: string) =>
      pem
        .trim()
        .split('\n')
        .map((line, index) => (index === 1 ? 'A'.repeat(line.length) : line))
        .join('\n');
    const brokenCert = zeroFirstLine(certs.ca.certPem);
    const cases: [Env, string][] = [
      [
        { ROCKETMQ_TLS_CA: 'not PEM at all' },
        'tls.ca (or ROCKETMQ_TLS_CA): holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
      ],
      [
        { ROCKETMQ_TLS_CA: certs.ca.certPem.replace(/-----END CERTIFICATE-----\s*$/, '') },
        'tls.ca (or ROCKETMQ_TLS_CA): a CERTIFICATE block has no END line',
      ],
      [
        { ROCKETMQ_TLS_CA: brokenCert },
        expect.stringMatching(
          /^tls\.ca \(or ROCKETMQ_TLS_CA\): certificate 1 of 1 is not a valid X\.509 certificate \(ERR_\w+\)$/,
        ) as unknown as string,
      ],
      [
        { ROCKETMQ_TLS_CERT: certs.client.certPem, ROCKETMQ_TLS_KEY: certs.client.certPem },
        'tls.key (or ROCKETMQ_TLS_KEY): holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)',
      ],
      [
        {
          ROCKETMQ_TLS_CERT: certs.client.certPem,
          ROCKETMQ_TLS_KEY: `${certs.client.keyPem}\n${certs.server.keyPem}`,
        },
        'tls.key (or ROCKETMQ_TLS_KEY): holds 2 private keys; give exactly one',
      ],
      [
        {
          ROCKETMQ_TLS_CERT: certs.client.certPem,
          ROCKETMQ_TLS_KEY: zeroFirstLine(certs.client.keyPem),
        },
        expect.stringMatching(
          /^tls\.key \(or ROCKETMQ_TLS_KEY\): not a usable private key \(ERR_\w+\)$/,
        ) as unknown as string,
      ],
    ];
    for (const [env, expected] of cases) {
      const said = problems(config(), env);
      expect(said).toEqual([expected]);
      expectNoneOf(
        said.join('\n'),
        secretFragments(...Object.values(env).map(String)).filter((l) => !l.startsWith('-----')),
      );
    }
  });

  it('a key its passphrase does not open: the start check names both sources and says neither the key nor the passphrase', async () => {
    const certs = await tlsTestCerts();
    const right = 'Right-Passphrase-a11ce';
    const wrong = 'Wrong-Passphrase-b0b0b';
    const key = encryptedKeyPem(certs.client, right);
    const resolved = parseConfig(config(), {
      env: {
        ROCKETMQ_TLS_CERT: certs.client.certPem,
        ROCKETMQ_TLS_KEY: key,
        ROCKETMQ_TLS_KEY_PASSPHRASE: wrong,
      },
    }).tls;

    let caught: unknown;
    try {
      configTlsConnectionOptions(resolved ?? {});
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(TlsSettingsError);
    const said = `${(caught as Error).message}\n${String((caught as Error).stack)}`;
    expect((caught as Error).message).toBe(
      'tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE): does not decrypt tls.key (or ROCKETMQ_TLS_KEY) (wrong passphrase)',
    );
    expect(said).not.toContain(wrong);
    expect(said).not.toContain(right);
    expect(said).not.toMatch(/-----(BEGIN|END)/);
    expectNoneOf(said, secretFragments(key));
  });

  it(`bounds: ${TLS_MATERIAL_LIMITS.maxPemBytes} bytes of PEM (text or file), ${TLS_MATERIAL_LIMITS.maxCaCertificates} CA certificates, ${TLS_MATERIAL_LIMITS.maxChainCertificates} in a chain, ${TLS_MATERIAL_LIMITS.maxKeyPassphraseBytes} bytes of passphrase`, async () => {
    const certs = await tlsTestCerts();
    const dir = await mkdtemp(path.join(tmpdir(), 'tls-material-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const padded = `${'#'.repeat(TLS_MATERIAL_LIMITS.maxPemBytes)}\n${certs.ca.certPem}`;
    await writeFile(path.join(dir, 'big.pem'), padded);
    const bytes = Buffer.byteLength(padded);

    expect(problems(config(), { ROCKETMQ_TLS_CA: padded })).toEqual([
      // The environment's value is trimmed, as every variable the config reads.
      `tls.ca (or ROCKETMQ_TLS_CA): ${bytes - 1} bytes, more than the 1048576 allowed`,
    ]);
    expect(problems(config({ caFile: 'big.pem' }), {}, dir)).toEqual([
      `tls.caFile: ${path.join(dir, 'big.pem')} has ${bytes} bytes, more than the 1048576 allowed`,
    ]);
    const bundle = (count: number) => certs.ca.certPem.repeat(count);
    expect(parseConfig(config({ ca: bundle(1000) }), { env: {} }).tls?.caPem).toBe(bundle(1000).trim());
    expect(problems(config({ ca: bundle(1001) }))).toEqual([
      'tls.ca (or ROCKETMQ_TLS_CA): holds 1001 certificates, more than the 1000 allowed',
    ]);
    expect(problems(config({ cert: bundle(11), key: certs.client.keyPem }))).toEqual([
      'tls.cert (or ROCKETMQ_TLS_CERT): holds 11 certificates, more than the 10 allowed',
    ]);
    const longPassphrase = 'p'.repeat(1025);
    const said = problems(config({ cert: certs.client.certPem, key: certs.client.keyPem }), {
      ROCKETMQ_TLS_KEY_PASSPHRASE: longPassphrase,
    });
    expect(said).toEqual([
      "tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE): longer than 1024 bytes (OpenSSL's limit)",
    ]);
  });
});
