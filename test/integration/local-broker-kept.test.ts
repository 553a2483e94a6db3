/**
 * The kept local broker (src/local-broker/kept-broker.ts) with real JVMs and a real host process: a
 * session starts it, a later one takes it with its messages, a live holder keeps others off it, it stops by
 * itself once its lease runs out after the idle time, a stale state is replaced, and `stopKeptBroker`
 * stops it at once.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { Producer } from '../../src/client/producer.js';
import { RocketMQClient } from '../../src/client/rocketmq-client.js';
import {
  type KeptBroker,
  KeptBrokerInUseError,
  startKeptBroker,
  stopKeptBroker,
} from '../../src/local-broker/kept-broker.js';
import { keptBrokerPath } from '../../src/local-broker/kept-broker-files.js';
import { probeTopicRoute } from '../../src/local-broker/route-probe.js';
import { componentLogger } from '../../src/util/logger.js';
import { isProcessAlive } from '../../src/util/process-alive.js';
import { uniqueTopic } from '../support/broker.js';
import { waitFor } from '../support/wait-for.js';

/** Short, so the test sees the broker stop by itself. */
const IDLE_MS = 2_000;
/** A broker's boot (with a host's tsx start) on two loaded cores. */
const START_TIMEOUT_MS = 120_000;
const log = componentLogger('kept-broker-test');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-kept-'));
});

afterAll(async () => {
  await stopKeptBroker(dir).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

async function take(): Promise<{ reused: boolean; broker: KeptBroker }> {
  const start = startKeptBroker({ dir, idleMs: IDLE_MS, log, startTimeoutMs: START_TIMEOUT_MS });
  const [reused, broker] = await Promise.all([start.reused, start.ready]);
  return { reused, broker };
}

/** Whether the name server at `address` still answers. */
async function answers(address: string): Promise<boolean> {
  return probeTopicRoute(address, 'TBW102', { timeoutMs: 1000 }).then(
    () => true,
    () => false,
  );
}

describe('kept local broker', () => {
  it(
    'is started by one session, taken by the next with its messages, refused while a live session holds it, and stops once its lease has run out',
    async () => {
      const first = await take();
      expect(first.reused).toBe(false);
      const hostPid = first.broker.hostPid;
      expect(isProcessAlive(hostPid)).toBe(true);

      const topic = uniqueTopic('kept');
      const client = new RocketMQClient({ nameServerAddresses: first.broker.namesrvAddr });
      onTestFinished(() => client.close());
      await client.admin.createTopic(first.broker.brokerAddr, { topic, readQueueNums: 1, writeQueueNums: 1 });
      await waitFor(`a route of ${topic}`, 15_000, async () =>
        (await client.nameServer.getRoute(topic, { refresh: true })).queueDatas.length > 0 ? true : undefined,
      );
      const producer = new Producer({ client });
      await producer.start();
      onTestFinished(() => producer.shutdown());
      const sent = await producer.send({ topic, body: 'kept across sessions' }, { queueId: 0 });
      await first.broker.release();
      const released = JSON.parse(await readFile(keptBrokerPath(dir, 'lease'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(released).toEqual({ version: 1, until: expect.any(Number) });

      // The next session, within the idle time: the same host, name server and store.
      const second = await take();
      expect(second.reused).toBe(true);
      expect(second.broker.hostPid).toBe(hostPid);
      expect(second.broker.namesrvAddr).toBe(first.broker.namesrvAddr);
      expect(await client.broker.getMaxOffset(second.broker.brokerAddr, { topic, queueId: 0 })).toBe(
        sent.queueOffset + 1,
      );
      // Held well past the idle time while the session runs (its renewals).
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2));
      expect(isProcessAlive(hostPid)).toBe(true);

      await second.broker.release();

      // A live session holding it (here a process that only sleeps) keeps another off it.
      const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
      onTestFinished(() => void holder.kill('SIGKILL'));
      const holderPid = holder.pid ?? 0;
      const leaseFile = keptBrokerPath(dir, 'lease');
      await writeFile(
        leaseFile,
        JSON.stringify({ version: 1, until: Date.now() + 60_000, holder: holderPid }),
      );
      const refused = startKeptBroker({ dir, idleMs: IDLE_MS, log });
      await expect(refused.ready).rejects.toThrow(KeptBrokerInUseError);
      await expect(refused.ready).rejects.toThrow(`in use by another session (pid ${holderPid})`);
      expect(isProcessAlive(hostPid)).toBe(true);

      // The holder leaves as a session does; then the host stops the broker once the lease has run out,
      // and removes its state.
      await writeFile(leaseFile, JSON.stringify({ version: 1, until: Date.now() + IDLE_MS }));
      holder.kill('SIGKILL');
      const releasedAt = Date.now();
      await waitFor('the host to stop after the idle time', 60_000, () =>
        isProcessAlive(hostPid) ? undefined : true,
      );
      expect(Date.now() - releasedAt).toBeGreaterThanOrEqual(IDLE_MS - 100);
      expect(await answers(second.broker.namesrvAddr)).toBe(false);
      await expect(readFile(keptBrokerPath(dir, 'state'), 'utf8')).rejects.toThrow(/ENOENT/);
      expect(await readFile(keptBrokerPath(dir, 'hostLog'), 'utf8')).toMatch(/the lease ended at/);
    },
    4 * START_TIMEOUT_MS,
  );

  it(
    'replaces a state whose host is gone, and stopKeptBroker stops the broker at once',
    async () => {
      const stale = {
        version: 1,
        hostPid: 2 ** 22 + 17,
        namesrvAddr: '127.0.0.1:1',
        brokerAddr: '127.0.0.1:2',
        brokerName: 'broker-a',
        clusterName: 'DefaultCluster',
        rocketmqVersion: '5.3.3',
        startedAt: new Date().toISOString(),
      };
      expect(isProcessAlive(stale.hostPid)).toBe(false);
      await writeFile(keptBrokerPath(dir, 'state'), JSON.stringify(stale));
      const { reused, broker } = await take();
      expect(reused).toBe(false);
      expect(broker.namesrvAddr).not.toBe(stale.namesrvAddr);
      expect(await answers(broker.namesrvAddr)).toBe(true);

      expect(await stopKeptBroker(dir)).toBe(broker.namesrvAddr);
      expect(isProcessAlive(broker.hostPid)).toBe(false);
      expect(await answers(broker.namesrvAddr)).toBe(false);
      expect(await stopKeptBroker(dir)).toBeUndefined();
    },
    2 * START_TIMEOUT_MS,
  );

  it(
    'says why when its host cannot start a broker (no Java on PATH), and leaves no state behind',
    async () => {
      const empty = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-no-java-'));
      onTestFinished(() => rm(empty, { recursive: true, force: true }));
      // The host inherits this environment: node is found by its absolute path, java not at all.
      vi.stubEnv('PATH', empty);
      const start = startKeptBroker({ dir, idleMs: IDLE_MS, log, startTimeoutMs: START_TIMEOUT_MS });
      expect(await start.reused).toBe(false);
      await expect(start.ready).rejects.toThrow(
        /the kept local broker.s host ended \(exit code 1\) before its broker was ready: Java is not on PATH: the local RocketMQ needs Java \d+\+/,
      );
      await expect(readFile(keptBrokerPath(dir, 'state'), 'utf8')).rejects.toThrow(/ENOENT/);
      expect(JSON.parse(await readFile(keptBrokerPath(dir, 'lease'), 'utf8'))).toEqual({
        version: 1,
        until: 0,
      });
    },
    START_TIMEOUT_MS,
  );
});
