/**
 * A tiny SQS endpoint (JSON 1.0 protocol, `SendMessage` only) that keeps the message bodies it receives:
 * the poller's `onFailure` destination sends its failure records here through the real @aws-sdk/client-sqs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** A received SendMessage. */
export interface SqsMessage {
  readonly queueUrl: string;
  readonly body: string;
}

/** A running fake SQS. */
export interface FakeSqs {
  readonly endpoint: string;
  readonly messages: SqsMessage[];
}

/**
 * Starts a fake SQS on a free loopback port, closed at the end of the test.
 *
 * @example
 * ```ts
 * const sqs = await startFakeSqs();
 * // destinations: { endpoint: sqs.endpoint }
 * expect(JSON.parse(sqs.messages[0].body).condition).toBe('PayloadSizeExceeded');
 * ```
 */
export async function startFakeSqs(): Promise<FakeSqs> {
  const messages: SqsMessage[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      if (target !== 'AmazonSQS.SendMessage') {
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidAction', message: String(target) }));
        return;
      }
      const { QueueUrl, MessageBody } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        QueueUrl: string;
        MessageBody: string;
      };
      messages.push({ queueUrl: QueueUrl, body: MessageBody });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(
        JSON.stringify({
          MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
          MessageId: randomUUID(),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, messages };
}
