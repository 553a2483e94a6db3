import {
  InvokeCommand,
  LambdaClient,
  ResourceNotFoundException,
  TooManyRequestsException,
} from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LAMBDA_MAX_REQUEST_BYTES, LambdaApiServer } from '../../support/lambda-api-server.js';
import { expectQuietFor } from '../../support/quiet-window.js';
import { waitFor } from '../../support/wait-for.js';

let server: LambdaApiServer;
let client: LambdaClient;

beforeEach(async () => {
  server = await LambdaApiServer.start();
  client = new LambdaClient({ ...server.clientOptions(), maxAttempts: 1 });
});

afterEach(async () => {
  client.destroy();
  await server.close();
});

function invoke(functionName: string, payload: unknown, qualifier?: string) {
  return client.send(
    new InvokeCommand({
      FunctionName: functionName,
      Qualifier: qualifier,
      InvocationType: 'RequestResponse',
      Payload: Buffer.from(JSON.stringify(payload)),
    }),
  );
}

function text(bytes: Uint8Array | undefined): string {
  return Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
}

describe('LambdaApiServer with @aws-sdk/client-lambda', () => {
  it('runs the registered handler with the event and returns its JSON', async () => {
    server.register('echo', (event, context) => ({
      event,
      name: context.functionName,
      q: context.qualifier,
    }));
    const output = await invoke('echo', { hello: 'world' }, 'live');
    expect(output.StatusCode).toBe(200);
    expect(output.FunctionError).toBeUndefined();
    expect(JSON.parse(text(output.Payload))).toEqual({ event: { hello: 'world' }, name: 'echo', q: 'live' });
    expect(server.calls('echo')).toEqual([
      expect.objectContaining({
        functionName: 'echo',
        qualifier: 'live',
        invocationType: 'RequestResponse',
        payloadBytes: 17,
        event: { hello: 'world' },
        status: 200,
      }),
    ]);
  });

  it('resolves full and partial ARNs with a qualifier to the function name', async () => {
    server.register('orders', () => 'ok');
    await invoke('arn:aws:lambda:us-east-1:123456789012:function:orders:v2', {});
    await invoke('123456789012:function:orders', {});
    expect(server.calls('orders').map((c) => c.qualifier)).toEqual(['v2', undefined]);
  });

  it('answers a thrown error as an Unhandled FunctionError with HTTP 200', async () => {
    server.register('fails', () => {
      throw new TypeError('x is undefined');
    });
    const output = await invoke('fails', {});
    expect(output.StatusCode).toBe(200);
    expect(output.FunctionError).toBe('Unhandled');
    expect(JSON.parse(text(output.Payload))).toEqual({
      errorType: 'TypeError',
      errorMessage: 'x is undefined',
      trace: [],
    });
  });

  it('answers injected function errors, Handled or Unhandled, then runs normally', async () => {
    server.register('fn', () => 'fine');
    server.injectFaults(
      'fn',
      { kind: 'function-error', handled: true, errorType: 'Oops', errorMessage: 'handled' },
      { kind: 'function-error' },
    );
    expect((await invoke('fn', {})).FunctionError).toBe('Handled');
    expect((await invoke('fn', {})).FunctionError).toBe('Unhandled');
    const third = await invoke('fn', {});
    expect(third.FunctionError).toBeUndefined();
    expect(text(third.Payload)).toBe('"fine"');
  });

  it('answers an unknown function with a ResourceNotFoundException the SDK parses', async () => {
    const error = await invoke('missing', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error).toMatchObject({
      name: 'ResourceNotFoundException',
      Type: 'User',
      message: 'Function not found: arn:aws:lambda:us-east-1:123456789012:function:missing',
      $metadata: { httpStatusCode: 404 },
    });
  });

  it('answers a throttle with a TooManyRequestsException and its Reason', async () => {
    server.register('fn', () => null);
    server.injectFaults('fn', { kind: 'throttle', retryAfterSeconds: 2 });
    const error = await invoke('fn', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyRequestsException);
    expect(error).toMatchObject({
      Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
      retryAfterSeconds: '2',
      $metadata: { httpStatusCode: 429 },
    });
  });

  it('answers 5xx, access denied and oversize requests as Lambda does', async () => {
    server.register('fn', () => null);
    server.injectFaults('fn', { kind: 'server-error', status: 503 }, { kind: 'access-denied' });
    await expect(invoke('fn', {})).rejects.toMatchObject({
      name: 'ServiceException',
      $metadata: { httpStatusCode: 503 },
    });
    await expect(invoke('fn', {})).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
    });
    const big = 'x'.repeat(LAMBDA_MAX_REQUEST_BYTES);
    await expect(invoke('fn', big)).rejects.toMatchObject({
      name: 'RequestEntityTooLargeException',
      message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
      $metadata: { httpStatusCode: 413 },
    });
    expect(server.calls('fn').map((c) => [c.fault, c.status, c.payloadBytes])).toEqual([
      ['server-error', 503, 2],
      ['access-denied', 403, 2],
      ['too-large', 413, LAMBDA_MAX_REQUEST_BYTES + 2],
    ]);
  });

  it('returns a malformed body as the payload, delays slow calls, and holds hung calls', async () => {
    server.register('fn', () => ({ ok: true }));
    server.injectFaults(
      'fn',
      { kind: 'malformed-response' },
      { kind: 'slow', delayMs: 150 },
      { kind: 'hang' },
    );
    expect(text((await invoke('fn', {})).Payload)).toBe('{"batchItemFailures": [');
    const started = Date.now();
    expect(text((await invoke('fn', {})).Payload)).toBe('{"ok":true}');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const hung = invoke('fn', {});
    let outcome = 'still waiting';
    hung.then(
      () => {
        outcome = 'answered';
      },
      () => {
        outcome = 'failed';
      },
    );
    // Once the server holds the call, an answer could only come from a bug: nothing signals that none
    // comes, so watch the call for a while.
    await waitFor('the server to hold the hung call', 5_000, () =>
      server.calls('fn')[2]?.fault === 'hang' ? true : undefined,
    );
    await expectQuietFor('the hung call', 200, () => outcome);
    expect(outcome).toBe('still waiting');
    await server.close();
    await expect(hung).rejects.toBeInstanceOf(Error);
    server = await LambdaApiServer.start();
  });
});
