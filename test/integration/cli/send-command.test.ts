/**
 * `rocketmq-lambda send` against the real broker: what it prints is where the broker stored each message
 * (read back by pulling that queue at that offset: body, tags, keys, properties and id match), an orderly
 * key keeps one queue (the one Java's SelectMessageQueueByHash picks), --lines and --count, binary files,
 * a delay level, and the name server of a running dev session's dev.json.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SendStdin, sendCommand } from '../../../src/cli/send-command.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { javaStringHashCode } from '../../../src/protocol/java-hash.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { writeDevState } from '../../../src/serverless-service/dev-state-file.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient, pullHeader, pullMessages, waitFor } from '../client/helpers.js';

const QUEUES = 4;
let client: RocketMQClient;
let dir: string;

beforeAll(async () => {
  client = newClient();
  dir = await mkdtemp(path.join(tmpdir(), 'send-it-'));
});
afterAll(async () => {
  await client.close();
  await rm(dir, { recursive: true, force: true });
});

interface Printed {
  msgId: string;
  offsetMsgId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  status: string;
}

const noStdin: SendStdin = Object.assign(Readable.from([]), { isTTY: true });

function send(args: string[], options: { stdin?: SendStdin; env?: Record<string, string> } = {}) {
  return runCaptured((io) => sendCommand(args, io, options.stdin ?? noStdin), options.env);
}

async function newTopic(): Promise<string> {
  const topic = uniqueTopic('Send');
  await createTopic(client, topic, QUEUES);
  return topic;
}

/** The stored message at each printed queue and offset. */
async function readBack(topic: string, printed: readonly Printed[]): Promise<MessageExt[]> {
  const group = uniqueGroup('SendReader');
  const found: MessageExt[] = [];
  for (const p of printed) {
    const [message] = await pullMessages(client, {
      group,
      topic,
      queueId: p.queueId,
      fromOffset: p.queueOffset,
      count: 1,
    });
    if (message === undefined) throw new Error(`nothing at ${p.queueId}@${p.queueOffset}`);
    found.push(message);
  }
  return found;
}

function parseJsonLines(text: string): Printed[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Printed);
}

describe('rocketmq-lambda send', () => {
  it('prints <msgId> <broker>/<queueId> offset <n> for each message, where the broker stored it', async () => {
    const topic = await newTopic();
    const { namesrvAddr, brokerName } = testBroker();
    const result = await send([
      '--topic',
      topic,
      '--body',
      'héllo',
      '--tags',
      'created',
      '--keys',
      'order-1',
      '--keys',
      'customer-7',
      '--property',
      'region=eu',
      '--property',
      'source=cli',
      '--count',
      '3',
      '--name-server',
      namesrvAddr,
    ]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const lines = result.out.trim().split('\n');
    expect(lines).toHaveLength(3);
    const printed = lines.map((line) => {
      const match = /^([0-9A-F]{32}) (\S+)\/(\d+) offset (\d+)$/.exec(line);
      if (match === null) throw new Error(`unexpected line ${line}`);
      return {
        msgId: match[1] as string,
        brokerName: match[2] as string,
        queueId: Number(match[3]),
        queueOffset: Number(match[4]),
      } as Printed;
    });
    expect(new Set(printed.map((p) => p.msgId)).size).toBe(3);
    expect(printed.every((p) => p.brokerName === brokerName)).toBe(true);
    const stored = await readBack(topic, printed);
    stored.forEach((message, index) => {
      expect(message.body.toString('utf8')).toBe('héllo');
      expect(message.properties.UNIQ_KEY).toBe(printed[index]?.msgId);
      expect(message.properties.TAGS).toBe('created');
      expect(message.properties.KEYS).toBe('order-1 customer-7');
      expect(message.properties.region).toBe('eu');
      expect(message.properties.source).toBe('cli');
    });
  });

  it('puts every message with one --orderly-key on one queue: the one Java picks for that key', async () => {
    const topic = await newTopic();
    const { namesrvAddr } = testBroker();
    const queuesOf = async (key: string): Promise<Printed[]> => {
      const result = await send([
        '--topic',
        topic,
        '--body',
        key,
        '--count',
        '6',
        '--orderly-key',
        key,
        '--json',
        '--name-server',
        namesrvAddr,
      ]);
      expect(result.code).toBe(0);
      return parseJsonLines(result.out);
    };
    const keys = ['customer-1', 'customer-2', 'customer-3'];
    const used = new Set<number>();
    for (const key of keys) {
      const printed = await queuesOf(key);
      const expected = Math.abs(javaStringHashCode(key)) % QUEUES;
      expect(printed.map((p) => p.queueId)).toEqual(Array(6).fill(expected));
      const offsets = printed.map((p) => p.queueOffset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      used.add(expected);
      const stored = await readBack(topic, printed);
      expect(stored.map((m) => m.body.toString())).toEqual(Array(6).fill(key));
    }
    // The three keys do not all hash onto one queue (so the test tells hashing from a fixed queue).
    expect(used.size).toBeGreaterThan(1);
  });

  it('sends one message per line of standard input with --lines, each line --count times', async () => {
    const topic = await newTopic();
    const stdin = Readable.from([Buffer.from('first\r\nsecond\n'), Buffer.from('\nthird')]);
    const result = await send(
      ['--topic', topic, '--lines', '--count', '2', '--json', '--name-server', testBroker().namesrvAddr],
      {
        stdin,
      },
    );
    expect(result.code).toBe(0);
    const printed = parseJsonLines(result.out);
    expect(printed).toHaveLength(6);
    const stored = await readBack(topic, printed);
    expect(stored.map((m) => m.body.toString())).toEqual([
      'first',
      'second',
      'third',
      'first',
      'second',
      'third',
    ]);
  });

  it('sends a binary file byte for byte (compressed on the wire above 4 KiB)', async () => {
    const topic = await newTopic();
    const file = path.join(dir, 'payload.bin');
    const bytes = Buffer.alloc(10_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 256;
    await writeFile(file, bytes);
    const result = await send([
      '--topic',
      topic,
      '--file',
      file,
      '--json',
      '--name-server',
      testBroker().namesrvAddr,
    ]);
    expect(result.code).toBe(0);
    const [stored] = await readBack(topic, parseJsonLines(result.out));
    expect(stored?.body.equals(bytes)).toBe(true);
  });

  it('delivers a message with --delay-level 1 to its topic about a second later', async () => {
    const topic = await newTopic();
    const sentAt = Date.now();
    const result = await send([
      '--topic',
      topic,
      '--body',
      'later',
      '--delay-level',
      '1',
      '--json',
      '--name-server',
      testBroker().namesrvAddr,
    ]);
    expect(result.code).toBe(0);
    const [printed] = parseJsonLines(result.out);
    const group = uniqueGroup('SendDelay');
    const message = await waitFor('the delayed message on its topic', 20_000, async () => {
      for (let queueId = 0; queueId < QUEUES; queueId++) {
        const pulled = await client.broker.pullMessage(
          testBroker().brokerAddr,
          pullHeader({ group, topic, queueId, queueOffset: 0 }),
        );
        const found =
          pulled.status === 'FOUND'
            ? pulled.messages.find((m) => m.properties.UNIQ_KEY === printed?.msgId)
            : undefined;
        if (found !== undefined) return found;
      }
      return undefined;
    });
    expect(message.body.toString()).toBe('later');
    expect(message.properties.DELAY).toBe('1');
    expect(message.storeTimestamp - sentAt).toBeGreaterThanOrEqual(900);
  });

  it("finds the name server in a running dev session's dev.json when none is given", async () => {
    const topic = await newTopic();
    const stateDir = path.join(dir, 'service', '.rocketmq-lambda');
    await writeDevState(stateDir, {
      version: 1,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      serviceDir: path.join(dir, 'service'),
      configFile: path.join(dir, 'service', 'serverless.yml'),
      nameServer: testBroker().namesrvAddr,
      dynamoDbEndpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      topics: [topic],
      mappings: [],
    });
    const result = await send(['--topic', topic, '--body', 'via dev', '--json', '--state-dir', stateDir]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const [stored] = await readBack(topic, parseJsonLines(result.out));
    expect(stored?.body.toString()).toBe('via dev');
  });
});
