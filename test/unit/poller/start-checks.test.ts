/**
 * The checks a poller makes at start without connecting: every `local:` handler loaded with the loader
 * it is given (Lambda functions left alone), and `startProblems` for validate, one line per problem
 * naming the config key.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import { handlerLoadProblems, startProblems } from '../../../src/poller/start-checks.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';

const HANDLERS = fileURLToPath(new URL('../../fixtures/handlers/', import.meta.url));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'start-checks-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('handlerLoadProblems', () => {
  it('loads each local: handler in order, skips Lambda functions, and names each failing mapping', async () => {
    const loaded: string[] = [];
    const loader = {
      load: async (functionRef: string) => {
        loaded.push(functionRef);
        if (functionRef.endsWith('#missing')) {
          throw new InvokeError('handler module /app/h.js has no function export "missing"', {
            functionRef,
            fatal: true,
          });
        }
      },
    };

    const problems = await handlerLoadProblems(
      [
        { name: 'a', functionRef: 'local:./h.js#handler' },
        { name: 'b', functionRef: 'arn:aws:lambda:eu-west-1:123456789012:function:orders' },
        { name: 'c', functionRef: 'orders' },
        { name: 'd', functionRef: 'local:./h.js#missing' },
      ],
      loader,
    );

    expect(loaded).toEqual(['local:./h.js#handler', 'local:./h.js#missing']);
    expect(problems).toMatchObject([
      {
        index: 3,
        mapping: 'd',
        functionRef: 'local:./h.js#missing',
        message: 'handler module /app/h.js has no function export "missing"',
      },
    ]);
  });
});

describe('startProblems', () => {
  it('is empty for a config whose handlers load and whose TLS key is usable', async () => {
    const certs = await tlsTestCerts();
    const config = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        tls: { caFile: certs.ca.certPath, certFile: certs.client.certPath, keyFile: certs.client.keyPath },
        offsets: { store: 'memory' },
        mappings: [
          { topic: 'A', consumerGroup: 'a', function: 'local:./handlers.ts#success' },
          { topic: 'B', consumerGroup: 'b', function: 'arn:aws:lambda:eu-west-1:123456789012:function:b' },
        ],
      },
      { env: {}, baseDir: HANDLERS },
    );

    expect(await startProblems(config)).toEqual([]);
  });

  it('names the TLS setting that cannot work and each mapping whose handler cannot be invoked', async () => {
    const certs = await tlsTestCerts();
    const dir = await tempDir();
    await writeFile(path.join(dir, 'client.key'), encryptedKeyPem(certs.client, 'Some-Passphrase-ab12'));
    const config = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        tls: { certFile: certs.client.certPath, keyFile: path.join(dir, 'client.key') },
        offsets: { store: 'memory' },
        mappings: [
          { name: 'fine', topic: 'A', consumerGroup: 'a', function: 'local:./handlers.ts#success' },
          { name: 'broken', topic: 'B', consumerGroup: 'b', function: 'local:./broken.ts' },
          { name: 'number', topic: 'C', consumerGroup: 'c', function: 'local:./handlers.ts#notAFunction' },
        ],
      },
      { env: {}, baseDir: HANDLERS },
    );

    const problems = await startProblems(config);

    expect(problems).toEqual([
      'tls.keyFile: the key is encrypted and tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE) is not set',
      `mappings[1].function: mapping broken: cannot load handler module ${HANDLERS}broken.ts (export handler): Error: broken at load`,
      expect.stringMatching(
        /^mappings\[2\]\.function: mapping number: handler module \S+handlers\.ts has no function export "notAFunction" \("notAFunction" is number; its exports: /,
      ),
    ]);
  });
});
