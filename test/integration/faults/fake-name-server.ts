/**
 * A hostile name server for the fault suite: a TCP server speaking our remoting framing that answers
 * every request (route lookups, in practice) with one kind of nonsense, its "face": routes with absurd
 * sizes, a frame that never finishes, a length prefix above the 16 MiB frame cap, or well-framed
 * garbage. It listens on 127.0.0.1 and keeps counts of what it saw and sent.
 */
import net from 'node:net';
import { onTestFinished } from 'vitest';
import {
  decodeFrame,
  encodeFrame,
  FLAG_RESPONSE,
  FrameSplitter,
  isOneway,
  isResponse,
  MAX_FRAME_LENGTH,
  type RemotingCommand,
} from '../../../src/protocol/remoting-command.js';

/**
 * What a fake name server answers:
 * - `absurd-queue-count`: a route whose broker offers 2,147,483,647 read and write queues;
 * - `absurd-broker-count`: a route listing 100,000 broker groups (a ~10 MB body, within the frame cap);
 * - `truncated-frame`: a length prefix announcing 1 MiB, the first bytes of a header, then nothing;
 * - `oversized-frame`: a length prefix of 64 MiB (above the 16 MiB cap), then 1 MiB of filler;
 * - `garbage`: a frame of valid length whose content is random bytes, then more random bytes.
 */
export type FakeNameServerFace =
  | 'absurd-queue-count'
  | 'absurd-broker-count'
  | 'truncated-frame'
  | 'oversized-frame'
  | 'garbage';

/** Every face, in the order a poller meets them when they are listed so. */
export const FAKE_NAME_SERVER_FACES: readonly FakeNameServerFace[] = [
  'absurd-queue-count',
  'absurd-broker-count',
  'truncated-frame',
  'oversized-frame',
  'garbage',
];

const ABSURD_QUEUE_NUMS = 2_147_483_647;
const ABSURD_BROKER_GROUPS = 100_000;
const TRUNCATED_ANNOUNCED_BYTES = 1024 * 1024;
const OVERSIZED_ANNOUNCED_BYTES = 64 * 1024 * 1024;
const FILLER_BYTES = 1024 * 1024;
const GARBAGE_FRAME_BYTES = 64 * 1024;
/** Answers copy Java's name server version (V5_3_3). */
const SERVER_VERSION = 479;

/**
 * A fake name server with one face.
 *
 * @example
 * ```ts
 * const fake = await FakeNameServer.start('absurd-queue-count');
 * // nameServer: [fake.address, realNamesrv]
 * fake.requests // => route lookups it answered so far
 * ```
 */
export class FakeNameServer {
  /** Requests received (each answered with the face). */
  requests = 0;
  /** Connections accepted. */
  connections = 0;
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();

  private constructor(
    readonly face: FakeNameServerFace,
    readonly address: string,
    server: net.Server,
  ) {
    this.#server = server;
  }

  /** Starts listening on a free port of 127.0.0.1; closed when the test ends. */
  static async start(face: FakeNameServerFace): Promise<FakeNameServer> {
    let fake: FakeNameServer | undefined;
    const server = net.createServer((socket) => {
      if (fake === undefined) socket.destroy();
      else fake.#accept(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const info = server.address();
    if (info === null || typeof info === 'string') throw new Error('the fake name server has no TCP address');
    fake = new FakeNameServer(face, `127.0.0.1:${info.port}`, server);
    const started = fake;
    onTestFinished(() => started.close());
    return fake;
  }

  /** Closes every connection and stops listening. Idempotent. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: net.Socket): void {
    this.connections++;
    this.#sockets.add(socket);
    // The client closes or resets the connection whenever it gives up on us: that is the point.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#sockets.delete(socket));
    const splitter = new FrameSplitter();
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = splitter.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const frame of frames) this.#answer(socket, frame);
    });
  }

  #answer(socket: net.Socket, frame: Buffer): void {
    const request = decodeFrame(frame);
    if (isResponse(request) || isOneway(request)) return;
    this.requests++;
    for (const bytes of answerOf(this.face, request)) {
      if (!socket.destroyed) socket.write(bytes);
    }
  }
}

/** The bytes a face answers `request` with. */
function answerOf(face: FakeNameServerFace, request: RemotingCommand): Buffer[] {
  switch (face) {
    case 'absurd-queue-count':
      return [routeResponse(request, absurdQueueCountRoute())];
    case 'absurd-broker-count':
      return [routeResponse(request, absurdBrokerCountRoute())];
    case 'truncated-frame': {
      const start = Buffer.alloc(12);
      start.writeInt32BE(TRUNCATED_ANNOUNCED_BYTES, 0);
      start.writeUInt32BE(200, 4); // JSON header of 200 bytes, of which 4 ever arrive
      start.write('{"co', 8, 'latin1');
      return [start];
    }
    case 'oversized-frame': {
      const prefix = Buffer.alloc(4);
      prefix.writeInt32BE(OVERSIZED_ANNOUNCED_BYTES, 0);
      return [prefix, Buffer.alloc(FILLER_BYTES, 0x7b)];
    }
    case 'garbage': {
      const random = seededBytes(GARBAGE_FRAME_BYTES * 2, request.opaque);
      const prefix = Buffer.alloc(4);
      prefix.writeInt32BE(GARBAGE_FRAME_BYTES, 0);
      return [prefix, random];
    }
  }
}

function routeResponse(request: RemotingCommand, body: Buffer): Buffer {
  const frame = encodeFrame({
    code: 0,
    language: 'JAVA',
    version: SERVER_VERSION,
    opaque: request.opaque,
    flag: FLAG_RESPONSE,
    extFields: {},
    body,
  });
  if (frame.length - 4 > MAX_FRAME_LENGTH) throw new Error('a fake route must fit in one frame');
  return frame;
}

let absurdQueueCount: Buffer | undefined;
let absurdBrokerCount: Buffer | undefined;

/** One broker group offering 2,147,483,647 queues (the value that once took a poller to 2.4 GB). */
function absurdQueueCountRoute(): Buffer {
  absurdQueueCount ??= Buffer.from(
    JSON.stringify({
      brokerDatas: [{ brokerAddrs: { '0': '127.0.0.1:1' }, brokerName: 'fake-a', cluster: 'FakeCluster' }],
      queueDatas: [
        {
          brokerName: 'fake-a',
          perm: 6,
          readQueueNums: ABSURD_QUEUE_NUMS,
          topicSysFlag: 0,
          writeQueueNums: ABSURD_QUEUE_NUMS,
        },
      ],
    }),
  );
  return absurdQueueCount;
}

/** 100,000 broker groups of 8 queues each, built once (about 10 MB). */
function absurdBrokerCountRoute(): Buffer {
  if (absurdBrokerCount === undefined) {
    const brokerDatas: string[] = [];
    for (let i = 0; i < ABSURD_BROKER_GROUPS; i++) {
      brokerDatas.push(
        `{"brokerAddrs":{"0":"127.0.0.1:1"},"brokerName":"fake-${i}","cluster":"FakeCluster"}`,
      );
    }
    const queueData =
      '{"brokerName":"fake-0","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}';
    absurdBrokerCount = Buffer.from(`{"brokerDatas":[${brokerDatas.join(',')}],"queueDatas":[${queueData}]}`);
  }
  return absurdBrokerCount;
}

/** Deterministic pseudo-random bytes (mulberry32): the same garbage on every run. */
function seededBytes(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    bytes[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return bytes;
}
