/**
 * The Invoke API's answer is input from outside, bounded (issue 29): an answer over the limit is refused
 * by its Content-Length before its body is read, or cut off as soon as a body without one passes the
 * limit, and the invoke fails as a `malformed-response` (never a throttle, never fatal, whatever the
 * status says); texts an answer supplies (a function's errorType and errorMessage, an error answer's
 * message, a throttle reason) are cut to their bounds in outcomes, errors and log lines. The answers come
 * from our Invoke API server over HTTP, called by the real `@aws-sdk/client-lambda`.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import { MAX_ERROR_NAME_CHARS, MAX_ERROR_TEXT_CHARS } from '../../../src/invoke/lambda-error-text.js';
import {
  MAX_LAMBDA_ERROR_ANSWER_BYTES,
  MAX_LAMBDA_RESPONSE_BYTES,
} from '../../../src/invoke/lambda-response-cap.js';
import {
  ENDLESS_ANSWER_SAFETY_BYTES,
  largeResponse,
  type StreamedAnswer,
} from '../../support/lambda-api-server.js';
import { lambdaInvokerPerTest } from './lambda-invoker-per-test.js';

const MB = 1_000_000;
const LIMIT = MAX_LAMBDA_RESPONSE_BYTES;
const ERROR_LIMIT = MAX_LAMBDA_ERROR_ANSWER_BYTES;
/**
 * What the server may hand to the socket after the client stopped reading: the kernel's send and receive
 * buffers on loopback (about 4 MB here), far below the 50 MB the answers below would be.
 */
const MAX_WRITTEN_AFTER_STOP = 20 * MB;
/** A text in an error answer, long but within the limit on an error answer (64 KiB). */
const LONG_ERROR_TEXT = 60_000;
/** A log line or a serialized error that quotes a long text whole is over this. */
const MAX_LINE_CHARS = 10_000;

const lambda = lambdaInvokerPerTest(() => null);

const payload = Buffer.from('{"n":1}');

/** How the server's answer to the only call of `functionName` went out, once it stopped writing. */
async function streamedAnswer(functionName: string): Promise<StreamedAnswer> {
  const [call] = lambda.server.calls(functionName);
  const streamed = call?.streamed;
  if (streamed === undefined) throw new Error(`${functionName} streamed no answer`);
  await streamed.done;
  return streamed;
}

/** How much of a message a summary keeps: more than any bounded one, little enough for a failure's diff. */
const SUMMARY_CHARS = 2_000;

/** An invoke's outcome, or what it threw, small enough for a failure's diff (a payload can be 50 MB). */
type Summary =
  | { ok: true; payloadBytes: number }
  | { ok: false; kind: string; message: string }
  | { thrown: string };

async function invokeSummary(functionRef: string, signal?: AbortSignal): Promise<Summary> {
  try {
    const outcome = await lambda.invoker.invoke({ functionRef, payload, signal });
    return outcome.ok
      ? { ok: true, payloadBytes: outcome.payload.length }
      : { ok: false, kind: outcome.kind, message: outcome.message.slice(0, SUMMARY_CHARS) };
  } catch (error) {
    return { thrown: String(error).slice(0, SUMMARY_CHARS) };
  }
}

/** A logger that keeps its lines. */
function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }), lines };
}

describe('LambdaInvoker, the size of an answer', () => {
  it('refuses a 50 MB answer by its Content-Length, unread: the server never got it out', async () => {
    lambda.server.register('big', () => largeResponse(50 * MB));
    expect(await invokeSummary('big')).toEqual({
      ok: false,
      kind: 'malformed-response',
      message:
        `the Invoke API's answer (HTTP 200) is 50000000 bytes by its Content-Length, over the limit of ` +
        `${LIMIT} bytes on an answer (Lambda answers at most 6 MB): refused unread`,
    });
    const streamed = await streamedAnswer('big');
    expect(streamed.finished).toBe(false);
    expect(streamed.bytesWritten).toBeLessThan(MAX_WRITTEN_AFTER_STOP);
  });

  it('cuts off a chunked answer that never ends once it passes the limit, closing the connection', async () => {
    lambda.server.register('endless', () => largeResponse(Number.POSITIVE_INFINITY, { chunked: true }));
    const outcome = await invokeSummary('endless');
    expect(outcome).toMatchObject({ ok: false, kind: 'malformed-response' });
    const message = 'message' in outcome ? outcome.message : '';
    const match =
      /^the Invoke API's answer \(HTTP 200\) passed the limit of (\d+) bytes on an answer \(Lambda answers at most 6 MB\): cut off after (\d+) bytes, its connection closed$/.exec(
        message,
      );
    expect(match, message).not.toBeNull();
    expect(Number(match?.[1])).toBe(LIMIT);
    // Cut at the first read past the limit: one network read more at most.
    expect(Number(match?.[2])).toBeGreaterThan(LIMIT);
    expect(Number(match?.[2])).toBeLessThanOrEqual(LIMIT + 1024 * 1024);
    const streamed = await streamedAnswer('endless');
    expect(streamed.finished).toBe(false);
    expect(streamed.bytesWritten).toBeLessThan(LIMIT + MAX_WRITTEN_AFTER_STOP);
    expect(streamed.bytesWritten).toBeLessThan(ENDLESS_ANSWER_SAFETY_BYTES);
  });

  it.each([false, true])(
    'accepts an answer of exactly the limit and refuses one byte more (chunked: %s)',
    async (chunked) => {
      lambda.server.register('at-limit', () => largeResponse(LIMIT, { chunked }));
      lambda.server.register('over-limit', () => largeResponse(LIMIT + 1, { chunked }));
      expect(await invokeSummary('at-limit')).toEqual({ ok: true, payloadBytes: LIMIT });
      expect(await invokeSummary('over-limit')).toMatchObject({
        ok: false,
        kind: 'malformed-response',
        message: expect.stringContaining(
          chunked ? `passed the limit of ${LIMIT} bytes` : `is ${LIMIT + 1} bytes by its Content-Length`,
        ),
      });
    },
  );

  it.each([403, 429, 500])(
    'an error answer (HTTP %s) of 100 KB fails the invoke, unread: neither fatal nor a throttle',
    async (status) => {
      lambda.server.register('big', () => largeResponse(100_000, { status }));
      // Without a limit, a 429 would be waited out for ever: the test fails instead of hanging.
      expect(await invokeSummary('big', AbortSignal.timeout(5_000))).toEqual({
        ok: false,
        kind: 'malformed-response',
        message:
          `the Invoke API's error answer (HTTP ${status}) is 100000 bytes by its Content-Length, over the ` +
          `limit of ${ERROR_LIMIT} bytes on an error answer (Lambda's are a small JSON object): refused unread`,
      });
      expect(lambda.invoker.stats()).toEqual({ requests: 1, throttles: 0 });
    },
  );

  it.each([false, true])(
    'reads an error answer of exactly its limit and cuts off one byte more (chunked: %s)',
    async (chunked) => {
      lambda.server.register('at-limit', () => largeResponse(ERROR_LIMIT, { chunked, status: 500 }));
      lambda.server.register('over-limit', () => largeResponse(ERROR_LIMIT + 1, { chunked, status: 500 }));
      expect(await invokeSummary('at-limit')).toMatchObject({ ok: false, kind: 'server-error' });
      expect(await invokeSummary('over-limit')).toMatchObject({
        ok: false,
        kind: 'malformed-response',
        message: expect.stringContaining(
          chunked
            ? `error answer (HTTP 500) passed the limit of ${ERROR_LIMIT} bytes`
            : `error answer (HTTP 500) is ${ERROR_LIMIT + 1} bytes by its Content-Length`,
        ),
      });
    },
  );

  it('takes the limit from maxResponseBytes', async () => {
    lambda.start({ maxResponseBytes: 1_000 });
    lambda.server.register('small', () => largeResponse(1_001, { chunked: true }));
    expect(await invokeSummary('small')).toMatchObject({
      ok: false,
      kind: 'malformed-response',
      message: expect.stringContaining('passed the limit of 1000 bytes'),
    });
    expect(() => lambda.start({ maxResponseBytes: 0 })).toThrow(
      'maxResponseBytes must be a positive integer, got 0',
    );
  });
});

describe('LambdaInvoker, texts an answer supplies', () => {
  it("cuts a FunctionError's 1 MB errorMessage and 10,000-character errorType to their bounds", async () => {
    lambda.server.injectFaults('orders', {
      kind: 'function-error',
      errorType: 'T'.repeat(10_000),
      errorMessage: 'm'.repeat(MB),
    });
    const outcome = await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(outcome.ok ? 'ok' : outcome.kind).toBe('function-error');
    const message = outcome.ok ? '' : outcome.message;
    expect(message.length).toBeLessThan(MAX_ERROR_NAME_CHARS + MAX_ERROR_TEXT_CHARS + 100);
    expect(JSON.parse(message)).toEqual({
      errorType: `${'T'.repeat(MAX_ERROR_NAME_CHARS)}… (10000 characters)`,
      errorMessage: `${'m'.repeat(MAX_ERROR_TEXT_CHARS)}… (1000000 characters)`,
    });
  });

  it('cuts the 60,000-character message of an error answer (HTTP 500) to its bound', async () => {
    lambda.server.injectFaults('orders', { kind: 'server-error', message: 'e'.repeat(LONG_ERROR_TEXT) });
    const outcome = await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(outcome.ok ? 'ok' : outcome.kind).toBe('server-error');
    const message = outcome.ok ? '' : outcome.message;
    expect(message.length).toBeLessThan(MAX_ERROR_TEXT_CHARS + 200);
    expect(message).toContain(`${'e'.repeat(MAX_ERROR_TEXT_CHARS)}… (60000 characters)`);
  });

  it('logs a throttle with a 60,000-character reason in a line of bounded length', async () => {
    const { logger, lines } = capturingLogger();
    lambda.start({ logger });
    lambda.server.injectFaults('orders', { kind: 'throttle', reason: 'r'.repeat(LONG_ERROR_TEXT) });
    expect((await lambda.invoker.invoke({ functionRef: 'orders', payload })).ok).toBe(true);
    const warnings = lines.filter((line) => line.includes('invoke throttled by Lambda'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.length).toBeLessThan(MAX_LINE_CHARS);
    expect(warnings[0]).toContain('(60000 characters)');
  });

  it('throws a fatal InvokeError for a 60,000-character access-denied message, bounded with its cause and log line', async () => {
    const { logger, lines } = capturingLogger();
    lambda.start({ logger });
    lambda.server.injectFaults('orders', { kind: 'access-denied', message: 'd'.repeat(LONG_ERROR_TEXT) });
    const error = await lambda.invoker.invoke({ functionRef: 'orders', payload }).catch((e: unknown) => e);
    expect(error instanceof InvokeError && error.fatal).toBe(true);
    expect((error as Error).message.length).toBeLessThan(MAX_ERROR_TEXT_CHARS + 500);
    expect((error as Error).message).toContain('(60000 characters)');
    // As the poller logs it: message and stack with their causes, and every field.
    expect(JSON.stringify(pino.stdSerializers.err(error as Error)).length).toBeLessThan(MAX_LINE_CHARS);
    const logged = lines.filter((line) => line.includes('function cannot be invoked'));
    expect(logged).toHaveLength(1);
    expect(logged[0]?.length).toBeLessThan(MAX_LINE_CHARS);
  });
});
