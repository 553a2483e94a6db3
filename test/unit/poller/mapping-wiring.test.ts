import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import { PopConsumer } from '../../../src/consumer/pop/pop-consumer.js';
import { FunctionMessageListener } from '../../../src/invoke/function-listener.js';
import { DEFAULT_TIMEOUT_MARGIN_MS } from '../../../src/invoke/lambda-timeouts.js';
import { FunctionTargets } from '../../../src/poller/function-targets.js';
import { POP_INVISIBLE_MARGIN_MS } from '../../../src/poller/mapping-consumer-options.js';
import { type SharedParts, wireMapping } from '../../../src/poller/mapping-wiring.js';
import { OffsetStores } from '../../../src/poller/offset-stores.js';
import { PollerTelemetry } from '../../../src/poller/poller-telemetry.js';

function config(): RunConfig {
  return parseConfig(
    {
      nameServer: '127.0.0.1:9876',
      shutdownTimeoutMs: 12_000,
      offsets: { store: 'memory' },
      mappings: [
        {
          name: 'orders',
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          function: 'local:./h.mjs',
          batchSize: 7,
        },
      ],
    },
    { env: {} },
  );
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The parts a poller shares, built for `run`, logging into `lines`. */
function sharedParts(run: RunConfig, lines: Record<string, unknown>[]): SharedParts {
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const client = new RocketMQClient({ nameServerAddresses: run.nameServerAddresses });
  const stores = new OffsetStores(run.offsets, client.clientId);
  const targets = new FunctionTargets({
    baseDir: run.baseDir,
    lambda: run.lambda,
    destinations: run.destinations,
  });
  const telemetry = new PollerTelemetry({
    config: run.metrics,
    running: () => true,
    health: () => ({ healthy: true, problems: [] }),
    log,
  });
  closers.push(
    () => telemetry.close(),
    () => targets.close(),
    () => stores.close(),
    () => client.close(),
  );
  return {
    config: run,
    client,
    stores,
    targets,
    telemetry,
    consumerOverrides: { localRetryDelayMs: 7 },
    retryProducer: new Producer({ client }),
    log,
  };
}

describe('wireMapping', () => {
  it("builds the mapping's listener and runtime, the overrides over the config's options", () => {
    const run = config();
    const mapping = run.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const lines: Record<string, unknown>[] = [];
    const { listener, runtime } = wireMapping(mapping, sharedParts(run, lines));
    expect(listener).toBeInstanceOf(FunctionMessageListener);
    if (!(runtime instanceof ConsumerRuntime)) throw new Error('a ConsumerRuntime expected');
    expect(runtime.options).toMatchObject({
      name: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-fn',
      batchSize: 7,
      shutdownTimeoutMs: 12_000,
      localRetryDelayMs: 7,
    });
    expect(runtime.state).toBe('created');
  });

  it('logs how the mapping is configured, under its name', () => {
    const run = config();
    const mapping = run.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const lines: Record<string, unknown>[] = [];
    wireMapping(mapping, sharedParts(run, lines));
    expect(lines.filter((line) => line.msg === 'mapping configured')).toEqual([
      expect.objectContaining({
        mapping: 'orders',
        topic: 'Orders',
        consumerGroup: 'orders-fn',
        function: 'local:./h.mjs',
        invoker: 'local',
        messageModel: 'CLUSTERING',
        orderly: false,
        offsetStore: 'memory',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('lambdaRegion');
  });

  it('consumeMode POP builds a PopConsumer whose invisible time covers the batching window and one invoke', () => {
    const run = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        shutdownTimeoutMs: 12_000,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'pop',
            topic: 'Orders',
            consumerGroup: 'orders-pop',
            function: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
            functionTimeoutMs: 60_000,
            maximumBatchingWindowMs: 2000,
            consumeMode: 'POP',
            startingPosition: 'TRIM_HORIZON',
            batchSize: 7,
          },
        ],
      },
      { env: {} },
    );
    const mapping = run.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const lines: Record<string, unknown>[] = [];
    const { runtime } = wireMapping(mapping, sharedParts(run, lines));
    if (!(runtime instanceof PopConsumer)) throw new Error('a PopConsumer expected');
    expect(runtime.options).toMatchObject({
      name: 'pop',
      consumerGroup: 'orders-pop',
      startingPosition: 'TRIM_HORIZON',
      batchSize: 7,
      shutdownTimeoutMs: 12_000,
      // window 2 s + function 60 s + invoker margin 10 s + ack margin 30 s
      invisibleTimeMs: 2000 + 60_000 + DEFAULT_TIMEOUT_MARGIN_MS + POP_INVISIBLE_MARGIN_MS,
    });
    expect(lines.filter((line) => line.msg === 'mapping configured')).toEqual([
      expect.objectContaining({ consumeMode: 'POP', invisibleTimeMs: runtime.options.invisibleTimeMs }),
    ]);
    expect(lines[0]).not.toHaveProperty('offsetStore');
  });
});
