/**
 * What integration tests need to reach the shared test broker, and unique names so tests never
 * see each other's messages.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { BrokerVersionName } from '../../src/local-broker/broker-version.js';

/** Addresses of the broker started by test/setup/global-setup.ts. */
export interface TestBroker {
  /**
   * `127.0.0.1:<port>` of the name server clients use: the namesrv, or the proxy's remoting listener
   * when the run is against a `-proxy` version (it answers routes with itself as the broker).
   */
  namesrvAddr: string;
  /**
   * `127.0.0.1:<port>` of the broker master itself, also behind a proxy: admin requests (create topic,
   * subscription group) are served by the broker only.
   */
  brokerAddr: string;
  brokerName: string;
  /** The `ROCKETMQ_LAMBDA_BROKER_VERSION` of this run (5.3.3 when unset). */
  version: BrokerVersionName;
  /** The proxy's remoting address when the run is against a `-proxy` version. */
  proxyAddr?: string | undefined;
}

/**
 * The shared test broker. Throws when the global setup did not run (e.g. an integration test run
 * outside the 'integration' project): an integration test must fail loudly, never skip.
 *
 * @example
 * ```ts
 * const { namesrvAddr } = testBroker();
 * ```
 */
export function testBroker(): TestBroker {
  const namesrvAddr = inject('namesrvAddr');
  const brokerAddr = inject('brokerAddr');
  const brokerName = inject('brokerName');
  const version = inject('brokerVersion');
  const proxyAddr = inject('proxyAddr');
  if (!namesrvAddr || !brokerAddr || !brokerName || !version) {
    throw new Error(
      'no test broker: run integration tests through the vitest "integration" project ' +
        '(its globalSetup test/setup/global-setup.ts starts RocketMQ), e.g. `npx vitest run --project integration`',
    );
  }
  return {
    namesrvAddr,
    brokerAddr,
    brokerName,
    version,
    proxyAddr: proxyAddr === '' ? undefined : proxyAddr,
  };
}

let counter = 0;

/** Topic and group names allow [A-Za-z0-9_-%|]; ours use letters, digits and `_` only. */
function uniqueName(prefix: string): string {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(prefix)) {
    throw new Error(`name prefix ${JSON.stringify(prefix)} must be 1-40 of [A-Za-z0-9_-]`);
  }
  counter = (counter + 1) % 1_000_000;
  return `${prefix}_${Date.now().toString(36)}_${counter}_${randomBytes(3).toString('hex')}`;
}

/**
 * A topic name no other test (or earlier run) uses, e.g. `T_mf3k2a9z_1_a1b2c3`.
 *
 * @example
 * ```ts
 * const topic = uniqueTopic('Orders');
 * ```
 */
export function uniqueTopic(prefix = 'T'): string {
  return uniqueName(prefix);
}

/**
 * A consumer/producer group name no other test uses, e.g. `G_mf3k2a9z_2_d4e5f6`.
 *
 * @example
 * ```ts
 * const group = uniqueGroup();
 * ```
 */
export function uniqueGroup(prefix = 'G'): string {
  return uniqueName(prefix);
}
