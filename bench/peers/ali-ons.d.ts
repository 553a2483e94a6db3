/**
 * Minimal types for `ali-ons` 3.12 (plain CommonJS, ships no types): only the push consumer surface
 * the bench's ali-ons peer drives (bench/peers/ali-ons-child.ts).
 */
declare module 'ali-ons' {
  import type { EventEmitter } from 'node:events';

  /** The part of a consumed message the peer reads. */
  interface Message {
    readonly msgId: string;
    readonly topic: string;
    readonly body: Buffer;
  }

  /** Where a new group starts; the option's values are these names. */
  type ConsumeFromWhere =
    | 'CONSUME_FROM_LAST_OFFSET'
    | 'CONSUME_FROM_FIRST_OFFSET'
    | 'CONSUME_FROM_TIMESTAMP'
    | 'CONSUME_FROM_MIN_OFFSET'
    | 'CONSUME_FROM_MAX_OFFSET';

  interface ConsumerOptions {
    consumerGroup: string;
    /** Name server `host:port` (or a list); without it the client asks `onsAddr` over HTTP. */
    nameSrv?: string | string[];
    /** Checked for presence even with `nameSrv`, used only for the `onsAddr` lookup. */
    httpclient: { request(url: string, options: { timeout: number }): Promise<unknown> };
    consumeFromWhere?: ConsumeFromWhere;
    isBroadcast?: boolean;
    /** @default 32 */
    pullBatchSize?: number;
    /** Messages of one queue consumed at once. @default 1 */
    parallelConsumeLimit?: number;
    /** @default 500 */
    pullThresholdForQueue?: number;
    logger?: {
      info(...args: unknown[]): void;
      warn(...args: unknown[]): void;
      error(...args: unknown[]): void;
      debug(...args: unknown[]): void;
    };
  }

  /** MQPushConsumer: starts itself on construction; `ready()` resolves (or rejects) once started. */
  class Consumer extends EventEmitter {
    constructor(options: ConsumerOptions);
    ready(): Promise<void>;
    /** `handler` must be an `async` function (checked by its constructor's name). */
    subscribe(topic: string, subExpression: string, handler: (message: Message) => Promise<unknown>): void;
    close(): Promise<void>;
  }
}
