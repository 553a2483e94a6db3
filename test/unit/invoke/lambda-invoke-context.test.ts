/**
 * The per-invoke parts (abort signal, trace headers) of a LambdaClient whose middleware is resolved once
 * (src/invoke/lambda-invoke-context.ts), against our Invoke API server.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeInvokeContexts, withInvokeContext } from '../../../src/invoke/lambda-invoke-context.js';
import { setTraceHeaders } from '../../../src/invoke/lambda-trace-headers.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('takeInvokeContexts', () => {
  let server: LambdaApiServer;
  let client: LambdaClient;
  beforeEach(async () => {
    server = await LambdaApiServer.start();
    server.register('orders', () => ({ ok: true }));
    client = new LambdaClient({ ...server.clientOptions(), maxAttempts: 1, cacheMiddleware: true });
    takeInvokeContexts(client);
  });
  afterEach(async () => {
    client.destroy();
    await server.close();
  });

  const input = () => ({ FunctionName: 'orders', Payload: Buffer.from('{}') });

  it('refuses a client that resolves its middleware per send', () => {
    const perSend = new LambdaClient({ ...server.clientOptions() });
    expect(() => takeInvokeContexts(perSend)).toThrow(/cacheMiddleware: true/);
    perSend.destroy();
  });

  it('sends each input’s own trace headers, and none for an input without them', async () => {
    const signal = new AbortController().signal;
    const traceHeaders = {
      traceparent: TRACEPARENT,
      'X-Amzn-Trace-Id': 'Root=1-0af76519-16cd43dd8448eb211c80319c',
    };
    await client.send(new InvokeCommand(withInvokeContext(input(), { abortSignal: signal, traceHeaders })));
    await client.send(
      new InvokeCommand(withInvokeContext(input(), { abortSignal: signal, traceHeaders: undefined })),
    );
    await client.send(new InvokeCommand(input()));
    expect(server.calls('orders').map((call) => [call.traceparent, call.traceHeader])).toEqual([
      [TRACEPARENT, 'Root=1-0af76519-16cd43dd8448eb211c80319c'],
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('aborts the HTTP request of the input whose signal fires, and only that one', async () => {
    server.injectFaults('orders', { kind: 'hang' });
    const hung = new AbortController();
    const sent = client.send(
      new InvokeCommand(withInvokeContext(input(), { abortSignal: hung.signal, traceHeaders: undefined })),
    );
    // The second request goes out while the first hangs, with a signal that never fires.
    const other = new AbortController();
    const answered = await client.send(
      new InvokeCommand(withInvokeContext(input(), { abortSignal: other.signal, traceHeaders: undefined })),
    );
    expect(Buffer.from(answered.Payload ?? []).toString()).toBe('{"ok":true}');
    hung.abort(new Error('stop'));
    await expect(sent).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('setTraceHeaders', () => {
  it('replaces a header of the same name in any letter case', () => {
    const request = { headers: { 'x-amzn-trace-id': 'old', TraceParent: 'old', other: 'kept' } };
    setTraceHeaders(request, { 'X-Amzn-Trace-Id': 'new', traceparent: 'new' });
    expect(request.headers).toEqual({ other: 'kept', 'X-Amzn-Trace-Id': 'new', traceparent: 'new' });
  });

  it('leaves anything without a headers object alone', () => {
    const request = { headers: null };
    setTraceHeaders(request, { traceparent: 'new' });
    expect(request).toEqual({ headers: null });
    expect(() => setTraceHeaders(undefined, { traceparent: 'new' })).not.toThrow();
  });
});
