/**
 * `offsets reset` guards and interruption against the real broker (a file offset store, no poller
 * running): a group with committed offsets and a backlog.
 *
 * - a reset to a time in the future is refused, naming how many messages it would skip, and applies
 *   with --allow-skip; a rerun reports every queue already there;
 * - a time without a zone is refused (exit 2) with how to write it;
 * - the --json plan's totals match the broker's offsets;
 * - a SIGINT during the apply finishes the queue in flight and stops, listing the queues not moved; the
 *   rerun reports the moved one already there and moves the rest.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StopSignal } from '../../../src/cli/cli-io.js';
import { offsetsCommand } from '../../../src/cli/offsets-command.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type CapturedRun, fakeCliIo, runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

/** The plan's JSON document, as far as these tests read it. */
interface ResetJson {
  queues: {
    brokerName: string;
    queueId: number;
    maxOffset: number;
    committedOffset: number | null;
    brokerOffset: number | null;
    resumeOffset: number;
    targetOffset: number | null;
    redelivered: number;
    skipped: number;
    state: string;
  }[];
  totals: { queues: number; moving: number; alreadyThere: number; redelivered: number; skipped: number };
  needsAllowSkip: string | null;
  result: { moved: number; alreadyThere: number; notMoved: number; interrupted: boolean } | null;
}

let dir: string;
let client: RocketMQClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rl-reset-guards-'));
  client = newClient();
});

afterAll(async () => {
  await client.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * A topic of `queues` queues with 10 messages each, a LATEST mapping on it with a file store, and the
 * group's offsets committed at `committed` (by a reset back from the start position, which needs no flag).
 */
async function groupWithBacklog(queues: number, committed: number) {
  const topic = uniqueTopic('ResetGuard');
  const group = uniqueGroup('ResetGuard');
  await createTopic(client, topic, queues);
  // The group as a consumer that ran leaves it: the broker then keeps its copy of the offsets.
  await client.admin.createSubscriptionGroup(testBroker().brokerAddr, { groupName: group });
  await produce(await newProducer(client), topic, 10 * queues, { queues });
  const configFile = path.join(dir, `${group}.json`);
  await writeFile(
    configFile,
    JSON.stringify({
      nameServer: testBroker().namesrvAddr,
      offsets: { store: 'file', path: path.join(dir, `${group}-offsets`) },
      mappings: [{ name: 'orders', topic, consumerGroup: group, function: 'f', startingPosition: 'LATEST' }],
    }),
  );
  const reset = (...args: string[]): Promise<CapturedRun> =>
    runCaptured((io) => offsetsCommand(['reset', '--config', configFile, ...args], io));
  const maxOffsets = () =>
    Promise.all(
      Array.from({ length: queues }, (_, queueId) =>
        client.broker.getMaxOffset(testBroker().brokerAddr, { topic, queueId }),
      ),
    );
  // The broker dispatches stored messages to its queues shortly after acknowledging the sends.
  await waitFor('every message in its queue', 15_000, async () =>
    (await maxOffsets()).every((max) => max === 10) ? true : undefined,
  );
  const committing = await reset('--to', String(committed), '--yes');
  expect(committing.err).toBe('');
  expect(committing.code).toBe(0);
  const brokerOffsets = () =>
    Promise.all(
      Array.from({ length: queues }, (_, queueId) =>
        client.broker.queryConsumerOffset(testBroker().brokerAddr, {
          consumerGroup: group,
          topic,
          queueId,
          setZeroIfNotFound: false,
        }),
      ),
    );
  return { topic, group, configFile, reset, brokerOffsets, maxOffsets };
}

describe('offsets reset guards', () => {
  it('refuses a future time (naming the skipped count) until --allow-skip, refuses a time without a zone, and its --json totals match the broker', async () => {
    const g = await groupWithBacklog(2, 4);
    expect(await g.brokerOffsets()).toEqual([4, 4]);
    // The broker's copy of queue 1 ahead of the store (as a pull leaves it after a crash): a poller
    // would resume there, so the counts start there.
    await client.broker.updateConsumerOffset(testBroker().brokerAddr, {
      consumerGroup: g.group,
      topic: g.topic,
      queueId: 1,
      commitOffset: 6,
    });
    expect(await g.brokerOffsets()).toEqual([4, 6]);
    const max = await g.maxOffsets();
    expect(max).toEqual([10, 10]);

    // The plan of a skip, as JSON: every count from the broker's own offsets.
    const latest = await g.reset('--to', 'latest', '--dry-run', '--json');
    expect(latest.code).toBe(0);
    expect(latest.err).toContain(
      `note: applying it needs --allow-skip: it skips 10 unconsumed message(s) (${testBroker().brokerName}:0 6, ${testBroker().brokerName}:1 4)`,
    );
    const latestPlan = JSON.parse(latest.out) as ResetJson;
    const brokerCopies = await g.brokerOffsets();
    expect(
      latestPlan.queues.map((q) => [
        q.queueId,
        q.committedOffset,
        q.brokerOffset,
        q.resumeOffset,
        q.maxOffset,
      ]),
    ).toEqual([
      [0, 4, brokerCopies[0], 4, max[0]],
      [1, 4, brokerCopies[1], 6, max[1]],
    ]);
    expect(latestPlan.queues.map((q) => q.skipped)).toEqual(
      latestPlan.queues.map(
        (q) => (max[q.queueId] as number) - Math.max(4, brokerCopies[q.queueId] as number),
      ),
    );
    expect(latestPlan.totals).toEqual({
      queues: 2,
      moving: 2,
      alreadyThere: 0,
      refused: 0,
      redelivered: 0,
      skipped: 10,
    });
    expect(latestPlan.result).toBeNull();
    const earliest = JSON.parse((await g.reset('--to', 'earliest', '--dry-run', '--json')).out) as ResetJson;
    expect(earliest.totals).toMatchObject({ redelivered: 10, skipped: 0 });
    expect(earliest.needsAllowSkip).toBeNull();

    // A time in the future lands on latest: refused, with the count, nothing moved.
    const future = '2030-01-01T00:00:00Z';
    const refused = await g.reset('--to', future, '--yes');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('2030-01-01T00:00:00.000Z is in the future');
    expect(refused.err).toContain('it skips 10 unconsumed message(s) (');
    expect(refused.err).toContain('pass --allow-skip');
    expect(refused.out).toMatch(/total: 2 queue\(s\) move; redelivers 0, skips 10/);
    expect(refused.out).toContain('reset to 2030-01-01T00:00:00.000Z (local ');
    expect(await g.brokerOffsets()).toEqual([4, 6]);

    // A time without a zone: a usage error, with both ways to write it.
    const noZone = await g.reset('--to', '2026-01-01T00:00:00', '--yes');
    expect(noZone.code).toBe(2);
    expect(noZone.err).toContain('2026-01-01T00:00:00 has no time zone');
    expect(noZone.err).toContain('add Z for UTC (2026-01-01T00:00:00Z) or your offset (2026-01-01T00:00:00');
    expect(await g.brokerOffsets()).toEqual([4, 6]);

    // Without --yes off a terminal: a usage error, nothing read or written.
    const unconfirmed = await g.reset('--to', 'earliest');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain('pass --yes');

    // With the flag it applies; the result and the plan in one document.
    const allowed = await g.reset('--to', future, '--allow-skip', '--yes', '--json');
    expect(allowed.err).toBe('');
    expect(allowed.code).toBe(0);
    const applied = JSON.parse(allowed.out) as ResetJson;
    expect(applied.totals.skipped).toBe(10);
    expect(applied.result).toMatchObject({ moved: 2, alreadyThere: 0, notMoved: 0, interrupted: false });
    expect(applied.queues.map((q) => q.state)).toEqual(['moved', 'moved']);
    expect(await g.brokerOffsets()).toEqual(max);

    // The same reset again: every queue already there, nothing written, no flag needed (nothing skipped).
    const again = await g.reset('--to', 'latest', '--yes');
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/:0\s+10 -> 10\s+\[min 0, max 10\]\s+already there/);
    expect(again.out).toContain('nothing to do: every queue of orders is already there');
  });

  it('a SIGINT during the apply finishes the queue in flight, says which queues did not move, and the rerun moves only those', async () => {
    const g = await groupWithBacklog(4, 10);
    expect(await g.brokerOffsets()).toEqual([10, 10, 10, 10]);
    const io = fakeCliIo();
    // The signal arrives as soon as the command listens for it: the first queue's writes are in flight.
    const listen = io.onStopSignal.bind(io);
    io.onStopSignal = (handler: (signal: StopSignal) => void) => {
      const remove = listen(handler);
      setImmediate(() => io.sendStopSignal('SIGINT'));
      return remove;
    };
    const code = await offsetsCommand(['reset', '--config', g.configFile, '--to', 'earliest', '--yes'], io);
    expect(code).toBe(130);
    expect(io.err()).toContain('SIGINT: finishing the queue in flight, then stopping');
    const broker = testBroker().brokerName;
    expect(io.err()).toContain(
      `stopped by SIGINT after 1 of 4 queue(s); not moved: ${broker}:1, ${broker}:2, ${broker}:3 (finish with --queue ${broker}:1 --queue ${broker}:2 --queue ${broker}:3)`,
    );
    // Queue 0 moved whole (store and broker copy), the others not at all.
    expect(await g.brokerOffsets()).toEqual([0, 10, 10, 10]);
    const plan = JSON.parse((await g.reset('--to', 'earliest', '--dry-run', '--json')).out) as ResetJson;
    expect(plan.queues.map((q) => [q.committedOffset, q.state, q.redelivered])).toEqual([
      [0, 'alreadyThere', 0],
      [10, 'planned', 10],
      [10, 'planned', 10],
      [10, 'planned', 10],
    ]);

    const rerun = await g.reset('--to', 'earliest', '--yes');
    expect(rerun.err).toBe('');
    expect(rerun.code).toBe(0);
    expect(rerun.out).toMatch(/:0\s+already there/);
    expect(rerun.out).toContain('reset 3 queue(s) of orders (1 already there)');
    expect(await g.brokerOffsets()).toEqual([0, 0, 0, 0]);
  });
});
