/**
 * The ad hoc target against the real broker: `status`, `offsets` and `dlq show` with
 * `--name-server --group --topic` and no config file (none exists in the working directory), reading
 * the brokers' copy of the group's offsets as mqadmin does:
 *
 * - `status --json` shows the group's committed offsets and the lag from them, per queue;
 * - `offsets reset --to earliest --yes` moves the brokers' copy (no poller of the group runs);
 * - `dlq show --json` lists the group's dead letters with only `--group` (no topic needed).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { dlqCommand } from '../../../src/cli/dlq-command.js';
import { offsetsCommand } from '../../../src/cli/offsets-command.js';
import { statusCommand } from '../../../src/cli/status-command.js';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import { MessageConst } from '../../../src/protocol/message.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

interface QueueJson {
  readonly topic: string;
  readonly queueId: number;
  readonly maxOffset: number | null;
  readonly committedOffset: number | null;
  readonly lag: number | null;
}

interface StatusJson {
  readonly source: string;
  readonly mappings: readonly {
    readonly name: string;
    readonly topic: string;
    readonly consumerGroup: string;
    readonly offsetStore: string;
    readonly queues: readonly QueueJson[];
  }[];
}

/** An empty working directory: no serverless.yml, no config, nothing a command could read instead. */
async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-adhoc-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `argv` in `dir`, as the CLI would from there. */
async function inDir<T>(dir: string, run: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await run();
  } finally {
    process.chdir(before);
  }
}

describe('ad hoc target (no config file)', () => {
  it('status --json shows the committed offsets of a group; offsets reset moves them', async () => {
    const { namesrvAddr, brokerAddr, brokerName } = testBroker();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('AdHoc');
    const group = uniqueGroup('adhoc');
    await createTopic(client, topic, 2);
    await client.admin.createSubscriptionGroup(brokerAddr, { groupName: group });
    const producer = await newProducer(client);
    await produce(producer, topic, 10, { queues: 2 });
    for (const [queueId, commitOffset] of [
      [0, 3],
      [1, 5],
    ] as const) {
      await client.broker.updateConsumerOffset(brokerAddr, {
        consumerGroup: group,
        topic,
        queueId,
        commitOffset,
        bname: brokerName,
      });
    }
    const dir = await emptyDir();
    const adHoc = ['--name-server', namesrvAddr, '--group', group, '--topic', topic];

    const status = await inDir(dir, () => runCaptured((io) => statusCommand([...adHoc, '--json'], io)));
    expect(status.code, status.err).toBe(0);
    const json = JSON.parse(status.out) as StatusJson;
    expect(json.source).toBe(`group ${group} on ${namesrvAddr} (the brokers' copy of its offsets)`);
    expect(json.mappings).toHaveLength(1);
    const [mapping] = json.mappings;
    expect(mapping).toMatchObject({ name: group, topic, consumerGroup: group, offsetStore: 'broker' });
    const queues = (mapping?.queues ?? [])
      .filter((q) => q.topic === topic)
      .sort((a, b) => a.queueId - b.queueId)
      .map(({ queueId, maxOffset, committedOffset, lag }) => ({ queueId, maxOffset, committedOffset, lag }));
    expect(queues).toEqual([
      { queueId: 0, maxOffset: 5, committedOffset: 3, lag: 2 },
      { queueId: 1, maxOffset: 5, committedOffset: 5, lag: 0 },
    ]);
    // Said on stderr, stdout stays the JSON document.
    expect(status.err).toContain("no --offsets-table: these are the brokers' copy of group");

    const reset = await inDir(dir, () =>
      runCaptured((io) => offsetsCommand(['reset', ...adHoc, '--to', 'earliest', '--yes'], io)),
    );
    expect(reset.code, reset.err).toBe(0);
    await waitFor('the brokers copy moved to the earliest offsets', 10_000, async () => {
      const offsets = await Promise.all(
        [0, 1].map((queueId) =>
          client.broker.queryConsumerOffset(brokerAddr, {
            consumerGroup: group,
            topic,
            queueId,
            bname: brokerName,
          }),
        ),
      );
      return offsets.every((offset) => offset === 0) ? true : undefined;
    });
  }, 60_000);

  it('dlq show --json lists the dead letters of a group named with --group only', async () => {
    const { namesrvAddr } = testBroker();
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('AdHocDlq');
    const group = uniqueGroup('adhocdlq');
    const dlqTopic = dlqTopicOf(group);
    await createTopic(client, dlqTopic, 1);
    const producer = await newProducer(client);
    for (const body of ['dead-1', 'dead-2']) {
      await producer.send(
        { topic: dlqTopic, body, keys: [body], properties: { [MessageConst.RETRY_TOPIC]: topic } },
        { queueId: 0 },
      );
    }
    const dir = await emptyDir();

    const shown = await inDir(dir, () =>
      runCaptured((io) => dlqCommand(['show', '--name-server', namesrvAddr, '--group', group, '--json'], io)),
    );
    expect(shown.code, shown.err).toBe(0);
    const letters = shown.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { dlqTopic: string; originalTopic: string; body: string });
    expect(
      letters.map((l) => [l.dlqTopic, l.originalTopic, Buffer.from(l.body, 'base64').toString()]),
    ).toEqual([
      [dlqTopic, topic, 'dead-1'],
      [dlqTopic, topic, 'dead-2'],
    ]);
  }, 60_000);
});
