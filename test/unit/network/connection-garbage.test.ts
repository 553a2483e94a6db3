import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import { Connection } from '../../../src/network/connection.js';
import { NetworkError } from '../../../src/network/errors.js';
import {
  encodeFrame,
  FLAG_RESPONSE,
  type RemotingCommand,
  SerializeType,
} from '../../../src/protocol/remoting-command.js';
import { FakeServer } from './fake-server.js';

const commandArbitrary: fc.Arbitrary<RemotingCommand> = fc.record({
  code: fc.integer({ min: -5, max: 400 }),
  language: fc.constant('JAVA'),
  version: fc.integer({ min: 0, max: 500 }),
  opaque: fc.integer({ min: -3, max: 3 }),
  flag: fc.integer({ min: 0, max: 3 }),
  remark: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  extFields: fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.string({ minLength: 1, maxLength: 8 }),
    {
      maxKeys: 3,
    },
  ),
  body: fc.option(
    fc.uint8Array({ maxLength: 32 }).map((bytes) => Buffer.from(bytes)),
    { nil: undefined },
  ),
  serializeType: fc.constantFrom(SerializeType.JSON, SerializeType.ROCKETMQ),
});

/** Valid frames, random bytes and plausible length prefixes, concatenated and cut at random points. */
const streamArbitrary: fc.Arbitrary<Buffer[]> = fc
  .tuple(
    fc.array(
      fc.oneof(
        commandArbitrary.map((command) => encodeFrame(command)),
        fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
        fc.integer({ min: 4, max: 64 }).map((length) => {
          const prefix = Buffer.alloc(4);
          prefix.writeInt32BE(length, 0);
          return prefix;
        }),
      ),
      { minLength: 1, maxLength: 8 },
    ),
    fc.array(fc.nat(), { maxLength: 6 }),
  )
  .map(([parts, cuts]) => {
    const stream = Buffer.concat(parts);
    const points = [...new Set(cuts.map((cut) => cut % stream.length))].sort((a, b) => a - b);
    const chunks: Buffer[] = [];
    let from = 0;
    for (const point of points) {
      if (point > from) chunks.push(stream.subarray(from, point));
      from = Math.max(from, point);
    }
    chunks.push(stream.subarray(from));
    return chunks;
  });

/** Errors that escaped to the process while the property ran. */
const escaped: unknown[] = [];
const onEscape = (error: unknown): void => {
  escaped.push(error);
};

describe('Connection fed random garbage', () => {
  let server: FakeServer;
  let chunks: Buffer[] = [];
  let endAfterGarbage = true;

  beforeAll(async () => {
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
    server = await FakeServer.start({
      onCommand: (command, peer) => {
        if (command.flag !== 0) return;
        for (const chunk of chunks) peer.sendRaw(chunk);
        if (endAfterGarbage) peer.socket.end();
      },
    });
  });

  afterAll(async () => {
    await server.close();
    process.off('uncaughtException', onEscape);
    process.off('unhandledRejection', onEscape);
  });

  it('never throws uncaught and rejects pending requests with typed errors only', async () => {
    await fc.assert(
      fc.asyncProperty(streamArbitrary, fc.boolean(), async (stream, end) => {
        chunks = stream;
        endAfterGarbage = end;
        const connection = new Connection({ address: server.address, connectTimeoutMs: 1000 });
        try {
          const outcomes = await Promise.allSettled([
            connection.request({ code: 10 }, 100),
            connection.request({ code: 11 }, 100),
          ]);
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected') {
              expect(outcome.reason).toBeInstanceOf(NetworkError);
              expect(outcome.reason).toBeInstanceOf(RocketMQError);
            } else {
              expect(outcome.value.flag & FLAG_RESPONSE).toBe(FLAG_RESPONSE);
            }
          }
          expect(connection.inFlight).toBe(0);
        } finally {
          await connection.close();
        }
      }),
      { numRuns: 80 },
    );
    expect(escaped).toEqual([]);
  }, 60_000);

  it('the garbage property also holds for frames that look valid but carry junk headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 48 }),
        fc.integer({ min: 0, max: 3 }),
        async (junk, type) => {
          const frame = Buffer.alloc(8 + junk.length);
          frame.writeInt32BE(4 + junk.length, 0);
          frame.writeUInt32BE(((type << 24) | junk.length) >>> 0, 4);
          Buffer.from(junk).copy(frame, 8);
          chunks = [frame];
          endAfterGarbage = false;
          const connection = new Connection({ address: server.address });
          try {
            const outcome = await Promise.allSettled([connection.request({ code: 10 }, 100)]);
            const first = outcome[0];
            if (first?.status === 'rejected') expect(first.reason).toBeInstanceOf(NetworkError);
          } finally {
            await connection.close();
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(escaped).toEqual([]);
  }, 30_000);
});
