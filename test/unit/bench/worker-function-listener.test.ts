import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerFunctionListener } from '../../../bench/worker-function-listener.js';
import { isFatalListenerError } from '../../../src/consumer/consumer-errors.js';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A worker script (plain JavaScript) with `body` as its code. */
async function workerScript(body: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'worker-listener-'));
  dirs.push(dir);
  const file = join(dir, 'worker.mjs');
  await writeFile(file, body, 'utf8');
  return file;
}

function batch(): ConsumedMessage[] {
  const body = encodeStoredMessages([{ topic: 'Orders', body: Buffer.from('one') }]);
  return decodeMessages(body).messages.map((message) => ({
    message,
    topic: 'Orders',
    queue: { topic: 'Orders', brokerName: 'broker-a', queueId: 0 },
  }));
}

describe('WorkerFunctionListener', () => {
  it("answers with the worker's result for its batch", async () => {
    const script = await workerScript(`
      import { parentPort } from 'node:worker_threads';
      parentPort.on('message', (batch) =>
        parentPort.postMessage({ id: batch.id, result: { status: 'PARTIAL', failedIndexes: [0], reason: String(batch.queueIds.length) } }));
    `);
    const listener = new WorkerFunctionListener(script, 'group');
    try {
      await expect(listener.consume(batch())).resolves.toEqual({
        status: 'PARTIAL',
        failedIndexes: [0],
        reason: '1',
      });
    } finally {
      await listener.close();
    }
  });

  it('fails fatally, with the first cause, once its worker died', async () => {
    const script = await workerScript(`
      import { parentPort } from 'node:worker_threads';
      parentPort.on('message', () => { throw new Error('the handler module exploded'); });
    `);
    const listener = new WorkerFunctionListener(script, 'group');
    try {
      const first = await listener.consume(batch()).catch((error: unknown) => error);
      expect(isFatalListenerError(first), 'the runtime stops on it').toBe(true);
      expect(String(first)).toContain('the handler module exploded');
      const later = await listener.consume(batch()).catch((error: unknown) => error);
      expect(String(later), 'a later batch gets the first cause, not the exit').toContain(
        'the handler module exploded',
      );
    } finally {
      await listener.close();
    }
  });
});
