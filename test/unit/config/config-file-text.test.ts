/**
 * The size cap of a config (file and ROCKETMQ_LAMBDA_CONFIG) and the other failures of reading one: each
 * a ConfigError of one line naming the source, never a stack trace or a whole file in memory.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import {
  checkConfigTextSize,
  MAX_CONFIG_BYTES,
  readConfigFileText,
} from '../../../src/config/config-file-text.js';
import { loadConfig, loadConfigFromEnv } from '../../../src/config/load-config.js';
import { readServerlessYaml } from '../../../src/serverless-service/load-serverless-service.js';
import { problemsRejectedBy } from '../../support/problems-thrown-by.js';

const problemsOf = problemsRejectedBy;

describe('the size cap of a config', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rl-config-size-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is 1 MiB', () => {
    expect(MAX_CONFIG_BYTES).toBe(1024 * 1024);
  });

  it('a 50 MB file is refused by its size, before it is read (the size comes from stat)', async () => {
    const file = path.join(dir, 'huge.yaml');
    await writeFile(file, '');
    await truncate(file, 50 * 1024 * 1024);
    expect(await problemsOf(() => loadConfig(file, { env: {} }))).toEqual([
      `(config): cannot read ${file}: 52428800 bytes, over the 1 MiB a config may have (is this the right file?)`,
    ]);
    const service = path.join(dir, 'serverless.yml');
    await writeFile(service, '');
    await truncate(service, 50 * 1024 * 1024);
    expect(await problemsOf(() => readServerlessYaml(service))).toEqual([
      `(serverless.yml): cannot read ${service}: 52428800 bytes, over the 1 MiB a config may have (is this the right file?)`,
    ]);
  });

  it('a file of exactly the cap is read; one byte more is refused', async () => {
    const file = path.join(dir, 'edge.yaml');
    const head = 'nameServer: 127.0.0.1:9876\n#';
    const text = `${head}${'x'.repeat(MAX_CONFIG_BYTES - head.length - 1)}\n`;
    expect(Buffer.byteLength(text)).toBe(MAX_CONFIG_BYTES);
    await writeFile(file, text);
    expect(await readConfigFileText(file)).toBe(text);
    await writeFile(file, `${text} `);
    expect(await problemsOf(() => readConfigFileText(file))).toEqual([
      `(config): cannot read ${file}: 1048577 bytes, over the 1 MiB a config may have (is this the right file?)`,
    ]);
  });

  it('a file without a size (a device, a pipe) is read only up to the cap', async () => {
    if (!existsSync('/dev/zero')) return;
    expect(await problemsOf(() => loadConfig('/dev/zero', { env: {} }))).toEqual([
      '(config): cannot read /dev/zero: more than 1048576 bytes, over the 1 MiB a config may have',
    ]);
  });

  it('ROCKETMQ_LAMBDA_CONFIG over the cap is refused by its UTF-8 size', () => {
    const json = (filler: string) => JSON.stringify({ nameServer: '127.0.0.1:9876', x: filler });
    const overhead = json('').length;
    // Two bytes of UTF-8 per character: under the cap in characters, over it in bytes.
    const text = json('é'.repeat((MAX_CONFIG_BYTES - overhead) / 2 + 1));
    expect(text.length).toBeLessThan(MAX_CONFIG_BYTES);
    const error = (() => {
      try {
        loadConfigFromEnv({ env: { ROCKETMQ_LAMBDA_CONFIG: text } });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      `(config): cannot read ROCKETMQ_LAMBDA_CONFIG: ${Buffer.byteLength(text)} bytes, over the 1 MiB a config may have`,
    ]);
    expect(() => checkConfigTextSize('{}', 'ROCKETMQ_LAMBDA_CONFIG')).not.toThrow();
  });
});

describe('other failures of reading a config file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rl-config-read-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a directory', async () => {
    const sub = path.join(dir, 'conf.d');
    await mkdir(sub);
    expect(await problemsOf(() => loadConfig(sub, { env: {} }))).toEqual([
      `(config): cannot read ${sub}: is a directory`,
    ]);
  });

  it('a missing file, and a path through a file', async () => {
    const file = path.join(dir, 'poller.yaml');
    await writeFile(file, 'a: 1\n');
    expect(await problemsOf(() => loadConfig(path.join(dir, 'nope.yaml'), { env: {} }))).toEqual([
      `(config): cannot read ${path.join(dir, 'nope.yaml')}: no such file`,
    ]);
    expect(await problemsOf(() => loadConfig(path.join(file, 'x.yaml'), { env: {} }))).toEqual([
      `(config): cannot read ${path.join(file, 'x.yaml')}: a part of the path is not a directory`,
    ]);
  });

  it('text that is not UTF-8, naming the line of the first bad byte', async () => {
    const file = path.join(dir, 'latin1.yaml');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from('nameServer: 127.0.0.1:9876\n# caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n'),
      ]),
    );
    expect(await problemsOf(() => loadConfig(file, { env: {} }))).toEqual([
      `(config): cannot read ${file}: is not UTF-8 text (a bad byte on line 2)`,
    ]);
    // Overlong forms and surrogates are not UTF-8 either.
    for (const bad of [
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ]) {
      await writeFile(file, Buffer.concat([Buffer.from('a: '), Buffer.from(bad)]));
      expect(await problemsOf(() => readConfigFileText(file))).toEqual([
        `(config): cannot read ${file}: is not UTF-8 text (a bad byte on line 1)`,
      ]);
    }
  });

  it('a byte order mark is dropped, in JSON as in YAML', async () => {
    const file = path.join(dir, 'bom.json');
    await writeFile(file, '\ufeff{"a": 1}');
    expect(await readConfigFileText(file)).toBe('{"a": 1}');
  });

  it('an empty file, and an empty serverless.yml', async () => {
    const file = path.join(dir, 'empty.json');
    await writeFile(file, ' \n');
    expect(await problemsOf(() => loadConfig(file, { env: {} }))).toEqual(['(config): the file is empty']);
    const service = path.join(dir, 'serverless.yml');
    await writeFile(service, '\n');
    expect(await problemsOf(() => readServerlessYaml(service))).toEqual([
      '(serverless.yml): the file is empty',
    ]);
  });

  it('a document that is not a mapping', async () => {
    const file = path.join(dir, 'list.yaml');
    await writeFile(file, '- a\n- b\n');
    expect(await problemsOf(() => loadConfig(file, { env: {} }))).toEqual([
      '(config): must be a mapping of keys to values, got a list',
    ]);
  });
});
