/**
 * End to end: `rocketmq-lambda dev` (child process, against the shared test broker) on a service in a temp
 * directory whose TypeScript handler imports a helper module. Editing the helper (not the handler) changes
 * what the next message sees; a syntax error in the helper fails the batch with an error naming the helper,
 * without stopping dev, and the next good edit handles the failed message on its redelivery.
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer } from '../consumer/helpers.js';
import { type Line, spawnDev } from './dev-process.js';
import { writeTempService } from './temp-service.js';

const HANDLER = `import { greeting } from './lib/greeting.js';

interface Event { Records: { messageId: string; body: string }[] }

export const handler = async (event: Event): Promise<void> => {
  for (const record of event.Records) {
    const body = Buffer.from(record.body, 'base64').toString('utf8');
    console.log(JSON.stringify({ handler: 'greeter', body, greeting: greeting() }));
  }
};
`;

const greetingModule = (text: string): string =>
  `export const greeting = (): string => ${JSON.stringify(text)};\n`;

describe('rocketmq-lambda dev reloads imported modules', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('runs the edited helper of a handler on the next message, and recovers from a broken edit', async () => {
    const { namesrvAddr } = testBroker();
    const topic = uniqueTopic('DevReload');
    const client = newClient();
    cleanups.push(() => client.close());
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);

    const service = await writeTempService(
      'reload',
      { 'src/greeter.ts': HANDLER, 'src/lib/greeting.ts': greetingModule('hello') },
      [
        'service: reload-test',
        'functions:',
        '  greeter:',
        '    handler: dist/greeter.handler',
        '    events:',
        '      - rocketmq:',
        `          topic: ${topic}`,
        `          consumerGroup: ${topic}_group`,
        '          batchSize: 1',
        '          startingPosition: TRIM_HORIZON',
      ],
    );
    cleanups.push(() => service.remove());
    const helper = service.file('src/lib/greeting.ts');

    // The state directory stays the default, inside the service: its shims must not trigger reloads.
    const dev = spawnDev(['--config', service.configFile, '--name-server', namesrvAddr]);
    cleanups.push(() => dev.kill());
    const { watch } = dev;
    await watch.waitFor('dev to start', (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops');
    await watch.waitFor(
      'greeter to hold its queue',
      (l) => l.msg === 'mapping status' && Number(l.queues) >= 1,
    );

    const handled = (body: string): Promise<Line> =>
      watch.waitFor(`the handler to see ${body}`, (l) => l.handler === 'greeter' && l.body === body);
    const reloaded = (generation: number): Promise<Line> =>
      watch.waitFor(
        `reload ${generation}`,
        (l) =>
          l.msg === 'source changed: reloading the handlers on their next batch' &&
          l.generation === generation,
      );

    await producer.send({ topic, body: 'first' });
    expect((await handled('first')).greeting).toBe('hello');

    await writeFile(helper, greetingModule('hi'));
    expect((await reloaded(1)).file).toBe(helper);
    await producer.send({ topic, body: 'second' });
    expect((await handled('second')).greeting).toBe('hi');

    await writeFile(helper, `${greetingModule('broken')} oops(`);
    await reloaded(2);
    await producer.send({ topic, body: 'third' });
    const failed = await watch.waitFor(
      'the load failure',
      (l) => l.msg === 'handler failed to load: its batches fail until a change reloads it',
    );
    expect(failed.changed).toEqual([helper]);
    expect(String(failed.reason)).toContain(helper);
    await watch.waitFor('the failed batch', (l) => l.msg === 'batch failed');

    await writeFile(helper, greetingModule('hey'));
    await reloaded(3);
    // The failed message comes back (retry topic) and meets the fixed helper.
    expect((await handled('third')).greeting).toBe('hey');
    expect(
      watch.lines.filter((l) => l.msg === 'source changed: reloading the handlers on their next batch'),
    ).toHaveLength(3);
    expect(watch.lines.some((l) => l.msg === 'mapping failed fatally: stopping the poller')).toBe(false);
  }, 180_000);
});
