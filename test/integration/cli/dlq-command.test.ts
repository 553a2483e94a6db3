/**
 * `rocketmq-lambda dlq show|redrive` against the real broker with a real poller: a function fails some
 * messages (maxReconsumeTimes 0 dead-letters them on the first failure), `dlq show` lists them with their
 * original topic and body, and once the function is fixed `dlq redrive` hands them to it again, through
 * the group's retry topic (only that group) or the original topic (every group). A second redrive sends
 * nothing; a dry run sends nothing and moves nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import { dlqCommand } from '../../../src/cli/dlq-command.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { startPoller } from '../../../src/poller/poller.js';
import { MessageConst } from '../../../src/protocol/message.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type CapturedRun, runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient, newProducer, sendStoredBody, waitFor } from '../consumer/helpers.js';

/** One record a function received. */
interface Delivery {
  readonly functionRef: string;
  readonly messageId: string;
  readonly topic: string;
  readonly keys: readonly string[];
  readonly properties: Readonly<Record<string, string>>;
  readonly reconsumeTimes: number;
  readonly body: string;
}

/**
 * The functions of the test: every record is written to the ledger; records whose first key is in
 * `failing` are reported as batch item failures.
 */
class LedgerInvoker implements Invoker {
  readonly deliveries: Delivery[] = [];
  readonly failing = new Set<string>();

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const event = JSON.parse(request.payload.toString('utf8')) as {
      Records: {
        messageId: string;
        topic: string;
        keys: string[];
        properties: Record<string, string>;
        reconsumeTimes: number;
        body: string;
        bodyEncoding?: string;
      }[];
    };
    const failures: { itemIdentifier: string }[] = [];
    for (const r of event.Records) {
      const body = r.bodyEncoding === 'utf8' ? r.body : Buffer.from(r.body, 'base64').toString('utf8');
      this.deliveries.push({ ...r, functionRef: request.functionRef, body });
      if (this.failing.has(r.keys[0] ?? '')) failures.push({ itemIdentifier: r.messageId });
    }
    return { ok: true, payload: Buffer.from(JSON.stringify({ batchItemFailures: failures })) };
  }

  /** Deliveries of the message with first key `key` to the function `functionRef`. */
  of(functionRef: string, key: string): Delivery[] {
    return this.deliveries.filter((d) => d.functionRef === functionRef && d.keys[0] === key);
  }

  async close(): Promise<void> {
    // Nothing to release: the ledger stays readable after the poller stopped.
  }
}

const ORDERS = 'local:./orders.js';
const AUDIT = 'local:./audit.js';

/** Sets a topic's permission (6 read+write, 4 read-only) and waits until the name server routes it so. */
async function setTopicPerm(client: RocketMQClient, topic: string, perm: number): Promise<void> {
  await client.admin.createTopic(testBroker().brokerAddr, { topic, readQueueNums: 1, perm });
  await waitFor(`perm ${perm} of ${topic}`, 15_000, async () => {
    const route = await client.nameServer.getRoute(topic, { refresh: true });
    return route.queueDatas[0]?.perm === perm ? true : undefined;
  });
}

function dlq(args: string[]): Promise<CapturedRun> {
  return runCaptured((io) => dlqCommand(args, io, { confirm: undefined }));
}

/**
 * A poller config with two mappings of one topic: `orders` (the group whose dead letters we redrive,
 * maxReconsumeTimes 0) and `audit` (another group of the same topic, never failing); started in-process
 * with the ledger invoker and stopped with the test.
 */
async function startScenario() {
  const topic = uniqueTopic('Dlq');
  const ordersGroup = uniqueGroup('Orders');
  const auditGroup = uniqueGroup('Audit');
  const client = newClient();
  onTestFinished(() => client.close());
  await createTopic(client, topic, 1);
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-dlq-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const configFile = path.join(dir, 'poller.json');
  // The config names real modules (the parser checks); the poller runs the ledger invoker instead.
  for (const file of ['orders.js', 'audit.js']) {
    await writeFile(path.join(dir, file), 'export const handler = async () => ({});\n');
  }
  const common = { topic, startingPosition: 'TRIM_HORIZON', maximumBatchingWindowMs: 20 };
  await writeFile(
    configFile,
    JSON.stringify({
      nameServer: testBroker().namesrvAddr,
      shutdownTimeoutMs: 5000,
      offsets: { store: 'memory' },
      mappings: [
        { name: 'orders', consumerGroup: ordersGroup, function: ORDERS, maxReconsumeTimes: 0, ...common },
        { name: 'audit', consumerGroup: auditGroup, function: AUDIT, ...common },
      ],
    }),
  );
  const invoker = new LedgerInvoker();
  const poller = await startPoller(await loadConfig(configFile, { env: {} }), { invoker });
  onTestFinished(async () => {
    await poller.stop();
  });
  const producer = await newProducer(client);
  return { topic, ordersGroup, configFile, invoker, client, producer };
}

describe('dlq show and dlq redrive', () => {
  it('shows a dead letter too large to inflate as such and redrives it exactly as stored', async () => {
    const { topic, ordersGroup, configFile, invoker, client } = await startScenario();
    // A body that inflates to 16 MiB (the consumers' limit is 6 MiB), flagged zlib as a producer flags it.
    const stored = deflateSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    const id = 'B0MB0000000000000000000000000001';
    await sendStoredBody(client, topic, { id, stored, properties: { [MessageConst.KEYS]: 'bomb-1' } });
    const target = ['--config', configFile, '--mapping', 'orders'];
    const shown = await waitFor('the too-large dead letter in dlq show', 30_000, async () => {
      const result = await dlq(['show', ...target, '--json']);
      return result.out.trim().split('\n').filter(Boolean).length === 1 ? result : undefined;
    });
    const letter = JSON.parse(shown.out) as Record<string, unknown>;
    expect(letter).toMatchObject({ msgId: id, keys: ['bomb-1'], bodyBytes: 0, storedCompression: 'zlib' });
    expect(String(letter.tooLarge)).toMatch(/^body inflates past 6291456 bytes/);
    expect(Buffer.from(String(letter.storedBody), 'base64').equals(stored)).toBe(true);
    const text = await dlq(['show', ...target]);
    expect(text.out).toContain('body <too large to inflate: body inflates past 6291456 bytes');
    expect(invoker.of(ORDERS, 'bomb-1')).toHaveLength(0);

    // Redriven, it reaches the group's retry topic still compressed; the poller dead-letters it again
    // (the limit is unchanged), and the second dead letter holds the very bytes first stored.
    const redrive = await dlq(['redrive', ...target, '--yes']);
    expect(redrive.code).toBe(0);
    expect(redrive.out).toContain(
      `sent 1 dead letter(s) of ${dlqTopicOf(ordersGroup)} to %RETRY%${ordersGroup}`,
    );
    const both = await waitFor('the redriven bomb dead-lettered again', 30_000, async () => {
      const result = await dlq(['show', ...target, '--all', '--json']);
      const lines = result.out.trim().split('\n').filter(Boolean);
      return lines.length === 2
        ? lines.map((line) => JSON.parse(line) as Record<string, unknown>)
        : undefined;
    });
    const again = both[1] as Record<string, unknown>;
    expect(again.keys).toEqual(['bomb-1']);
    expect(Buffer.from(String(again.storedBody), 'base64').equals(stored)).toBe(true);
    expect(invoker.of(ORDERS, 'bomb-1')).toHaveLength(0);
  });

  it('shows dead letters and redrives them through the retry topic to this group only, once', async () => {
    const { topic, ordersGroup, configFile, invoker, client, producer } = await startScenario();
    invoker.failing.add('poison-1').add('poison-2');
    for (const key of ['poison-1', 'good-1', 'poison-2']) {
      await producer.send({
        topic,
        body: `{"order":"${key}"}`,
        tags: 'created',
        keys: [key, 'x'],
        properties: { tenant: 't1' },
      });
    }
    const target = ['--config', configFile, '--mapping', 'orders'];
    const shown = await waitFor('2 dead letters in dlq show', 30_000, async () => {
      const result = await dlq(['show', ...target, '--json']);
      return result.out.trim().split('\n').filter(Boolean).length === 2 ? result : undefined;
    });
    expect(shown.code).toBe(0);
    // The function's failures are handed to the DLQ in parallel: the DLQ order is the broker's.
    const letters = shown.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .sort((a, b) => String(a.keys).localeCompare(String(b.keys)));
    expect(letters.map((l) => l.dlqOffset).sort()).toEqual([0, 1]);
    expect(letters.map((l) => [l.dlqTopic, l.originalTopic, l.tags, l.keys, l.properties])).toEqual([
      [dlqTopicOf(ordersGroup), topic, 'created', ['poison-1', 'x'], { tenant: 't1' }],
      [dlqTopicOf(ordersGroup), topic, 'created', ['poison-2', 'x'], { tenant: 't1' }],
    ]);
    expect(letters.map((l) => Buffer.from(String(l.body), 'base64').toString())).toEqual([
      '{"order":"poison-1"}',
      '{"order":"poison-2"}',
    ]);
    // The msgId of a dead letter is the one the function saw.
    expect(letters[0]?.msgId).toBe(invoker.of(ORDERS, 'poison-1')[0]?.messageId);
    expect(typeof letters[0]?.originalMsgId).toBe('string');

    const text = await dlq(['show', ...target]);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`${dlqTopicOf(ordersGroup)} on ${testBroker().brokerName}#0  2 stored`);
    expect(text.out).toContain('never redriven');
    expect(text.out).toContain(`original topic ${topic}`);
    expect(text.out).toContain('body {"order":"poison-2"}');
    expect(text.out).toContain('keys poison-1 x');

    invoker.failing.clear();
    const dry = await dlq(['redrive', ...target, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(
      `would send #${String(letters[0]?.dlqOffset)} msgId ${String(letters[0]?.msgId)} -> %RETRY%${ordersGroup}`,
    );
    expect(dry.out).toContain('dry run: would send 2 dead letter(s)');
    const dlqQueue = { topic: dlqTopicOf(ordersGroup), queueId: 0 };
    const position = () =>
      client.broker.queryConsumerOffset(testBroker().brokerAddr, {
        consumerGroup: ordersGroup,
        ...dlqQueue,
        setZeroIfNotFound: false,
      });
    expect(await position()).toBeUndefined();

    const notConfirmed = await dlq(['redrive', ...target]);
    expect(notConfirmed.code).toBe(2);
    expect(notConfirmed.err).toContain('pass --yes');

    const redrive = await dlq(['redrive', ...target, '--yes']);
    expect(redrive.err).toBe('2/2 dead letters scanned\n');
    expect(redrive.code).toBe(0);
    expect(redrive.out).toContain(
      `sent 2 dead letter(s) of ${dlqTopicOf(ordersGroup)} to %RETRY%${ordersGroup}`,
    );
    await waitFor('both poison messages at the orders function again', 30_000, async () =>
      invoker.of(ORDERS, 'poison-1').length === 2 && invoker.of(ORDERS, 'poison-2').length === 2
        ? true
        : undefined,
    );
    for (const key of ['poison-1', 'poison-2']) {
      const again = invoker.of(ORDERS, key)[1];
      // The consumer restored the original topic from RETRY_TOPIC; reconsume times start over.
      expect(again).toMatchObject({
        topic,
        reconsumeTimes: 0,
        body: `{"order":"${key}"}`,
        properties: { tenant: 't1' },
      });
      expect(again?.keys).toEqual([key, 'x']);
      expect(again?.messageId).not.toBe(invoker.of(ORDERS, key)[0]?.messageId);
    }
    expect(await position()).toBe(2);
    // The retry topic is the orders group's own: the audit group got each message once, from the topic.
    expect(invoker.of(AUDIT, 'poison-1')).toHaveLength(1);

    const second = await dlq(['redrive', ...target, '--yes']);
    expect(second.code).toBe(0);
    expect(second.out).toContain('nothing to redrive');
    const after = await dlq(['show', ...target]);
    expect(after.out).toContain('redrive position 2 (0 not redriven)');
    expect(after.out).toContain('nothing after the redrive position');
    const all = await dlq(['show', ...target, '--all', '--json']);
    expect(all.out.trim().split('\n')).toHaveLength(2);
  });

  it('redrives one named message to the original topic, where every group gets it again', async () => {
    const { topic, ordersGroup, configFile, invoker, client, producer } = await startScenario();
    invoker.failing.add('poison-a').add('poison-b');
    await producer.send({ topic, body: 'a', keys: ['poison-a'] });
    await producer.send({ topic, body: 'b', keys: ['poison-b'] });
    const target = ['--config', configFile, '--mapping', 'orders'];
    const shown = await waitFor('2 dead letters', 30_000, async () => {
      const result = await dlq(['show', ...target, '--json']);
      return result.out.trim().split('\n').filter(Boolean).length === 2 ? result : undefined;
    });
    const letters = shown.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msgId: string; keys: string[] });
    const second = letters.find((l) => l.keys[0] === 'poison-b');
    if (second === undefined) throw new Error(`no dead letter of poison-b in ${shown.out}`);
    invoker.failing.clear();

    const redrive = await dlq(['redrive', ...target, '--to', 'topic', '--msg-id', second.msgId, '--yes']);
    expect(redrive.code).toBe(0);
    expect(redrive.out).toContain(
      `sent 1 dead letter(s) of ${dlqTopicOf(ordersGroup)} to their original topic`,
    );
    await waitFor('poison-b at both functions again', 30_000, async () =>
      invoker.of(ORDERS, 'poison-b').length === 2 && invoker.of(AUDIT, 'poison-b').length === 2
        ? true
        : undefined,
    );
    expect(invoker.of(ORDERS, 'poison-b')[1]).toMatchObject({ topic, body: 'b', reconsumeTimes: 0 });
    expect(invoker.of(ORDERS, 'poison-a')).toHaveLength(1);
    // Named messages leave the redrive position alone: poison-a is still ahead of it.
    const position = await client.broker.queryConsumerOffset(testBroker().brokerAddr, {
      consumerGroup: ordersGroup,
      topic: dlqTopicOf(ordersGroup),
      queueId: 0,
      setZeroIfNotFound: false,
    });
    expect(position).toBeUndefined();
  });

  it('stops at a refused send with exit 1, naming the message and why, and continues from it once fixed', async () => {
    const { topic, ordersGroup, configFile, invoker, client, producer } = await startScenario();
    invoker.failing.add('poison-x').add('poison-y');
    await producer.send({ topic, body: 'x', keys: ['poison-x'] });
    await producer.send({ topic, body: 'y', keys: ['poison-y'] });
    const target = ['--config', configFile, '--mapping', 'orders'];
    await waitFor('2 dead letters', 30_000, async () => {
      const result = await dlq(['show', ...target, '--json']);
      return result.out.trim().split('\n').filter(Boolean).length === 2 ? true : undefined;
    });
    invoker.failing.clear();
    // The original topic turns read-only: sends to it are refused until an operator fixes it.
    await setTopicPerm(client, topic, 4);
    const refused = await dlq(['redrive', ...target, '--to', 'topic', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('sent 0 dead letter(s)');
    expect(refused.err).toMatch(/failed: #0 msgId \S+ of %DLQ%\S+ on \S+#0: .+/);
    expect(refused.err).toContain(
      'the redrive position stays at 0: run again to retry it, or --from 1 to skip it',
    );
    const dlqQueue = { consumerGroup: ordersGroup, topic: dlqTopicOf(ordersGroup), queueId: 0 };
    const position = () =>
      client.broker.queryConsumerOffset(testBroker().brokerAddr, { ...dlqQueue, setZeroIfNotFound: false });
    // A redrive stores where it starts before its first send (so "no position" means nothing was ever sent).
    expect(await position()).toBe(0);

    await setTopicPerm(client, topic, 6);
    const fixed = await dlq(['redrive', ...target, '--to', 'topic', '--yes']);
    expect(fixed.code).toBe(0);
    expect(fixed.out).toContain('sent 2 dead letter(s)');
    expect(await position()).toBe(2);
    await waitFor('both messages at the orders function again', 30_000, async () =>
      invoker.of(ORDERS, 'poison-x').length === 2 && invoker.of(ORDERS, 'poison-y').length === 2
        ? true
        : undefined,
    );
  });

  it('says how to make a write-only DLQ (as 4.x brokers create them) readable', async () => {
    const { ordersGroup, configFile, client } = await startScenario();
    const dlqTopic = dlqTopicOf(ordersGroup);
    await client.admin.createTopic(testBroker().brokerAddr, { topic: dlqTopic, readQueueNums: 1, perm: 2 });
    await waitFor('route of the write-only DLQ', 15_000, async () => {
      const route = await client.nameServer.getRoute(dlqTopic, { refresh: true });
      return route.queueDatas[0]?.perm === 2 ? true : undefined;
    });
    const result = await dlq(['show', '--config', configFile, '--mapping', 'orders']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`${dlqTopic} is not readable`);
    expect(result.err).toContain(
      `mqadmin updateTopicPerm -n '${testBroker().namesrvAddr}' -b ${testBroker().brokerAddr} -t '${dlqTopic}' -p 6`,
    );
  });

  it('says plainly when the group has no dead letter yet', async () => {
    const { configFile } = await startScenario();
    const result = await dlq(['show', '--config', configFile, '--mapping', 'audit']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^no dead letters for group Audit_\S+ \(%DLQ%Audit_\S+ does not exist yet/);
    const json = await dlq(['show', '--config', configFile, '--mapping', 'audit', '--json']);
    expect(json).toMatchObject({ code: 0, out: '' });
    expect(json.err).toMatch(/^no dead letters for group Audit_/);
    const redrive = await dlq(['redrive', '--config', configFile, '--mapping', 'audit', '--yes']);
    expect(redrive.code).toBe(0);
    expect(redrive.out).toMatch(/^no dead letters for group Audit_/);
  });
});
