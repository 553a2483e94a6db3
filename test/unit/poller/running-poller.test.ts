/**
 * The poller's start and stop sequences without a broker: a mapping starts (and keeps retrying) while
 * nobody listens at the name server address, and fails to start when the name server closes every
 * connection without a byte; what no retry heals (a TLS key that cannot be decrypted, a handler that
 * does not load) stops the start before any connection. (The running poller against a real broker: test/integration/metrics,
 * test/integration/invoke, test/integration/cli.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { RocketMQError } from '../../../src/errors.js';
import type { Invoker } from '../../../src/invoke/invoker.js';
import { startPoller } from '../../../src/poller/poller.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';

const HANDLERS = fileURLToPath(new URL('../../fixtures/handlers/', import.meta.url));

/** A name server that closes every connection without answering (what a TLS-only server does). */
async function silentNameServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A name server that counts the connections made to it (and answers none). */
async function countingNameServer(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'running-poller-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A loopback port that refuses connections (bound, then closed). */
async function refusingPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function config(nameServerPort: number): RunConfig {
  return parseConfig(
    {
      nameServer: `127.0.0.1:${nameServerPort}`,
      offsets: { store: 'memory' },
      mappings: [
        { name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./a.mjs' },
        { name: 'audit', topic: 'Audit', consumerGroup: 'audit-fn', function: 'local:./b.mjs' },
      ],
    },
    { env: {} },
  );
}

/** An injected invoker that is never called; records whether the poller closed it. */
function closableInvoker() {
  const state = { closed: 0 };
  const invoker: Invoker = {
    invoke: () => Promise.reject(new Error('not expected')),
    close: async () => {
      state.closed++;
    },
  };
  return { invoker, state };
}

describe('startPoller', () => {
  it('rejects naming the first mapping that could not start, after stopping and releasing everything', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const { invoker, state } = closableInvoker();
    const nameServer = await silentNameServer();
    onTestFinished(() => nameServer.close());
    const started = startPoller(config(nameServer.port), { logger, invoker });
    const error = await started.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RocketMQError);
    expect((error as RocketMQError).message).toMatch(/^mapping orders could not start: /);
    expect((error as RocketMQError).cause).toBeDefined();
    expect(state.closed).toBe(1);
    const messages = lines.filter((line) => line.component === 'poller').map((line) => line.msg);
    expect(messages.filter((m) => m === 'mapping configured')).toHaveLength(2);
    expect(messages.slice(-2)).toEqual(['stopping', 'stopped']);
    expect(messages).not.toContain('poller started');
    expect(lines.find((line) => line.msg === 'stopped')).toMatchObject({ failures: 0, deadLettered: 0 });
  }, 30_000);

  it('stops once however often asked (also unbound, or by its signal), then reports itself stopping', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const { invoker, state } = closableInvoker();
    const controller = new AbortController();
    const poller = await startPoller(config(await refusingPort()), {
      logger,
      invoker,
      signal: controller.signal,
    });
    expect([...poller.runtimes.keys()]).toEqual(['orders', 'audit']);
    expect(poller.runtimes.get('orders')?.state).toBe('running');
    expect(poller.invokeStats().mappings.get('audit')).toMatchObject({ invokes: 0 });
    expect(poller.health().problems).not.toContain('the poller is stopping');

    const { stop } = poller;
    const first = stop();
    controller.abort();
    const second = poller.stop();
    const exit = await first;
    expect(await second).toBe(exit);
    expect(await poller.stopped).toBe(exit);
    expect(exit).toEqual({ failures: [] });
    expect(state.closed).toBe(1);
    expect(poller.health()).toEqual({ healthy: false, problems: ['the poller is stopping'] });
    expect([...poller.runtimes.values()].map((runtime) => runtime.state)).toEqual(['stopped', 'stopped']);
    const messages = lines.filter((line) => line.component === 'poller').map((line) => line.msg);
    expect(messages.filter((m) => m === 'stopping' || m === 'stopped')).toEqual(['stopping', 'stopped']);
  }, 30_000);

  it('refuses a TLS key its passphrase does not decrypt before any connection, naming the settings only', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const passphrase = 'Not-The-Passphrase-51e0';
    const certs = await tlsTestCerts();
    const dir = await tempDir();
    await writeFile(path.join(dir, 'client.key'), encryptedKeyPem(certs.client, 'The-Passphrase-0c44'));
    const nameServer = await countingNameServer();
    onTestFinished(() => nameServer.close());
    const settings = parseConfig(
      {
        nameServer: `127.0.0.1:${nameServer.port}`,
        tls: {
          caFile: certs.ca.certPath,
          certFile: certs.client.certPath,
          keyFile: 'client.key',
          keyPassphrase: passphrase,
        },
        offsets: { store: 'memory' },
        mappings: [
          { name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./handlers.ts' },
        ],
      },
      { env: {}, baseDir: dir },
    );

    const error = await startPoller(settings, { logger }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(RocketMQError);
    expect((error as RocketMQError).message).toBe(
      'tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE): does not decrypt tls.keyFile (wrong passphrase)',
    );
    expect((error as RocketMQError).permanent).toBe(true);
    expect(nameServer.connections()).toBe(0);
    expect(lines.join('\n')).not.toContain(passphrase);
  }, 30_000);

  it('refuses a local: handler that does not load or lacks its export before any connection, naming each mapping', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const nameServer = await countingNameServer();
    onTestFinished(() => nameServer.close());
    const settings = parseConfig(
      {
        nameServer: `127.0.0.1:${nameServer.port}`,
        offsets: { store: 'memory' },
        mappings: [
          { name: 'fine', topic: 'A', consumerGroup: 'a', function: 'local:./handlers.ts#success' },
          { name: 'broken', topic: 'B', consumerGroup: 'b', function: 'local:./broken.ts' },
          { name: 'typo', topic: 'C', consumerGroup: 'c', function: 'local:./counted.ts#handlr' },
        ],
      },
      { env: {}, baseDir: HANDLERS },
    );

    const error = await startPoller(settings, { logger }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(RocketMQError);
    const message = (error as RocketMQError).message;
    expect(message.split('; ')).toEqual([
      `mapping broken could not start: cannot load handler module ${HANDLERS}broken.ts (export handler): Error: broken at load`,
      `mapping typo could not start: handler module ${HANDLERS}counted.ts has no function export "handlr" (its exports: handler)`,
    ]);
    expect((error as RocketMQError).cause).toBeUndefined();
    expect(nameServer.connections()).toBe(0);
    const logged = lines
      .filter((line) => line.msg === 'the handler cannot be loaded')
      .map((line) => line.mapping);
    expect(logged).toEqual(['broken', 'typo']);
    expect(lines.map((line) => line.msg)).not.toContain('poller started');
  }, 30_000);
});
