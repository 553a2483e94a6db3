import { describe, expect, it } from 'vitest';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';
import { waitFor } from '../../support/wait-for.js';
import { lambdaInvokerPerTest } from './lambda-invoker-per-test.js';

const lambda = lambdaInvokerPerTest((event) => ({ received: (event as { n: number }).n }));

const payload = Buffer.from('{"n":1}');

describe('LambdaInvoker', () => {
  it('returns the response payload of a successful invoke', async () => {
    const outcome = await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(outcome).toEqual({ ok: true, payload: Buffer.from('{"received":1}') });
    expect(lambda.invoker.stats()).toEqual({ requests: 1, throttles: 0 });
  });

  it.each([
    ['orders:live', 'live'],
    ['123456789012:function:orders', undefined],
    ['arn:aws:lambda:us-east-1:123456789012:function:orders:7', '7'],
  ])('invokes %s with the right qualifier', async (functionRef, qualifier) => {
    expect((await lambda.invoker.invoke({ functionRef, payload })).ok).toBe(true);
    expect(lambda.server.calls('orders')).toEqual([
      expect.objectContaining({ qualifier, invocationType: 'RequestResponse' }),
    ]);
  });

  it.each([true, false])(
    'reports a FunctionError (handled: %s) with errorType and errorMessage',
    async (handled) => {
      lambda.server.injectFaults('orders', {
        kind: 'function-error',
        handled,
        errorType: 'TypeError',
        errorMessage: 'boom',
      });
      expect(await lambda.invoker.invoke({ functionRef: 'orders', payload })).toEqual({
        ok: false,
        kind: 'function-error',
        message: '{"errorType":"TypeError","errorMessage":"boom"}',
      });
    },
  );

  it('reports a hung function as a timeout after the function timeout plus the margin', async () => {
    lambda.start({ functionTimeoutMs: 200, timeoutMarginMs: 100 });
    lambda.server.injectFaults('orders', { kind: 'hang' });
    const started = Date.now();
    const outcome = await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(outcome).toMatchObject({ ok: false, kind: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('waits for a slow function that answers within its timeout', async () => {
    lambda.start({ functionTimeoutMs: 500, timeoutMarginMs: 100 });
    lambda.server.injectFaults('orders', { kind: 'slow', delayMs: 200 });
    expect((await lambda.invoker.invoke({ functionRef: 'orders', payload })).ok).toBe(true);
  });

  it.each([500, 502, 503])('reports HTTP %s as a server error', async (status) => {
    lambda.server.injectFaults('orders', { kind: 'server-error', status });
    expect(await lambda.invoker.invoke({ functionRef: 'orders', payload })).toMatchObject({
      ok: false,
      kind: 'server-error',
      message: expect.stringContaining(`[HTTP ${status}]`),
    });
  });

  it('reports a response that is not JSON as malformed', async () => {
    lambda.server.injectFaults('orders', { kind: 'malformed-response' });
    expect(await lambda.invoker.invoke({ functionRef: 'orders', payload })).toMatchObject({
      ok: false,
      kind: 'malformed-response',
      message: expect.stringContaining('{"batchItemFailures": ['),
    });
  });

  it('reports a refused connection as a network failure', async () => {
    const endpoint = lambda.server.endpoint;
    await lambda.server.close();
    lambda.start({ endpoint });
    expect(await lambda.invoker.invoke({ functionRef: 'orders', payload })).toMatchObject({
      ok: false,
      kind: 'network',
    });
    lambda.server = await LambdaApiServer.start();
  });

  it('reports an oversize request as payload-too-large', async () => {
    await lambda.server.close();
    lambda.server = await LambdaApiServer.start({ maxRequestBytes: 5 });
    lambda.server.register('orders', () => null);
    lambda.start();
    expect(await lambda.invoker.invoke({ functionRef: 'orders', payload })).toMatchObject({
      ok: false,
      kind: 'payload-too-large',
      message: expect.stringContaining('RequestEntityTooLargeException'),
    });
  });

  it('waits out three throttles, counts them, and succeeds', async () => {
    lambda.server.injectFaults('orders', { kind: 'throttle' }, { kind: 'throttle' }, { kind: 'throttle' });
    const outcome = await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(outcome.ok).toBe(true);
    expect(lambda.invoker.throttles).toBe(3);
    expect(lambda.invoker.stats()).toEqual({ requests: 4, throttles: 3 });
    expect(lambda.server.calls('orders').map((c) => c.status)).toEqual([429, 429, 429, 200]);
  });

  it('keeps waiting out throttles until the request is aborted', async () => {
    lambda.start({ throttleInitialDelayMs: 20, throttleMaxDelayMs: 20, random: () => 1 });
    lambda.server.injectFaults(
      'orders',
      ...Array.from({ length: 1_000 }, () => ({ kind: 'throttle' as const })),
    );
    const controller = new AbortController();
    const watcher = setInterval(() => {
      if (lambda.invoker.throttles >= 3) controller.abort(new Error('shutting down'));
    }, 5);
    const outcome = await lambda.invoker.invoke({
      functionRef: 'orders',
      payload,
      signal: controller.signal,
    });
    clearInterval(watcher);
    expect(outcome).toEqual({ ok: false, kind: 'aborted', message: 'invoke aborted: shutting down' });
    expect(lambda.invoker.throttles).toBeGreaterThanOrEqual(3);
  });

  it('reports an abort during the invoke as aborted, not as a timeout', async () => {
    lambda.server.injectFaults('orders', { kind: 'hang' });
    const controller = new AbortController();
    // Aborted once the server holds the call: during the invoke, not before the request went out.
    const held = waitFor('the server to hold the call', 5_000, () =>
      lambda.server.calls('orders').some((call) => call.fault === 'hang') ? true : undefined,
    ).then(() => controller.abort(new Error('stop')));
    const outcome = await lambda.invoker.invoke({
      functionRef: 'orders',
      payload,
      signal: controller.signal,
    });
    await held;
    expect(outcome).toEqual({
      ok: false,
      kind: 'aborted',
      message: 'invoke aborted: stop',
    });
  });

  it.each([
    ['a missing function', 'missing', undefined, /ResourceNotFoundException: Function not found/],
    [
      'denied access',
      'orders',
      'access-denied' as const,
      /AccessDeniedException: User: .* is not authorized/,
    ],
  ])('throws a fatal InvokeError for %s', async (_, functionRef, fault, message) => {
    if (fault !== undefined) lambda.server.injectFaults('orders', { kind: fault });
    const error = await lambda.invoker.invoke({ functionRef, payload }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvokeError);
    expect(error).toMatchObject({ fatal: true, functionRef });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('The mapping stops');
  });

  it('invokes each of many references with its own name and qualifier (parsed references are cached, the cache bounded)', async () => {
    const refs = Array.from({ length: 300 }, (_, i) => `orders:v${i}`);
    for (const functionRef of [...refs, ...refs.slice(0, 3)]) {
      expect((await lambda.invoker.invoke({ functionRef, payload })).ok).toBe(true);
    }
    expect(lambda.server.calls('orders').map((call) => call.qualifier)).toEqual([
      ...refs.map((_, i) => `v${i}`),
      'v0',
      'v1',
      'v2',
    ]);
  });

  it('throws a fatal InvokeError for a reference that is no Lambda function', async () => {
    await expect(lambda.invoker.invoke({ functionRef: 'not a function!', payload })).rejects.toMatchObject({
      fatal: true,
    });
    await lambda.invoker.close();
    await expect(lambda.invoker.invoke({ functionRef: 'orders', payload })).rejects.toMatchObject({
      fatal: true,
    });
  });
});
