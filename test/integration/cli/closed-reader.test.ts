/**
 * A command whose reader goes away (`rocketmq-lambda send --count 50 | head -1`) still does all it was
 * asked and ends with its own exit code, with no stack on stderr: the real process against the test
 * broker, its stdout a pipe whose read end is closed before anything is written.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient } from '../client/helpers.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const client = newClient();

afterAll(async () => {
  await client.close();
});

async function runWithClosedStdout(args: readonly string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, err };
}

describe('a closed reader of stdout', () => {
  it('is no crash: send --count still sends every message, exit 0, nothing on stderr', async () => {
    const topic = uniqueTopic('ClosedReader');
    await createTopic(client, topic, 1);
    const { code, err } = await runWithClosedStdout([
      'send',
      '--name-server',
      testBroker().namesrvAddr,
      '--topic',
      topic,
      '--body',
      'x',
      '--count',
      '30',
    ]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const queue = { topic, brokerName: testBroker().brokerName, queueId: 0 };
    expect(await client.broker.getMaxOffset(testBroker().brokerAddr, queue)).toBe(30);
  }, 60_000);
});
