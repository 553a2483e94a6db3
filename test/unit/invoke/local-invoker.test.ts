import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serializeEvent } from '../../../src/invoke/event-builder.js';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import type { InvokeOutcome } from '../../../src/invoke/invoker.js';
import { parseLocalFunctionRef } from '../../../src/invoke/local-function-ref.js';
import { LocalInvoker, lambdaErrorShape } from '../../../src/invoke/local-invoker.js';
import { batchOf, consumed } from './consumed-message.js';

const fixturesDir = fileURLToPath(new URL('../../fixtures/handlers/', import.meta.url));

function invoker(timeoutMs?: number): LocalInvoker {
  return new LocalInvoker({ baseDir: fixturesDir, timeoutMs, region: 'eu-west-1' });
}

const payload = serializeEvent('orders-consumer', batchOf(3));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'local-invoker-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function responseOf(outcome: InvokeOutcome): unknown {
  if (!outcome.ok) throw new Error(`expected a successful invoke, got ${outcome.kind}: ${outcome.message}`);
  return JSON.parse(outcome.payload.toString('utf8'));
}

async function rejection(promise: Promise<unknown>): Promise<InvokeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof InvokeError)) throw new Error(`expected an InvokeError, got ${String(error)}`);
  return error;
}

describe('parseLocalFunctionRef', () => {
  it('splits the module path and the export name, defaulting to handler', () => {
    expect(parseLocalFunctionRef('local:./a/b.js#onOrder')).toEqual({
      modulePath: './a/b.js',
      exportName: 'onOrder',
    });
    expect(parseLocalFunctionRef('local:./index.mjs')).toEqual({
      modulePath: './index.mjs',
      exportName: 'handler',
    });
    expect(parseLocalFunctionRef('local:/abs/dir#x/h.js#h')).toEqual({
      modulePath: '/abs/dir#x/h.js',
      exportName: 'h',
    });
  });

  it.each(['arn:aws:lambda:us-east-1:1:function:f', 'local:', 'local:#handler', 'local:./a.js#'])(
    'rejects %s with a fatal error',
    (ref) => {
      let caught: unknown;
      try {
        parseLocalFunctionRef(ref);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvokeError);
      expect(caught).toMatchObject({ fatal: true, functionRef: ref });
    },
  );
});

describe('LocalInvoker', () => {
  it('passes the event through a JSON round trip and gives a Lambda-like context', async () => {
    const local = invoker(60_000);
    const outcome = await local.invoke({ functionRef: 'local:./handlers.ts#echo', payload });
    const { event, context } = responseOf(outcome) as { event: unknown; context: Record<string, unknown> };
    expect(event).toEqual(JSON.parse(payload.toString('utf8')));
    expect(context).toMatchObject({
      eventIsPlainJson: true,
      callbackWaitsForEmptyEventLoop: true,
      functionName: 'handlers-echo',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:handlers-echo',
      memoryLimitInMB: '128',
      logGroupName: '/aws/lambda/handlers-echo',
    });
    expect(context.awsRequestId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(context.logStreamName).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
    expect(context.remainingTimeMs).toBeGreaterThan(59_000);
    expect(context.remainingTimeMs).toBeLessThanOrEqual(60_000);
    await local.close();
  });

  it("hands the handler the result of the request's event function, without reading the payload", async () => {
    const local = invoker();
    const event = { eventSource: 'rocketmq', consumerGroup: 'g', Records: [{ messageId: 'm' }] };
    const request = {
      functionRef: 'local:./handlers.ts#echo',
      get payload(): Buffer {
        throw new Error('the payload was read');
      },
      event: () => structuredClone(event),
    };
    const response = responseOf(await local.invoke(request)) as { event: unknown };
    expect(response.event).toStrictEqual(event);
    await local.close();
  });

  it('keeps one log stream per function across invokes, as a Lambda execution environment does', async () => {
    const local = invoker();
    const streams = new Set<unknown>();
    for (let i = 0; i < 2; i++) {
      const { context } = responseOf(
        await local.invoke({ functionRef: 'local:./handlers.ts#echo', payload }),
      ) as { context: { logStreamName: unknown } };
      streams.add(context.logStreamName);
    }
    expect(streams.size).toBe(1);
    await local.close();
  });

  it('gives a fresh request id per invoke', async () => {
    const local = invoker();
    const ids = new Set<unknown>();
    for (let i = 0; i < 3; i++) {
      const { context } = responseOf(
        await local.invoke({ functionRef: 'local:./handlers.ts#echo', payload }),
      ) as {
        context: { awsRequestId: unknown };
      };
      ids.add(context.awsRequestId);
    }
    expect(ids.size).toBe(3);
  });

  it('uses the export named handler by default, and returns null for undefined', async () => {
    const outcome = await invoker().invoke({ functionRef: 'local:./handlers.ts', payload });
    expect(outcome.ok && outcome.payload.toString()).toBe('null');
  });

  it('returns the handler response as JSON, Buffers and Dates in their JSON form', async () => {
    const outcome = await invoker().invoke({ functionRef: 'local:./handlers.ts#returnsBuffer', payload });
    expect(responseOf(outcome)).toEqual({
      data: { type: 'Buffer', data: [104, 105] },
      when: '1970-01-01T00:00:00.000Z',
    });
  });

  it('reports a rejected handler as a function error with Lambda error shape', async () => {
    const outcome = await invoker().invoke({ functionRef: 'local:./handlers.ts#throws', payload });
    expect(outcome).toEqual({
      ok: false,
      kind: 'function-error',
      message: '{"errorType":"TypeError","errorMessage":"boom"}',
    });
  });

  it('reports a synchronous throw and a rejected string the same way', async () => {
    const local = invoker();
    expect(await local.invoke({ functionRef: 'local:./handlers.ts#throwsSync', payload })).toEqual({
      ok: false,
      kind: 'function-error',
      message: '{"errorType":"RangeError","errorMessage":"sync boom"}',
    });
    expect(await local.invoke({ functionRef: 'local:./handlers.ts#rejectsString', payload })).toEqual({
      ok: false,
      kind: 'function-error',
      message: '{"errorType":"string","errorMessage":"plain string failure"}',
    });
  });

  it('reports a response JSON cannot represent as a function error', async () => {
    const outcome = await invoker().invoke({ functionRef: 'local:./handlers.ts#unserializable', payload });
    expect(outcome).toEqual({
      ok: false,
      kind: 'function-error',
      message: '{"errorType":"Error","errorMessage":"Unable to stringify response body"}',
    });
  });

  it('times out a handler that runs too long', async () => {
    const started = Date.now();
    const outcome = await invoker(100).invoke({
      functionRef: 'local:./handlers.ts#sleepsPastTimeout',
      payload,
    });
    expect(outcome).toEqual({ ok: false, kind: 'timeout', message: 'Task timed out after 0.10 seconds' });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('gives up when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = invoker(5_000).invoke({
      functionRef: 'local:./handlers.ts#sleepsPastTimeout',
      payload,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('shutting down')), 20);
    expect(await pending).toEqual({ ok: false, kind: 'aborted', message: 'invoke aborted: shutting down' });
    const already = await invoker().invoke({
      functionRef: 'local:./handlers.ts',
      payload,
      signal: controller.signal,
    });
    expect(already).toMatchObject({ ok: false, kind: 'aborted' });
  });

  it('supports callback-style handlers', async () => {
    const local = invoker();
    const ok = await local.invoke({ functionRef: 'local:./handlers.ts#callbackStyle', payload });
    expect(responseOf(ok)).toEqual({ batchItemFailures: [{ itemIdentifier: 'id-0' }] });
    expect(await local.invoke({ functionRef: 'local:./handlers.ts#callbackError', payload })).toEqual({
      ok: false,
      kind: 'function-error',
      message: '{"errorType":"RangeError","errorMessage":"callback boom"}',
    });
    const twice = await local.invoke({ functionRef: 'local:./handlers.ts#callbackTwice', payload });
    expect(responseOf(twice)).toEqual({ status: 'RECONSUME_LATER' });
  });

  it('completes a synchronous handler without a callback with its return value', async () => {
    const outcome = await invoker().invoke({ functionRef: 'local:./handlers.ts#syncReturn', payload });
    expect(responseOf(outcome)).toEqual({ status: 'RECONSUME_LATER' });
  });

  it('loads each module once', async () => {
    const local = invoker();
    const first = responseOf(await local.invoke({ functionRef: 'local:./counted.ts', payload }));
    const second = responseOf(await local.invoke({ functionRef: 'local:counted.ts#handler', payload }));
    expect(first).toEqual(second);
    expect(first).toEqual({ loads: 1 });
  });

  it('reaches the exports of a CommonJS module', async () => {
    const outcome = await invoker().invoke({ functionRef: 'local:./commonjs.cjs', payload });
    expect(responseOf(outcome)).toEqual({ cjs: true, records: 3 });
  });

  it('resolves an absolute module path regardless of the base dir', async () => {
    const local = new LocalInvoker({ baseDir: '/nonexistent' });
    const file = path.join(fixturesDir, 'handlers.ts');
    const outcome = await local.invoke({ functionRef: `local:${file}#success`, payload });
    expect(outcome.ok).toBe(true);
  });

  it('throws a fatal error naming the file when the module is missing', async () => {
    const error = await rejection(invoker().invoke({ functionRef: 'local:./missing.js#handler', payload }));
    expect(error.fatal).toBe(true);
    expect(error.functionRef).toBe('local:./missing.js#handler');
    expect(error.message).toContain(path.join(fixturesDir, 'missing.js'));
    expect(error.message).toContain('handler');
    expect(error.cause).toBeDefined();
  });

  it('throws a fatal error naming file and export when the export is missing or not a function, listing the exports', async () => {
    const local = invoker();
    const file = path.join(fixturesDir, 'handlers.ts');
    const missing = await rejection(local.invoke({ functionRef: 'local:./handlers.ts#nope', payload }));
    const notAFunction = await rejection(
      local.invoke({ functionRef: 'local:./handlers.ts#notAFunction', payload }),
    );

    expect(missing.fatal).toBe(true);
    expect(notAFunction.fatal).toBe(true);
    // The first 10 export names, then how many more: handlers.ts has 25.
    expect(missing.message).toMatch(
      new RegExp(
        `^handler module ${file} has no function export "nope" \\(its exports: (\\w+, ){9}\\w+ and 15 more\\)$`,
      ),
    );
    expect(notAFunction.message).toMatch(
      new RegExp(
        `^handler module ${file} has no function export "notAFunction" \\("notAFunction" is number; its exports: handler, `,
      ),
    );
    // No cause: the reloading invoker (src/dev/reloading-invoker.ts) reads that as a missing export.
    expect(missing.cause).toBeUndefined();
  });

  it('throws a fatal error when the module fails while loading', async () => {
    const error = await rejection(invoker().invoke({ functionRef: 'local:./broken.ts', payload }));
    expect(error.fatal).toBe(true);
    expect(error.message).toContain('broken.ts');
    expect(error.message).toContain('broken at load');
  });

  it('load() imports the module and checks its export before any invoke; the invokes use that import', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'counted.mjs');
    // A global counter per file: a second evaluation (another URL, another loader) would show as 2.
    await writeFile(
      file,
      `const key = ${JSON.stringify(file)};\n` +
        'globalThis.loads ??= {};\nglobalThis.loads[key] = (globalThis.loads[key] ?? 0) + 1;\n' +
        'export const handler = async () => ({ loads: globalThis.loads[key] });\n',
    );
    const local = new LocalInvoker({ baseDir: dir });

    await local.load('local:./counted.mjs');
    const outcome = await local.invoke({ functionRef: 'local:./counted.mjs#handler', payload });

    expect(responseOf(outcome)).toEqual({ loads: 1 });
    await expect(local.load('local:./counted.mjs#nope')).rejects.toMatchObject({
      fatal: true,
      message: expect.stringMatching(/has no function export "nope" \(its exports: handler\)$/),
    });
  });

  it('load() says why a module does not load in one bounded line: no stack, no source text', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/:/bin/sh\n');
    await writeFile(path.join(dir, 'syntax.mjs'), 'export const handler = (;\n');
    await writeFile(
      path.join(dir, 'throws.mjs'),
      `throw new Error('first line\\nsecond line ' + 'x'.repeat(5000));\n`,
    );
    const local = new LocalInvoker({ baseDir: dir });

    const messages: string[] = [];
    for (const ref of ['local:./passwd#x', 'local:./syntax.mjs', 'local:./throws.mjs']) {
      const error = await rejection(local.load(ref));
      expect(error.fatal).toBe(true);
      messages.push(error.message);
    }

    for (const message of messages) {
      expect(message).toMatch(/^cannot load handler module \/\S+ \(export \w+\): \S/);
      expect(message).not.toContain('\n');
      expect(message).not.toMatch(/\bat \S+ \(|node:internal/);
      expect(message.length).toBeLessThan(500);
    }
    expect(messages[0]).not.toContain('root:x');
    expect(messages[0]).not.toContain('/bin/sh');
    expect(messages[2]).toContain('Error: first line');
    expect(messages[2]).not.toContain('second line');
  });

  it('throws a fatal error for a reference that is not local', async () => {
    const error = await rejection(
      invoker().invoke({ functionRef: 'arn:aws:lambda:us-east-1:1:function:f', payload }),
    );
    expect(error.fatal).toBe(true);
  });

  it('rejects a payload that is not JSON without calling the handler', async () => {
    const error = await rejection(
      invoker().invoke({ functionRef: 'local:./handlers.ts#success', payload: Buffer.from('{oops') }),
    );
    expect(error.fatal).toBe(false);
  });

  it('refuses invokes after close', async () => {
    const local = invoker();
    await local.close();
    const error = await rejection(local.invoke({ functionRef: 'local:./handlers.ts', payload }));
    expect(error.fatal).toBe(true);
  });

  it('sees bytes-safe bodies exactly as serialized', async () => {
    const body = Buffer.from([0xff, 0x00, 0xfe]);
    const outcome = await invoker().invoke({
      functionRef: 'local:./handlers.ts#echo',
      payload: serializeEvent('g', [consumed({ body })]),
    });
    const { event } = responseOf(outcome) as { event: { Records: { body: string }[] } };
    expect(Buffer.from(event.Records[0]?.body ?? '', 'base64')).toEqual(body);
  });
});

describe('lambdaErrorShape', () => {
  it('describes errors, error-like objects and other values', () => {
    class OrderError extends Error {
      override name = 'OrderError';
    }
    expect(lambdaErrorShape(new OrderError('bad order'))).toEqual({
      errorType: 'OrderError',
      errorMessage: 'bad order',
    });
    expect(lambdaErrorShape({ errorType: 'Custom', errorMessage: 'x' })).toEqual({
      errorType: 'Custom',
      errorMessage: 'x',
    });
    expect(lambdaErrorShape({ code: 7 })).toEqual({ errorType: 'object', errorMessage: '{"code":7}' });
    expect(lambdaErrorShape(42)).toEqual({ errorType: 'number', errorMessage: '42' });
  });
});
