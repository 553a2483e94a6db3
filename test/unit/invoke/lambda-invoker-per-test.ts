/**
 * A LambdaInvoker against our Invoke API server, both new for each test of the file that sets them up,
 * with throttle backoffs of a few milliseconds so that waiting out a throttle costs the tests nothing.
 */
import { afterEach, beforeEach } from 'vitest';
import { LambdaInvoker, type LambdaInvokerOptions } from '../../../src/invoke/lambda-invoker.js';
import { type LambdaApiHandler, LambdaApiServer } from '../../support/lambda-api-server.js';

/** The current test's server and invoker. */
export interface LambdaInvokerPerTest {
  /** A test may replace it (closing the one it replaces); the one in place is closed after the test. */
  server: LambdaApiServer;
  /** The last one {@link LambdaInvokerPerTest.start} made, closed after the test. */
  invoker: LambdaInvoker;
  /** Makes `invoker` anew on `server` with `options` over the short throttle backoffs. */
  start(options?: LambdaInvokerOptions): LambdaInvoker;
}

/**
 * Before each test of the calling file, a server on which the function `orders` answers with `orders`,
 * and an invoker on it; both closed after the test.
 */
export function lambdaInvokerPerTest(orders: LambdaApiHandler): LambdaInvokerPerTest {
  const current = {
    start(options: LambdaInvokerOptions = {}): LambdaInvoker {
      current.invoker = new LambdaInvoker({
        ...current.server.clientOptions(),
        throttleInitialDelayMs: 1,
        throttleMaxDelayMs: 5,
        ...options,
      });
      return current.invoker;
    },
  } as LambdaInvokerPerTest;
  beforeEach(async () => {
    current.server = await LambdaApiServer.start();
    current.server.register('orders', orders);
    current.start();
  });
  afterEach(async () => {
    await current.invoker.close();
    await current.server.close();
  });
  return current;
}
