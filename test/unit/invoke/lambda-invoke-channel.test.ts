/**
 * The Invoke request LambdaInvokeChannel (src/invoke/lambda-invoke-channel.ts) writes without the SDK's
 * middleware stack, against what `client.send(new InvokeCommand(...))` of the same client writes and
 * makes of the same answers: one recording HTTP server answers both.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { Sha256 } from '@smithy/core/checksum';
import { HttpResponse } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaInvokeChannel } from '../../../src/invoke/lambda-invoke-channel.js';
import { LambdaResponseTooLargeError } from '../../../src/invoke/lambda-response-cap.js';

/** What the server received. */
interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** How the server answers the next request. */
interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Never answer (the client must abort). */
  readonly hang?: boolean;
}

const CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret-test-key' };
const REGION = 'eu-west-1';

let received: Received[] = [];
let answer: Answer = { status: 200, body: '{}' };
let endpoint = '';
let close: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      if (answer.hang === true) return;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});
afterAll(() => close());

function clientOf(path = '', options: Partial<ConstructorParameters<typeof LambdaClient>[0]> = {}) {
  return new LambdaClient({
    region: REGION,
    endpoint: `${endpoint}${path}`,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    ...options,
  });
}

/** Both ways of sending one invoke, on one client. */
async function bothWays(
  client: LambdaClient,
  call: { functionName: string; qualifier?: string | undefined; payload: Uint8Array },
) {
  received = [];
  const channel = new LambdaInvokeChannel(client);
  const ours = await channel.invoke(call).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const sdk = await client
    .send(
      new InvokeCommand({
        FunctionName: call.functionName,
        Qualifier: call.qualifier,
        InvocationType: 'RequestResponse',
        Payload: call.payload,
      }),
    )
    .then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  const [oursRequest, sdkRequest] = received;
  if (oursRequest === undefined || sdkRequest === undefined) throw new Error('a request did not arrive');
  return { ours, sdk, oursRequest, sdkRequest };
}

/** The headers that say what is invoked (the SDK's telemetry headers and the signature's date aside). */
function invokeHeaders(headers: IncomingHttpHeaders) {
  const {
    host,
    'content-type': type,
    'content-length': length,
    'x-amz-invocation-type': invocationType,
  } = headers;
  return { host, type, length, invocationType, sha: headers['x-amz-content-sha256'] };
}

/** Signs the request as received again, at its own date: the signature it carries must be this one. */
async function expectValidSignature(request: Received): Promise<void> {
  const url = new URL(request.url, endpoint);
  const authorization = String(request.headers.authorization);
  const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  expect(signedNames).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-content-sha256']));
  const headers = Object.fromEntries(signedNames.map((name) => [name, String(request.headers[name])]));
  const query = Object.fromEntries(url.searchParams);
  const date = String(request.headers['x-amz-date']);
  const signingDate = new Date(
    `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
  );
  const signer = new SignatureV4({
    credentials: CREDENTIALS,
    region: REGION,
    service: 'lambda',
    sha256: Sha256,
  });
  const again = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers,
      body: request.body,
    },
    { signingDate },
  );
  expect(again.headers.authorization).toBe(authorization);
}

const functionNames = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
  fc
    .tuple(fc.stringMatching(/^[0-9]{12}$/), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/))
    .map(([account, name]) => `arn:aws:lambda:${REGION}:${account}:function:${name}`),
);
const qualifiers = fc.option(fc.oneof(fc.constant('$LATEST'), fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/)), {
  nil: undefined,
});

describe('LambdaInvokeChannel', () => {
  it('writes the request the SDK writes, validly signed (property)', async () => {
    answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    await fc.assert(
      fc.asyncProperty(
        functionNames,
        qualifiers,
        fc.uint8Array({ maxLength: 2048 }),
        fc.constantFrom('', '/prefix', '/a/b/'),
        async (functionName, qualifier, payload, path) => {
          const client = clientOf(path);
          try {
            const { oursRequest, sdkRequest } = await bothWays(client, { functionName, qualifier, payload });
            expect(oursRequest.method).toBe(sdkRequest.method);
            expect(oursRequest.url).toBe(sdkRequest.url);
            expect(oursRequest.body.equals(sdkRequest.body)).toBe(true);
            expect(invokeHeaders(oursRequest.headers)).toEqual(invokeHeaders(sdkRequest.headers));
            await expectValidSignature(oursRequest);
          } finally {
            client.destroy();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it.each([
    { what: 'the regional endpoint', region: 'eu-west-1', options: {} },
    { what: 'a FIPS endpoint', region: 'us-east-1', options: { useFipsEndpoint: true } },
    { what: 'a dual-stack endpoint', region: 'ap-southeast-2', options: { useDualstackEndpoint: true } },
    { what: 'the China partition', region: 'cn-north-1', options: {} },
  ])('addresses $what of AWS as the SDK does (https, default port)', async ({ region, options }) => {
    const sent: { protocol: string; hostname: string; port?: number; path: string; host?: string }[] = [];
    const client = new LambdaClient({
      region,
      credentials: CREDENTIALS,
      maxAttempts: 1,
      ...options,
      // Captures each request instead of sending it, and answers 200 with an empty body.
      requestHandler: {
        handle: async (request: {
          protocol: string;
          hostname: string;
          port?: number;
          path: string;
          headers: Record<string, string>;
        }) => {
          sent.push({
            protocol: request.protocol,
            hostname: request.hostname,
            ...(request.port === undefined ? {} : { port: request.port }),
            path: request.path,
            host: request.headers.host,
          });
          return { response: new HttpResponse({ statusCode: 200, headers: {}, body: Readable.from([]) }) };
        },
      },
    });
    try {
      await new LambdaInvokeChannel(client).invoke({ functionName: 'orders', payload: Buffer.from('{}') });
      await client.send(new InvokeCommand({ FunctionName: 'orders', Payload: Buffer.from('{}') }));
      const [ours, sdk] = sent;
      expect(ours?.protocol).toBe('https:');
      expect(ours?.port).toBeUndefined();
      expect(ours).toEqual({ ...sdk, host: sdk?.host ?? sdk?.hostname });
    } finally {
      client.destroy();
    }
  });

  it('reads a 2xx answer as the SDK does (property)', async () => {
    const client = clientOf();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(200, 202, 204),
          fc.option(fc.constantFrom('Handled', 'Unhandled'), { nil: undefined }),
          fc.option(fc.constantFrom('$LATEST', '7'), { nil: undefined }),
          fc.string({ maxLength: 300 }),
          async (status, functionError, executedVersion, body) => {
            const headers: Record<string, string> = {};
            if (functionError !== undefined) headers['X-Amz-Function-Error'] = functionError;
            if (executedVersion !== undefined) headers['X-Amz-Executed-Version'] = executedVersion;
            answer = { status, headers, body: status === 204 ? '' : body };
            const { ours, sdk } = await bothWays(client, {
              functionName: 'orders',
              payload: Buffer.from('{}'),
            });
            if (!('value' in ours) || !('value' in sdk)) throw new Error('an answer was not read');
            expect(ours.value).toEqual({
              statusCode: sdk.value.StatusCode,
              functionError: sdk.value.FunctionError,
              executedVersion: sdk.value.ExecutedVersion,
              payload: Buffer.from(sdk.value.Payload ?? new Uint8Array()),
            });
          },
        ),
        { numRuns: 30 },
      );
    } finally {
      client.destroy();
    }
  });

  it.each<Answer & { what: string }>([
    {
      what: 'a missing function (typed by header)',
      status: 404,
      headers: { 'x-amzn-errortype': 'ResourceNotFoundException:http://internal.amazon.com/' },
      body: '{"Type":"User","message":"Function not found: arn:aws:lambda:eu-west-1:1:function:orders"}',
    },
    {
      what: 'a throttle (typed by body)',
      status: 429,
      headers: { 'content-type': 'application/json' },
      body: '{"__type":"TooManyRequestsException","Reason":"ReservedFunctionConcurrentInvocationLimitExceeded","message":"Rate exceeded"}',
    },
    {
      what: 'a payload too large',
      status: 413,
      headers: { 'x-amzn-errortype': 'RequestTooLargeException' },
      body: '{"message":"Request must be smaller than 6291456 bytes for the InvokeFunction operation"}',
    },
    {
      what: 'a server error',
      status: 500,
      headers: { 'x-amzn-errortype': 'ServiceException' },
      body: '{"message":"internal"}',
    },
    { what: 'an untyped error that is not JSON', status: 502, headers: {}, body: '<html>bad gateway</html>' },
    { what: 'an access denied', status: 403, headers: {}, body: '{"message":"User is not authorized"}' },
  ])('throws the SDK’s own error for $what', async ({ status, headers, body }) => {
    answer = { status, headers, body };
    const client = clientOf();
    try {
      const { ours, sdk } = await bothWays(client, { functionName: 'orders', payload: Buffer.from('{}') });
      if (!('error' in ours) || !('error' in sdk)) throw new Error('an error answer did not throw');
      const shape = (error: unknown) => {
        const e = error as Error & { $metadata?: { httpStatusCode?: number }; $fault?: string };
        return {
          constructor: e.constructor,
          name: e.name,
          message: e.message,
          status: e.$metadata?.httpStatusCode,
          fault: e.$fault,
        };
      };
      expect(shape(ours.error)).toEqual(shape(sdk.error));
      expect(shape(ours.error).status).toBe(status);
    } finally {
      client.destroy();
    }
  });

  it('signs at the Invoke API’s clock, sampled from Date headers without Age', async () => {
    const client = clientOf();
    const channel = new LambdaInvokeChannel(client);
    const ahead = new Date(Date.now() + 10 * 60_000);
    try {
      answer = { status: 200, headers: { Date: ahead.toUTCString() }, body: '{}' };
      received = [];
      await channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') });
      expect(channel.clockOffsetMs).toBeGreaterThan(9 * 60_000);
      answer = { status: 200, headers: { Date: new Date().toUTCString(), Age: '30' }, body: '{}' };
      await channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') });
      expect(channel.clockOffsetMs).toBeGreaterThan(9 * 60_000);
      const signedAt = String(received[1]?.headers['x-amz-date']);
      const expected = new Date(Date.now() + channel.clockOffsetMs).toISOString().replace(/[-:]/g, '');
      // Same minute as the corrected clock (a request takes far less than one).
      expect(signedAt.slice(0, 13)).toBe(expected.slice(0, 13));
    } finally {
      client.destroy();
    }
  });

  it('signs with what the credential provider gives, asked again when they expire', async () => {
    let asked = 0;
    const client = clientOf('', {
      credentials: async () => {
        asked++;
        return { accessKeyId: `AKID${asked}`, secretAccessKey: 'k', expiration: new Date(Date.now() - 1000) };
      },
    });
    const channel = new LambdaInvokeChannel(client);
    try {
      answer = { status: 200, body: '{}' };
      received = [];
      await channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') });
      await channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') });
      const keys = received.map(
        (request) => /Credential=([^/]+)/.exec(String(request.headers.authorization))?.[1],
      );
      expect(keys).toHaveLength(2);
      expect(keys[0]).not.toBe(keys[1]);
      expect(asked).toBeGreaterThanOrEqual(2);
    } finally {
      client.destroy();
    }
  });

  it('aborts the request whose signal fires, and only that one', async () => {
    const client = clientOf();
    const channel = new LambdaInvokeChannel(client);
    try {
      answer = { status: 200, hang: true };
      received = [];
      const hung = new AbortController();
      const sent = channel.invoke({
        functionName: 'orders',
        payload: Buffer.from('{}'),
        abortSignal: hung.signal,
      });
      await expect.poll(() => received.length).toBeGreaterThan(0);
      answer = { status: 200, body: '{"ok":true}' };
      const other = await channel.invoke({
        functionName: 'orders',
        payload: Buffer.from('{}'),
        abortSignal: new AbortController().signal,
      });
      expect(other.payload.toString()).toBe('{"ok":true}');
      hung.abort(new Error('stop'));
      await expect(sent).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      client.destroy();
    }
  });

  it('tries its preparation again on the next invoke after one failed', async () => {
    let region: string | undefined;
    const client = clientOf('', {
      region: async () => {
        if (region === undefined) throw new Error('no region configured');
        return region;
      },
    });
    const channel = new LambdaInvokeChannel(client);
    try {
      answer = { status: 200, body: '{}' };
      await expect(channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') })).rejects.toThrow(
        'no region configured',
      );
      region = REGION;
      const answered = await channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') });
      expect(answered.statusCode).toBe(200);
    } finally {
      client.destroy();
    }
  });

  it('refuses an answer declared over its limit before reading it', async () => {
    const client = clientOf();
    const channel = new LambdaInvokeChannel(client, 1024);
    try {
      answer = { status: 200, body: 'x'.repeat(2048) };
      await expect(
        channel.invoke({ functionName: 'orders', payload: Buffer.from('{}') }),
      ).rejects.toBeInstanceOf(LambdaResponseTooLargeError);
      expect(() => new LambdaInvokeChannel(client, 0)).toThrow(
        /maxResponseBytes must be a positive integer, got 0/,
      );
    } finally {
      client.destroy();
    }
  });
});
