/**
 * End to end: `rocketmq-lambda dev --stage it` (child process, against the shared test broker) on the fixture
 * service test/fixtures/dev-variables, whose rocketmq event and custom keys use `${self:custom...}`,
 * `${sls:stage}`, `${opt:stage, 'dev'}`, `${env:...}` and `${file(...)}`. dev reads the service as the
 * repository's osls resolves it (`serverless print`), and the resolved values are the ones the poller uses:
 * the name server (env through self), the topic (sls:stage), the group (opt:stage), the tag filter (a file
 * through self) and the batch size (a number from a file). A service with unresolvable variables stops dev
 * with exit code 2 and a problem per variable, naming the key and the variable.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer } from '../consumer/helpers.js';
import { REPO, spawnDev } from './dev-process.js';

const FIXTURE = path.join(REPO, 'test/fixtures/dev-variables');

describe('rocketmq-lambda dev resolves serverless.yml as the Framework does', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('consumes with the name server, topic, group, filter and batch size the variables resolve to', async () => {
    const { namesrvAddr } = testBroker();
    const topicBase = uniqueTopic('DevVars');
    const topic = `${topicBase}_it`;
    const group = `${topicBase}_it_group`;
    const client = newClient();
    cleanups.push(() => client.close());
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    // All in the queue before dev starts (TRIM_HORIZON): with the file's batchSize 1 each record comes
    // alone; the default (100) would bring them together. `drop` comes first: the filter must pass over it.
    const sent = [];
    for (const [tags, body] of [
      ['drop', 'd1'],
      ['keep', 'k1'],
      ['keep', 'k2'],
      ['keep', 'k3'],
    ] as const) {
      sent.push({ tags, body, msgId: (await producer.send({ topic, tags, body })).msgId });
    }

    const stateDir = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-dev-vars-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const dev = spawnDev(
      ['--config', path.join(FIXTURE, 'serverless.yml'), '--stage', 'it', '--state-dir', stateDir],
      { DEV_VARS_NAME_SERVER: namesrvAddr, DEV_VARS_TOPIC: topicBase, ROCKETMQ_NAME_SERVER: undefined },
    );
    cleanups.push(() => dev.kill());
    const { child, watch, exited } = dev;

    const resolved = await watch.waitFor(
      'the Framework to resolve the service',
      (l) => l.msg === 'service variables resolved',
    );
    expect(resolved.resolvedBy).toMatch(/^osls \d/);
    console.info(`dev: serverless print resolved the fixture in ${String(resolved.msSinceStart)} ms`);
    const started = await watch.waitFor(
      'dev to start',
      (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops',
    );
    expect(started.nameServer).toEqual([namesrvAddr]);
    expect(started.mappings).toEqual(['echo']);

    const keeps = sent.filter((m) => m.tags === 'keep');
    const handled = await Promise.all(
      keeps.map((m) =>
        watch.waitFor(
          `the echo handler to see ${m.body}`,
          (l) => l.handler === 'echo' && l.messageId === m.msgId,
        ),
      ),
    );
    for (const [index, line] of handled.entries()) {
      expect(line).toMatchObject({
        consumerGroup: group,
        topic,
        tags: 'keep',
        records: 1,
        body: keeps[index]?.body,
      });
    }
    // The dropped message sits before the kept ones in the one queue: had the filter let it through, the
    // handler would have seen it before them.
    const dropId = sent[0]?.msgId;
    expect(watch.lines.some((l) => l.handler === 'echo' && l.messageId === dropId)).toBe(false);

    child.kill('SIGINT');
    expect(await exited, dev.stderr()).toBe(0);
  }, 120_000);

  it('stops with a problem per unresolvable variable, naming its key and the variable', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-dev-vars-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const dev = spawnDev(
      ['--config', path.join(FIXTURE, 'unresolvable.yml'), '--stage', 'it', '--state-dir', stateDir],
      { DEV_VARS_NAME_SERVER: testBroker().namesrvAddr },
    );
    cleanups.push(() => dev.kill());
    expect(await dev.exited, dev.stderr()).toBe(2);
    const stderr = dev.stderr();
    expect(stderr).toContain(
      `custom.rocketmq.nameServers: \${self:custom.nameServr}: Value not found at "self" source`,
    );
    expect(stderr).toContain(
      `functions.echo.events[0].rocketmq.consumerGroup: \${self:custom.group}: Value not found at "self" source`,
    );
    expect(stderr).not.toContain('is not host:port');
    expect(dev.watch.lines.some((l) => l.msg === 'dev started: watching handlers, Ctrl-C stops')).toBe(false);
  }, 60_000);
});
