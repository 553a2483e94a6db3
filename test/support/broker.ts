/**
 * What integration tests need to reach the shared test broker, and unique names so tests never
 * see each other's messages.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/** Addresses of the broker started by test/setup/global-setup.ts. */
export interface TestBroker {
  /** `127.0.0.1:<port>` of the name server. */
  namesrvAddr: string;
  /** `127.0.0.1:<port>` of the broker master. */
  brokerAddr: string;
  brokerName: string;
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
  if (!namesrvAddr || !brokerAddr || !brokerName) {
    throw new Error(
      'no test broker: run integration tests through the vitest "integration" project ' +
        '(its globalSetup test/setup/global-setup.ts starts RocketMQ), e.g. `npx vitest run --project integration`',
    );
  }
  return { namesrvAddr, brokerAddr, brokerName };
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
