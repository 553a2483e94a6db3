/**
 * The floor of an HTTP invoke, for the http-invoke scenario and bench/invoke-overhead.ts: an
 * {@link Invoker} that sends each payload as one SigV4-signed Invoke API request over a node:http
 * keep-alive agent and nothing else (no credential chain, no retries, no error mapping, no response
 * checks beyond the status). Signed with `@smithy/signature-v4` (the signer the AWS SDK itself uses) and
 * node:crypto's SHA-256. Never used outside bench/: it is the peer our LambdaInvoker is measured against.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../src/invoke/invoker.js';

function bytesOf(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** SHA-256 (keyed: HMAC) in the shape `@smithy/signature-v4` asks for. */
class NodeSha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.#hash.digest();
  }
  reset(): void {
    throw new Error('not used');
  }
}

/** What {@link FloorInvoker} needs. */
export interface FloorInvokerOptions {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** @default 256 */
  readonly maxSockets?: number;
}

/**
 * One signed POST /2015-03-31/functions/<name>/invocations per invoke.
 *
 * @example
 * ```ts
 * const floor = new FloorInvoker({ endpoint, region: 'us-east-1', credentials });
 * await floor.invoke({ functionRef: 'bench-noop', payload });
 * ```
 */
export class FloorInvoker implements Invoker {
  readonly #url: URL;
  readonly #agent: Agent;
  readonly #signer: SignatureV4;

  constructor(options: FloorInvokerOptions) {
    this.#url = new URL(options.endpoint);
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 });
    this.#signer = new SignatureV4({
      service: 'lambda',
      region: options.region,
      credentials: options.credentials,
      sha256: NodeSha256,
    });
  }

  async invoke(invokeRequest: InvokeRequest): Promise<InvokeOutcome> {
    const path = `/2015-03-31/functions/${encodeURIComponent(invokeRequest.functionRef)}/invocations`;
    const signed = await this.#signer.sign({
      method: 'POST',
      protocol: this.#url.protocol,
      hostname: this.#url.hostname,
      port: Number(this.#url.port),
      path,
      query: {},
      headers: {
        host: this.#url.host,
        'content-type': 'application/json',
        'content-length': String(invokeRequest.payload.length),
      },
      body: invokeRequest.payload,
    });
    return new Promise<InvokeOutcome>((resolve, reject) => {
      const req = request(
        {
          agent: this.#agent,
          method: 'POST',
          hostname: this.#url.hostname,
          port: this.#url.port,
          path,
          headers: signed.headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            resolve(
              status >= 200 && status < 300
                ? { ok: true, payload: Buffer.concat(chunks) }
                : { ok: false, kind: 'server-error', message: `status ${status}` },
            );
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(invokeRequest.payload);
    });
  }

  async close(): Promise<void> {
    this.#agent.destroy();
  }
}
