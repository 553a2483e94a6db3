/**
 * `dlq redrive` interrupted at many points against the real broker: the real CLI (a child process) is
 * stopped with SIGINT and SIGTERM (it finishes the send in flight, saves, says where it stopped, exits
 * 130 / 143) and killed with SIGKILL (nothing runs: the next run finds the one message whose save was
 * lost in %RETRY%<group> by its REDRIVEN_FROM mark), rerun each time, and finally run to the end. A
 * ledger of %RETRY%<group> then holds every dead letter exactly once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { QueueReader } from '../../../src/client/queue-reader.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { type PollerProcess, spawnCli } from './poller-process.js';

/** Dead letters of the test. */
const COUNT = 150;

/** Every message of `topic` (all its queues). */
async function readAll(client: RocketMQClient, group: string, topic: string): Promise<MessageExt[]> {
  const reader = new QueueReader({ client, consumerGroup: group });
  const messages: MessageExt[] = [];
  for (const { queue } of await reader.queues(topic)) {
    let offset = 0;
    for (;;) {
      const result = await reader.read(queue, offset, { maxMessages: 256 });
      if (result.status !== 'FOUND') break;
      messages.push(...result.messages);
      offset = result.nextOffset;
    }
  }
  return messages;
}

/** Sends `COUNT` messages to `topic` and dead-letters each of them for `group` (CONSUMER_SEND_MSG_BACK -1). */
async function deadLetters(client: RocketMQClient, topic: string, group: string): Promise<void> {
  const producer = await newProducer(client);
  await produce(producer, topic, COUNT, { message: (i) => ({ body: `dead-${i}` }) });
  const originals = await waitFor('the originals', 15_000, async () => {
    const all = await readAll(client, group, topic);
    return all.length === COUNT ? all : undefined;
  });
  for (const original of originals) {
    await client.broker.consumerSendMsgBack(testBroker().brokerAddr, {
      offset: original.physicalOffset,
      group,
      delayLevel: -1,
      originMsgId: original.msgId,
      originTopic: topic,
      maxReconsumeTimes: 0,
      bname: testBroker().brokerName,
    });
  }
  await waitFor('the dead letters', 15_000, async () =>
    (await readAll(client, group, `%DLQ%${group}`)).length === COUNT ? true : undefined,
  );
}

/** Lines of the child's stdout that report a send (or a send found already done). */
function sends(run: PollerProcess): number {
  return run
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('sent #')).length;
}

/** Sends `signal` to the child as soon as its stdout has reported `after` sends. */
function interruptAfter(run: PollerProcess, after: number, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (sends(run) < after) return;
      run.child.stdout?.off('data', check);
      run.child.kill(signal);
      resolve();
    };
    run.child.stdout?.on('data', check);
    void run.exited.then(() => reject(new Error(`redrive ended before ${signal}:\n${run.stderr()}`)));
  });
}

describe('dlq redrive interrupted', () => {
  it('sends every dead letter exactly once across SIGINT, SIGTERM and SIGKILL at many points', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('Redrive');
    const group = uniqueGroup('Redrive');
    await createTopic(client, topic, 1);
    // Two queues, so the search for a copy reads more than one.
    await createTopic(client, `%RETRY%${group}`, 2);
    await deadLetters(client, topic, group);

    const dir = await mkdtemp(path.join(tmpdir(), 'rl-redrive-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'orders.js'), 'export const handler = async () => ({});\n');
    const config = path.join(dir, 'poller.json');
    await writeFile(
      config,
      JSON.stringify({
        nameServer: testBroker().namesrvAddr,
        offsets: { store: 'memory' },
        mappings: [{ name: 'orders', consumerGroup: group, topic, function: 'local:./orders.js' }],
      }),
    );
    const args = ['dlq', 'redrive', '--config', config, '--mapping', 'orders', '--yes'];

    // After how many more sends each run is interrupted, and how.
    const interruptions: [number, NodeJS.Signals][] = [
      [3, 'SIGINT'],
      [1, 'SIGKILL'],
      [7, 'SIGTERM'],
      [5, 'SIGKILL'],
      [1, 'SIGINT'],
      [9, 'SIGKILL'],
      [2, 'SIGKILL'],
    ];
    const seen: string[] = [];
    for (const [after, signal] of interruptions) {
      const run = spawnCli(args);
      await interruptAfter(run, after, signal);
      const exit = await run.exited;
      const found = run
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('already sent #')).length;
      seen.push(`${signal} after ${after}: ${sends(run)} sent, ${found} found sent, ${JSON.stringify(exit)}`);
      if (signal === 'SIGKILL') {
        expect(exit.signal).toBe('SIGKILL');
      } else {
        expect(exit.code, run.stderr()).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(run.stderr()).toMatch(
          new RegExp(
            `stopped at #\\d+ of %DLQ%${group} on \\S+: \\d+ sent, \\d+ left; run again to continue`,
          ),
        );
      }
    }

    const last = spawnCli([...args, '--json']);
    const exit = await last.exited;
    expect(exit.code, last.stderr()).toBe(0);
    const document = JSON.parse(last.stdout()) as {
      sent: number;
      alreadySent: number;
      stoppedAt: unknown;
      positions: { position: number | null }[];
    };
    expect(document.stoppedAt).toBeNull();
    seen.push(`last: ${document.sent} sent, ${document.alreadySent} found sent`);
    expect(document.positions.map((p) => p.position)).toEqual([COUNT]);

    // The ledger: every dead letter in %RETRY%<group> exactly once.
    const copies = await waitFor('every copy', 15_000, async () => {
      const all = await readAll(client, group, `%RETRY%${group}`);
      return all.length >= COUNT ? all : undefined;
    });
    const counts = new Map<string, number>();
    for (const copy of copies) {
      const body = copy.body.toString('utf8');
      counts.set(body, (counts.get(body) ?? 0) + 1);
    }
    const twice = [...counts].filter(([, n]) => n > 1).map(([body]) => body);
    expect(twice, seen.join('\n')).toEqual([]);
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `dead-${i}`).sort());
    expect(copies).toHaveLength(COUNT);
    // A second run sends nothing.
    const again = spawnCli([...args, '--json']);
    expect((await again.exited).code).toBe(0);
    expect(JSON.parse(again.stdout())).toMatchObject({ sent: 0, alreadySent: 0 });
  }, 180_000);
});
