/**
 * `rocketmq-lambda status` and `offsets show|reset` against the real broker, a real dynalite and real
 * in-process pollers (a ledger invoker in place of the functions):
 *
 * - status shows the lag of produced messages, then lag 0, the poller's client id as holder and a recent
 *   commit once a poller drained them;
 * - `offsets reset --to earliest` while a poller runs makes it deliver everything again (idle queues: the
 *   reset watch), and a poller started after a reset starts there, not at the broker's older copy of the
 *   group's offset (the broker-offset trap);
 * - `--to <ISO time>` lands on the first message stored at or after that time;
 * - refusals: an offset out of range, the file store while its poller runs, no --yes off a terminal,
 *   broadcasting and memory stores; a dry run changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { offsetsCommand } from '../../../src/cli/offsets-command.js';
import { sendCommand } from '../../../src/cli/send-command.js';
import { statusCommand } from '../../../src/cli/status-command.js';
import type { StatusJson as AnyStatusJson, PushMappingStatusJson } from '../../../src/cli/status-render.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { type Poller, startPoller } from '../../../src/poller/poller.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type DynaliteHandle, startDynalite } from '../../support/dynalite.js';
import { type CapturedRun, fakeCliIo, runCaptured } from '../../support/fake-cli-io.js';
import { expectQuietFor } from '../../support/quiet-window.js';
import { storeTimeBoundary } from '../../support/store-time-boundary.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

/** Every mapping here is a PUSH mapping. */
type StatusJson = AnyStatusJson<PushMappingStatusJson>;

let db: DynaliteHandle;

beforeAll(async () => {
  db = await startDynalite();
  // dynalite checks no credentials, but the SDK wants some.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await db.close();
});

/** Every body a function received, in order. */
class LedgerInvoker implements Invoker {
  readonly bodies: string[] = [];

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const event = JSON.parse(request.payload.toString('utf8')) as {
      Records: { body: string; bodyEncoding?: string }[];
    };
    for (const r of event.Records) {
      this.bodies.push(r.bodyEncoding === 'utf8' ? r.body : Buffer.from(r.body, 'base64').toString('utf8'));
    }
    return { ok: true, payload: Buffer.from('{"batchItemFailures":[]}') };
  }

  async close(): Promise<void> {
    // The ledger stays readable after the poller stopped.
  }
}

function run(
  command: (args: readonly string[], io: CliIo) => Promise<number>,
  args: string[],
): Promise<CapturedRun> {
  return runCaptured((io) => command(args, io));
}

/** The items for which `test` holds, and the others. */
function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/** A temporary directory, removed when the test finishes. */
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-ops-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `config` to `dir`/poller.json; returns the file's path. */
async function writePollerConfig(dir: string, config: object): Promise<string> {
  const file = path.join(dir, 'poller.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}

function resetToEarliest(configFile: string): Promise<CapturedRun> {
  return run(offsetsCommand, ['reset', '--config', configFile, '--to', 'earliest', '--yes']);
}

interface Scenario {
  readonly topic: string;
  readonly group: string;
  readonly configFile: string;
  readonly dir: string;
  readonly client: ReturnType<typeof newClient>;
  startPoller(invoker: Invoker): Promise<Poller>;
  /** `status --json`, every queue (the topic's and the group's retry topic's). */
  statusWithRetry(): Promise<StatusJson>;
  /** `status --json`, the topic's queues only (what resets move). */
  status(): Promise<StatusJson>;
}

/** A topic of `queues` queues, a group, and a poller config with one mapping `orders` on them. */
async function scenario(options: {
  queues: number;
  store?: 'dynamodb' | 'file' | 'memory';
}): Promise<Scenario> {
  const topic = uniqueTopic('Ops');
  const group = uniqueGroup('Ops');
  const client = newClient();
  onTestFinished(() => client.close());
  await createTopic(client, topic, options.queues);
  const dir = await tempDir();
  await writeFile(path.join(dir, 'orders.js'), 'export const handler = async () => ({});\n');
  const store = options.store ?? 'dynamodb';
  const offsets =
    store === 'dynamodb'
      ? {
          store,
          table: `offsets_${randomUUID()}`,
          endpoint: db.endpoint,
          region: 'us-east-1',
          createTable: true,
        }
      : store === 'file'
        ? { store, path: path.join(dir, 'offsets') }
        : { store };
  const configFile = await writePollerConfig(dir, {
    nameServer: testBroker().namesrvAddr,
    shutdownTimeoutMs: 5000,
    offsets: { ...offsets, persistIntervalMs: 500 },
    mappings: [
      {
        name: 'orders',
        topic,
        consumerGroup: group,
        function: 'local:./orders.js',
        startingPosition: 'TRIM_HORIZON',
        maximumBatchingWindowMs: 20,
      },
    ],
  });
  const statusWithRetry = async (): Promise<StatusJson> => {
    const result = await run(statusCommand, ['--config', configFile, '--json']);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.out) as StatusJson;
  };
  return {
    topic,
    group,
    configFile,
    dir,
    client,
    async startPoller(invoker) {
      const poller = await startPoller(await loadConfig(configFile, { env: {} }), {
        invoker,
        consumerOverrides: { rebalanceIntervalMs: 2000, routeRefreshIntervalMs: 2000 },
      });
      onTestFinished(async () => {
        await poller.stop();
      });
      return poller;
    },
    statusWithRetry,
    async status() {
      const json = await statusWithRetry();
      return {
        ...json,
        mappings: json.mappings.map((m) => ({ ...m, queues: m.queues.filter((q) => q.topic === topic) })),
      };
    },
  };
}

const bodies = (count: number) => Array.from({ length: count }, (_, i) => `m${i}`);

describe('status', () => {
  it('send, then status: the lag of the sent messages, then lag 0, the holder and a recent commit once a poller drained them', async () => {
    const s = await scenario({ queues: 2 });
    const sentAtMs = Date.now();
    const sent = await runCaptured((io) =>
      sendCommand(
        ['--config', s.configFile, '--topic', s.topic, '--lines'],
        io,
        Readable.from([Buffer.from(`${bodies(10).join('\n')}\n`)]),
      ),
    );
    expect(sent.code, sent.err).toBe(0);
    expect(sent.out.trimEnd().split('\n')).toHaveLength(10);

    const before = await s.status();
    const mapping = before.mappings[0];
    expect(mapping).toMatchObject({
      name: 'orders',
      topic: s.topic,
      consumerGroup: s.group,
      offsetStore: 'dynamodb',
    });
    expect(mapping?.lag).toBe(10);
    expect(
      mapping?.queues.map((q) => [q.queueId, q.minOffset, q.maxOffset, q.committedOffset, q.lag]),
    ).toEqual([
      [0, 0, 5, null, 5],
      [1, 0, 5, null, 5],
    ]);
    for (const q of mapping?.queues ?? []) {
      // The age of the message at offset 0: stored after sentAtMs, at most as old as this test.
      expect(q.oldestUnconsumedAgeMs).toBeGreaterThanOrEqual(0);
      expect(q.oldestUnconsumedAgeMs).toBeLessThanOrEqual(Date.now() - sentAtMs + 1000);
    }
    const table = await run(statusCommand, ['--config', s.configFile]);
    expect(table.code).toBe(0);
    expect(table.out).toContain(`orders  topic ${s.topic}  group ${s.group}  (dynamodb)  lag 10`);
    expect(table.out).toMatch(
      new RegExp(`${testBroker().brokerName}:0\\s+0\\s+5\\s+- \\(starts at 0\\)\\s+5`),
    );

    const invoker = new LedgerInvoker();
    const poller = await s.startPoller(invoker);
    await waitFor('every message delivered', 30_000, async () =>
      invoker.bodies.length >= 10 ? true : undefined,
    );
    expect([...invoker.bodies].sort()).toEqual(bodies(10).sort());
    const drained = await waitFor('status lag 0', 20_000, async () => {
      const status = await s.statusWithRetry();
      return status.mappings[0]?.lag === 0 ? status : undefined;
    });
    const commitBoundMs = Date.now();
    const [topicQueues, retryQueues] = partition(
      drained.mappings[0]?.queues ?? [],
      (q) => q.topic === s.topic,
    );
    // The poller's heartbeat made the broker create the group's retry topic: held, and empty.
    expect(retryQueues.length).toBeGreaterThan(0);
    for (const q of retryQueues) expect(q).toMatchObject({ topic: `%RETRY%${s.group}`, lag: 0 });
    for (const q of topicQueues) {
      expect(q).toMatchObject({ committedOffset: 5, maxOffset: 5, lag: 0, oldestUnconsumedAgeMs: null });
      expect(q.holder).toBe(poller.clientId);
      expect(q.released).toBe(false);
      const lastCommitMs = Date.parse(q.lastCommitAt ?? '');
      expect(lastCommitMs).toBeGreaterThanOrEqual(sentAtMs);
      expect(lastCommitMs).toBeLessThanOrEqual(commitBoundMs);
    }
    const text = await run(statusCommand, ['--config', s.configFile, '--mapping', 'orders']);
    expect(text.out).toContain(`orders  topic ${s.topic}  group ${s.group}  (dynamodb)  lag 0`);
    expect(text.out).toContain(poller.clientId);

    await poller.stop();
    const stopped = await s.status();
    expect(stopped.mappings[0]?.queues.filter((q) => q.topic === s.topic).map((q) => q.released)).toEqual([
      true,
      true,
    ]);
  });

  it('--watch prints a snapshot every N seconds until a stop signal', async () => {
    const s = await scenario({ queues: 1 });
    const io = fakeCliIo();
    const watching = statusCommand(['--config', s.configFile, '--json', '--watch', '1'], io);
    const snapshots = () => io.out().split('\n').filter(Boolean).length;
    await waitFor('three snapshots', 15_000, async () => (snapshots() >= 3 ? true : undefined));
    io.sendStopSignal('SIGINT');
    expect(await watching).toBe(0);
    // The command returned, so no snapshot may follow; none would announce itself, so watch for one
    // through a window longer than the 1 s interval.
    await expectQuietFor('the --watch snapshots after the stop', 1500, snapshots);
    const times = io
      .out()
      .split('\n')
      .filter(Boolean)
      .map((line) => Date.parse((JSON.parse(line) as StatusJson).at));
    expect(times.slice(1).every((at, i) => at - (times[i] ?? 0) >= 1000)).toBe(true);
  });

  it('exits 1 and says the broker cannot be reached', async () => {
    const dir = await tempDir();
    const configFile = await writePollerConfig(dir, {
      nameServer: '127.0.0.1:1',
      offsets: {
        store: 'dynamodb',
        table: `offsets_${randomUUID()}`,
        endpoint: db.endpoint,
        region: 'us-east-1',
        createTable: true,
      },
      mappings: [{ name: 'orders', topic: 'Nowhere', consumerGroup: 'g', function: 'f' }],
    });
    const result = await run(statusCommand, ['--config', configFile, '--json']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^rocketmq-lambda status: orders: broker unreachable: the route of topic Nowhere: /,
    );
    expect((JSON.parse(result.out) as StatusJson).mappings[0]?.brokerError).toMatch(
      /the route of topic Nowhere/,
    );
  });
});

describe('offsets reset', () => {
  it('--to earliest while a poller runs delivers everything again; a poller started after a reset starts there', async () => {
    const s = await scenario({ queues: 2 });
    const producer = await newProducer(s.client);
    await produce(producer, s.topic, 20, { queues: 2 });
    const invoker = new LedgerInvoker();
    const poller = await s.startPoller(invoker);
    await waitFor('every message delivered', 30_000, async () =>
      invoker.bodies.length >= 20 ? true : undefined,
    );
    await waitFor('offsets committed', 20_000, async () =>
      (await s.status()).mappings[0]?.lag === 0 ? true : undefined,
    );
    const deliveredBefore = invoker.bodies.length;
    expect(new Set(invoker.bodies)).toEqual(new Set(bodies(20)));

    const dry = await run(offsetsCommand, [
      'reset',
      '--config',
      s.configFile,
      '--mapping',
      'orders',
      '--to',
      'earliest',
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('dry run: nothing was reset');
    expect(dry.out).toMatch(/:0\s+10 -> 0\s+\[min 0, max 10\]/);
    expect((await s.status()).mappings[0]?.queues.map((q) => [q.committedOffset, q.generation])).toEqual([
      [10, 0],
      [10, 0],
    ]);

    const reset = await run(offsetsCommand, ['reset', '--config', s.configFile, '--to', 'earliest', '--yes']);
    expect(reset.err).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.out).toContain('reset 2 queue(s) of orders');
    // The queues are idle: only the reset watch can tell the poller.
    await waitFor('every message delivered again', 30_000, async () =>
      invoker.bodies.length >= deliveredBefore + 20 ? true : undefined,
    );
    const after = invoker.bodies.slice(deliveredBefore);
    expect(new Set(after)).toEqual(new Set(bodies(20))); // every id again, none lost
    const replayed = await waitFor('replay committed', 20_000, async () => {
      const status = await s.status();
      return status.mappings[0]?.lag === 0 ? status : undefined;
    });
    expect(replayed.mappings[0]?.queues.map((q) => [q.committedOffset, q.generation, q.holder])).toEqual([
      [10, 1, poller.clientId],
      [10, 1, poller.clientId],
    ]);
    await poller.stop();

    // The trap: with no poller running, the broker still holds the group's offset 10 per queue, and a
    // poller starts at the higher of store and broker. The reset moves the broker's copy too.
    const brokerOffset = (queueId: number) =>
      s.client.broker.queryConsumerOffset(testBroker().brokerAddr, {
        consumerGroup: s.group,
        topic: s.topic,
        queueId,
        setZeroIfNotFound: false,
      });
    expect(await brokerOffset(0)).toBe(10);
    const again = await run(offsetsCommand, ['reset', '--config', s.configFile, '--to', 'earliest', '--yes']);
    expect(again.code).toBe(0);
    expect([await brokerOffset(0), await brokerOffset(1)]).toEqual([0, 0]);
    const restarted = new LedgerInvoker();
    await s.startPoller(restarted);
    await waitFor('every message delivered by the restarted poller', 30_000, async () =>
      restarted.bodies.length >= 20 ? true : undefined,
    );
    expect(new Set(restarted.bodies)).toEqual(new Set(bodies(20)));
  });

  it('--to <ISO time> lands on the first message stored at or after it', async () => {
    const s = await scenario({ queues: 1 });
    const producer = await newProducer(s.client);
    await produce(producer, s.topic, 5);
    const at = new Date(await storeTimeBoundary());
    // A gap after the time makes the older message the nearest one, which a 4.x broker's own search
    // answers (docs/protocol.md, "Broker versions"): the reset must still land on the next message.
    await sleep(50);
    await produce(producer, s.topic, 5, { message: (i) => ({ body: `late${i}` }) });

    const reset = await run(offsetsCommand, [
      'reset',
      '--config',
      s.configFile,
      '--to',
      at.toISOString(),
      '--allow-skip',
      '--yes',
    ]);
    expect(reset.err).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.out).toContain(`reset to ${at.toISOString()}`);
    expect(reset.out).toMatch(/:0\s+0 -> 5\s+\[min 0, max 10\]\s+skips 5 \(no committed offset/);
    const status = await s.status();
    expect(status.mappings[0]?.queues[0]).toMatchObject({ committedOffset: 5, generation: 1, lag: 5 });
    // The one at 5 is the first stored at or after the time; the one before it is older.
    const invoker = new LedgerInvoker();
    await s.startPoller(invoker);
    // Lag 0 is the marker: the poller committed through offset 10, so it delivered all it ever will
    // (a start before 5 would have delivered the older messages before the commit got there).
    await waitFor('the late messages delivered and committed', 30_000, async () =>
      invoker.bodies.length >= 5 && (await s.status()).mappings[0]?.lag === 0 ? true : undefined,
    );
    expect(invoker.bodies).toEqual(['late0', 'late1', 'late2', 'late3', 'late4']);
  });

  it('refuses offsets out of range, unsafe stores and resets without --yes off a terminal; changes nothing', async () => {
    const s = await scenario({ queues: 1 });
    const producer = await newProducer(s.client);
    await produce(producer, s.topic, 3);
    const args = ['reset', '--config', s.configFile];

    const above = await run(offsetsCommand, [...args, '--to', '4', '--yes']);
    expect(above.code).toBe(1);
    expect(above.out).toMatch(
      /:0\s+refused: offset 4 is above the max offset 3 \(the next message's\): nothing is stored there/,
    );
    expect(above.err).toContain('refused: 1 of 1 queues cannot be reset (above); nothing was reset');

    const unconfirmed = await run(offsetsCommand, [...args, '--to', '2']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain('stdin is not a terminal, so nobody can confirm: pass --yes');

    const unknownQueue = await run(offsetsCommand, [...args, '--to', '2', '--queue', '7', '--yes']);
    expect(unknownQueue.code).toBe(2);
    expect(unknownQueue.err).toContain(
      `no queue 7 in topic ${s.topic}; its queues: ${testBroker().brokerName}:0`,
    );

    expect((await s.status()).mappings[0]?.queues[0]).toMatchObject({
      committedOffset: null,
      generation: null,
    });

    const skipping = await run(offsetsCommand, [...args, '--to', '2', '--queue', '0', '--yes']);
    expect(skipping.code).toBe(1);
    expect(skipping.err).toContain('refused: it skips 2 unconsumed message(s)');
    const ok = await run(offsetsCommand, [...args, '--to', '2', '--queue', '0', '--allow-skip', '--yes']);
    expect(ok.code).toBe(0);
    expect((await s.status()).mappings[0]?.queues[0]).toMatchObject({ committedOffset: 2, lag: 1 });
  });

  it('refuses the file store while its poller runs, and resets it once stopped', async () => {
    const s = await scenario({ queues: 1, store: 'file' });
    const producer = await newProducer(s.client);
    await produce(producer, s.topic, 4);
    const invoker = new LedgerInvoker();
    const poller = await s.startPoller(invoker);
    await waitFor('delivered', 30_000, async () => (invoker.bodies.length >= 4 ? true : undefined));
    const refused = await resetToEarliest(s.configFile);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `refused: the file store of orders belongs to a running poller (${poller.clientId})`,
    );
    await poller.stop();
    const shown = await run(offsetsCommand, ['show', '--config', s.configFile, '--json']);
    expect((JSON.parse(shown.out) as StatusJson).mappings[0]?.queues[0]?.committedOffset).toBe(4);

    // Once the broker has forgotten the stopped poller, the reset goes through.
    const done = await waitFor('the reset once the poller is gone', 30_000, async () => {
      const result = await resetToEarliest(s.configFile);
      return result.code === 0 ? result : undefined;
    });
    expect(done.out).toContain('reset 1 queue(s) of orders');
    const after = await run(offsetsCommand, ['show', '--config', s.configFile, '--json']);
    expect((JSON.parse(after.out) as StatusJson).mappings[0]?.queues[0]?.committedOffset).toBe(0);
  });

  it('refuses the memory store and broadcasting mappings with the reason', async () => {
    const memory = await scenario({ queues: 1, store: 'memory' });
    const refused = await resetToEarliest(memory.configFile);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      "refused: orders keeps its offsets in the poller's memory (offsets.store: memory)",
    );

    const dir = await tempDir();
    const configFile = await writePollerConfig(dir, {
      nameServer: testBroker().namesrvAddr,
      offsets: { store: 'file', path: path.join(dir, 'offsets') },
      mappings: [
        {
          name: 'audit',
          topic: memory.topic,
          consumerGroup: 'g',
          function: 'f',
          messageModel: 'BROADCASTING',
        },
      ],
    });
    const broadcasting = await resetToEarliest(configFile);
    expect(broadcasting.code).toBe(1);
    expect(broadcasting.err).toContain('refused: audit is a BROADCASTING mapping');
  });
});
