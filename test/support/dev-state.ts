/**
 * A dev session's state file (dev.json) for tests: a live session (this process's pid) of /app with one
 * mapping `orders`.
 */
import type { DevState } from '../../src/serverless-service/dev-state-file.js';

/**
 * A valid {@link DevState}, with `overrides` applied.
 *
 * @example
 * ```ts
 * await writeDevState(path.join(dir, '.rocketmq-lambda'), devStateFixture({ nameServer: '127.0.0.1:9876' }));
 * ```
 */
export function devStateFixture(overrides: Partial<DevState> = {}): DevState {
  return {
    version: 1,
    pid: process.pid,
    startedAt: '2025-01-02T03:04:05.678Z',
    serviceDir: '/app',
    configFile: '/app/serverless.yml',
    nameServer: '127.0.0.1:34567',
    dynamoDbEndpoint: 'http://127.0.0.1:41234',
    region: 'us-east-1',
    topics: ['Orders'],
    mappings: [
      {
        name: 'orders',
        functionName: 'orders',
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
        offsetsTable: 'rocketmq-lambda-dev-offsets',
      },
    ],
    ...overrides,
  };
}
