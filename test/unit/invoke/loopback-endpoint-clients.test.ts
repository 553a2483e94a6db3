/**
 * The invoke layer's AWS clients follow src/util/local-endpoint-credentials.ts: a Lambda invoker and an
 * SQS/SNS failure destination pointed at a loopback endpoint work with no AWS credentials anywhere
 * (they sign with the placeholders), and one pointed at another host does not invent any.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { createFailureDestination } from '../../../src/invoke/failure-destination.js';
import type { FailureRecord } from '../../../src/invoke/failure-record.js';
import { LambdaInvoker } from '../../../src/invoke/lambda-invoker.js';
import { PLACEHOLDER_CREDENTIALS } from '../../../src/util/local-endpoint-credentials.js';
import { credentialFreeEnv } from '../../support/credential-free-cli.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';

let savedEnv: NodeJS.ProcessEnv;

beforeEach(() => {
  savedEnv = { ...process.env };
  const clean = credentialFreeEnv(process.env);
  for (const name of Object.keys(process.env)) if (!(name in clean)) delete process.env[name];
  Object.assign(process.env, clean);
});
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

/** An HTTP server on loopback that records each request's headers and answers 400. */
async function recordingServer(): Promise<{ endpoint: string; requests: IncomingHttpHeaders[] }> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    requests.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'InvalidParameterValue', message: 'recorded' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const RECORD = { version: '1.0' } as unknown as FailureRecord;

describe('AWS clients of the invoke layer without credentials', () => {
  it('a Lambda invoker of a loopback Invoke API invokes, with no region either', async () => {
    const server = await LambdaApiServer.start();
    onTestFinished(() => server.close());
    server.register('orders', () => ({ batchItemFailures: [] }));
    const invoker = new LambdaInvoker({ endpoint: server.endpoint });
    onTestFinished(() => invoker.close());
    const outcome = await invoker.invoke({ functionRef: 'orders', payload: Buffer.from('{}') });
    expect(outcome.ok).toBe(true);
    expect(server.calls('orders')).toHaveLength(1);
  });

  it.each(['sqs', 'sns'] as const)(
    'a %s failure destination on loopback signs with the placeholders',
    async (service) => {
      const { endpoint, requests } = await recordingServer();
      const arn = `arn:aws:${service}:eu-west-1:123456789012:dead-letters`;
      const destination = createFailureDestination(arn, { endpoint, maxAttempts: 1 });
      onTestFinished(() => destination.close());
      // The recording server refuses the record; what matters is that it was sent, signed.
      await expect(destination.send(RECORD, [])).rejects.toThrow(/cannot deliver a failure record/);
      expect(requests).toHaveLength(1);
      expect(requests[0]?.authorization).toContain(`Credential=${PLACEHOLDER_CREDENTIALS.accessKeyId}/`);
    },
  );

  it('a failure destination of another host gets no credentials: nothing is sent', async () => {
    // TEST-NET-1: unroutable; the request is refused before any connection, for want of credentials.
    const destination = createFailureDestination('arn:aws:sqs:eu-west-1:123456789012:dlq', {
      endpoint: 'http://192.0.2.10:9324',
      maxAttempts: 1,
    });
    onTestFinished(() => destination.close());
    await expect(destination.send(RECORD, [])).rejects.toThrow(/Could not load credentials/);
  });
});
