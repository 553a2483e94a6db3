import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { BodySourceError, readMessageBodies, splitLines } from '../../../src/cli/message-bodies.js';
import { NoNameServerError, resolveProducerConnection } from '../../../src/cli/producer-connection.js';
import { formatSendResult, type SendStdin, sendCommand } from '../../../src/cli/send-command.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { type DevState, writeDevState } from '../../../src/serverless-service/dev-state-file.js';
import { devStateFixture } from '../../support/dev-state.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'send-cmd-'));
  dirs.push(dir);
  return dir;
}

const terminal: SendStdin = Object.assign(Readable.from([]), { isTTY: true });

function devState(nameServer: string): DevState {
  return devStateFixture({ nameServer, mappings: [] });
}

describe('send: arguments', () => {
  it.each([
    [['--body', 'a', '--file', 'f'], 'use --body or --file, not both'],
    [[], 'no body: give --body <text> or --file <file>, or pipe it on standard input'],
    [['--body', 'a', '--delay-level', '19'], '--delay-level must be 1..18'],
    [['--body', 'a', '--delay-level', '0'], '--delay-level must be 1..18'],
    [['--body', 'a', '--count', '0'], '--count must be a positive integer'],
    [['--body', 'a', '--property', 'novalue'], '--property must be key=value, got "novalue"'],
    [['--body', 'a', '--property', 'TAGS=x'], '--property TAGS: a RocketMQ system property'],
    [['--body', 'a', '--property', 'a='], 'has an empty value'],
    [['--body', 'a', '--keys', 'a b'], 'a key cannot be empty or contain spaces'],
    [['--body', 'a', '--tags', 'a||b'], 'one tag per message'],
    [['--body', ''], '--body is empty (RocketMQ refuses empty messages)'],
    [['--body', '\n\r\n', '--lines'], 'has no non-empty line'],
    [['--file', '/nonexistent/body.bin'], '--file /nonexistent/body.bin: no such file'],
  ])('%j is a usage error (exit 2): %s', async (args, message) => {
    const io = fakeCliIo();
    const code = await sendCommand(['--topic', 'T', '--name-server', '127.0.0.1:1', ...args], io, terminal);
    expect(code).toBe(2);
    expect(io.err()).toContain(message);
    expect(io.out()).toBe('');
  });

  it('requires --topic', async () => {
    const io = fakeCliIo();
    expect(await sendCommand(['--body', 'a'], io, terminal)).toBe(2);
    expect(io.err()).toContain("required option '-t, --topic <topic>' not specified");
  });

  it('refuses a body over 4 MiB with its size before connecting', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'big.bin');
    await writeFile(file, Buffer.alloc(4 * 1024 * 1024 + 1, 7));
    const io = fakeCliIo();
    // The name server would refuse the connection (exit 1): exit 2 means nothing was tried.
    expect(
      await sendCommand(['--topic', 'T', '--file', file, '--name-server', '127.0.0.1:1'], io, terminal),
    ).toBe(2);
    expect(io.err()).toContain(
      "the body is 4194305 bytes, over the broker's default limit of 4194304 bytes (4 MiB): nothing sent",
    );
  });

  it('says how to give a name server when there is none', async () => {
    const dir = await tempDir();
    const io = fakeCliIo({});
    expect(await sendCommand(['--topic', 'T', '--body', 'a', '--state-dir', dir], io, terminal)).toBe(2);
    expect(io.err()).toContain('no name server: give --name-server host:port or --config <poller config>');
    expect(io.err()).toContain('ROCKETMQ_NAME_SERVER or NAMESRV_ADDR');
  });

  it('exits 1 naming the message and the reason when the send fails', async () => {
    const io = fakeCliIo();
    const code = await sendCommand(
      ['--topic', 'T', '--body', 'a', '--count', '2', '--name-server', '127.0.0.1:1'],
      io,
      terminal,
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(
      /^rocketmq-lambda send: message 1 of 2 was not sent to T via --name-server: could not connect to 127\.0\.0\.1:1 .+$/m,
    );
    expect(io.out()).toBe('');
  });
});

describe('send: bodies', () => {
  it('splits lines at LF, drops a CR before it and empty lines, keeps bytes as they are', () => {
    expect(splitLines(Buffer.from('a\r\n\nb\n')).map(String)).toEqual(['a', 'b']);
    expect(splitLines(Buffer.from('only')).map(String)).toEqual(['only']);
    const binary = Buffer.from([0xff, 0x00, 0x0a, 0x80]);
    expect(splitLines(binary)).toEqual([Buffer.from([0xff, 0x00]), Buffer.from([0x80])]);
  });

  it('reads --body, --file (binary) or stdin, per line with lines, the whole list count times', async () => {
    expect((await readMessageBodies({ body: 'hi', lines: false, count: 3 })).map(String)).toEqual([
      'hi',
      'hi',
      'hi',
    ]);
    expect((await readMessageBodies({ body: 'a\nb', lines: true, count: 2 })).map(String)).toEqual([
      'a',
      'b',
      'a',
      'b',
    ]);
    const dir = await tempDir();
    const file = path.join(dir, 'body.bin');
    const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff]);
    await writeFile(file, bytes);
    expect(await readMessageBodies({ file, lines: false, count: 1 })).toEqual([bytes]);
    const stdin = Readable.from([Buffer.from('x\ny'), Buffer.from('\nz\n')]);
    expect((await readMessageBodies({ stdin, lines: true, count: 1 })).map(String)).toEqual(['x', 'y', 'z']);
    await expect(readMessageBodies({ stdin: Readable.from([]), lines: false, count: 1 })).rejects.toThrow(
      BodySourceError,
    );
  });
});

describe('send: the name server', () => {
  it('takes --name-server, else a live dev.json, else ROCKETMQ_NAME_SERVER, else NAMESRV_ADDR', async () => {
    const cwd = await tempDir();
    const env = { ROCKETMQ_NAME_SERVER: '10.0.0.3:9876', NAMESRV_ADDR: '10.0.0.4:9876' };
    const first = await resolveProducerConnection({ nameServer: '10.0.0.1:9876;10.0.0.2:9876' }, env, cwd);
    expect(first.connection.nameServerAddresses).toEqual(['10.0.0.1:9876', '10.0.0.2:9876']);
    expect(first.source).toBe('--name-server');

    expect((await resolveProducerConnection({}, env, cwd)).source).toBe('ROCKETMQ_NAME_SERVER');
    expect((await resolveProducerConnection({}, { NAMESRV_ADDR: '10.0.0.4:9876' }, cwd)).source).toBe(
      'NAMESRV_ADDR',
    );

    await writeDevState(path.join(cwd, '.rocketmq-lambda'), devState('127.0.0.1:34567'));
    const dev = await resolveProducerConnection({}, env, cwd);
    expect(dev.connection.nameServerAddresses).toEqual(['127.0.0.1:34567']);
    expect(dev.source).toContain(`dev session (pid ${process.pid}`);
    const other = await tempDir();
    await writeDevState(other, devState('127.0.0.1:45678'));
    expect(
      (await resolveProducerConnection({ stateDir: other }, env, cwd)).connection.nameServerAddresses,
    ).toEqual(['127.0.0.1:45678']);
  });

  it('signs with the ACL keys of the environment, and refuses half a pair', async () => {
    const both = await resolveProducerConnection(
      { nameServer: '10.0.0.1:9876' },
      { ROCKETMQ_ACCESS_KEY: 'ak', ROCKETMQ_SECRET_KEY: 'sk' },
    );
    expect(both.connection.acl).toEqual({ accessKey: 'ak', secretKey: 'sk' });
    await expect(
      resolveProducerConnection({ nameServer: '10.0.0.1:9876' }, { ROCKETMQ_ACCESS_KEY: 'ak' }),
    ).rejects.toThrow(ConfigError);
  });

  it("takes a poller config's nameServer, acl and tls", async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'poller.yaml');
    await writeFile(
      file,
      [
        'nameServer: 10.0.0.9:9876',
        'acl: { accessKey: ak, secretKey: sk }',
        'offsets: { store: memory }',
        'mappings:',
        '  - { name: orders, topic: Orders, consumerGroup: g, function: arn:aws:lambda:us-east-1:123456789012:function:f }',
      ].join('\n'),
    );
    const resolved = await resolveProducerConnection({ config: file, nameServer: '1.1.1.1:1' }, {});
    expect(resolved.connection.nameServerAddresses).toEqual(['10.0.0.9:9876']);
    expect(resolved.connection.acl).toEqual({ accessKey: 'ak', secretKey: 'sk' });
    expect(resolved.source).toBe(file);
  });

  it('refuses a malformed address', async () => {
    await expect(resolveProducerConnection({ nameServer: 'localhost' }, {})).rejects.toThrow(
      NoNameServerError,
    );
  });
});

describe('send: output', () => {
  const result = {
    status: 'SEND_OK' as const,
    msgId: '7F0000010001',
    offsetMsgId: 'AC11000100002A9F',
    brokerName: 'broker-a',
    queueId: 2,
    queueOffset: 17,
  };
  it('prints <msgId> <broker>/<queueId> offset <queueOffset>, the status only when not SEND_OK', () => {
    expect(formatSendResult(result, 'T', false)).toBe('7F0000010001 broker-a/2 offset 17');
    expect(formatSendResult({ ...result, status: 'FLUSH_DISK_TIMEOUT' }, 'T', false)).toBe(
      '7F0000010001 broker-a/2 offset 17 FLUSH_DISK_TIMEOUT',
    );
    expect(JSON.parse(formatSendResult(result, 'T', true))).toEqual({ ...result, topic: 'T' });
  });
});
