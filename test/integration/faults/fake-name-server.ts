/**
 * A hostile name server for the fault suite: a TCP server speaking our remoting framing that answers
 * every request (route lookups, in practice) with one kind of nonsense, its "face": routes with absurd
 * sizes, a frame that never finishes, a length prefix above the 16 MiB frame cap, well-framed
 * garbage, or headers above the header caps. It listens on 127.0.0.1 and keeps counts of what it saw
 * and sent. It can turn sane mid-test ({@link FakeNameServer.forwardTo}): then it relays every request
 * to a real name server, optionally naming other broker addresses in the routes it relays.
 */
import net from 'node:net';
import { onTestFinished } from 'vitest';
import { MAX_HEADER_BYTES, MAX_HEADER_FIELDS } from '../../../src/protocol/header-limits.js';
import {
  decodeFrame,
  encodeFrame,
  FLAG_RESPONSE,
  FrameSplitter,
  isOneway,
  isResponse,
  MAX_FRAME_LENGTH,
  type RemotingCommand,
  SerializeType,
} from '../../../src/protocol/remoting-command.js';

/**
 * What a fake name server answers:
 * - `absurd-queue-count`: a route whose broker offers 2,147,483,647 read and write queues;
 * - `absurd-broker-count`: a route listing 100,000 broker groups (a ~10 MB body, within the frame cap);
 * - `truncated-frame`: a length prefix announcing 1 MiB, the first bytes of a header, then nothing;
 * - `oversized-frame`: a length prefix of 64 MiB (above the 16 MiB cap), then 1 MiB of filler;
 * - `garbage`: a frame of valid length whose content is random bytes, then more random bytes;
 * - `oversized-json-header` / `oversized-binary-header`: a response whose header is one byte above
 *   MAX_HEADER_BYTES (a long remark), in each serialization;
 * - `many-json-header-fields` / `many-binary-header-fields`: a response whose header has one field more
 *   than MAX_HEADER_FIELDS, in each serialization.
 */
export type FakeNameServerFace =
  | 'absurd-queue-count'
  | 'absurd-broker-count'
  | 'truncated-frame'
  | 'oversized-frame'
  | 'garbage'
  | HostileHeaderFace;

/** The faces whose answer is refused for its header alone. */
export type HostileHeaderFace =
  | 'oversized-json-header'
  | 'oversized-binary-header'
  | 'many-json-header-fields'
  | 'many-binary-header-fields';

/** Every header face. */
export const HOSTILE_HEADER_FACES: readonly HostileHeaderFace[] = [
  'oversized-json-header',
  'oversized-binary-header',
  'many-json-header-fields',
  'many-binary-header-fields',
];

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
  /** Requests received (each answered with the face, or relayed once forwarding). */
  requests = 0;
  /** Connections accepted. */
  connections = 0;
  /** Accepted connections that are closed now (by the client, as a rule). */
  closedConnections = 0;
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #face: FakeNameServerFace;
  #forward: { upstream: string; addresses: ReadonlyMap<string, string> } | undefined;

  private constructor(
    face: FakeNameServerFace,
    readonly address: string,
    server: net.Server,
  ) {
    this.#face = face;
    this.#server = server;
  }

  /** What it answers now (its last face, also while forwarding). */
  get face(): FakeNameServerFace {
    return this.#face;
  }

  /** True once {@link forwardTo} was called (and not undone by {@link switchTo}). */
  get forwarding(): boolean {
    return this.#forward !== undefined;
  }

  /** Answers every request from now on with `face`. */
  switchTo(face: FakeNameServerFace): void {
    this.#face = face;
    this.#forward = undefined;
  }

  /**
   * Turns sane: relays every request from now on to the name server at `upstream` and its answers back,
   * with each broker address of `addresses`' keys replaced by its value in the routes relayed.
   */
  forwardTo(upstream: string, addresses: ReadonlyMap<string, string> = new Map()): void {
    this.#forward = { upstream, addresses };
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
    let upstream: UpstreamLink | undefined;
    // The client closes or resets the connection whenever it gives up on us: that is the point.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closedConnections++;
      this.#sockets.delete(socket);
      upstream?.close();
    });
    const splitter = new FrameSplitter();
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = splitter.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const frame of frames) {
        const request = decodeFrame(frame);
        if (isResponse(request) || isOneway(request)) continue;
        this.requests++;
        const forward = this.#forward;
        if (forward !== undefined) {
          upstream ??= new UpstreamLink(forward.upstream, socket, forward.addresses);
          upstream.send(request);
          continue;
        }
        for (const bytes of answerOf(this.#face, request)) {
          if (!socket.destroyed) socket.write(bytes);
        }
      }
    });
  }
}

/**
 * One client connection's link to the real name server: requests go up as they came, answers come back
 * with the broker addresses of routes replaced.
 */
class UpstreamLink {
  readonly #socket: net.Socket;

  constructor(
    upstream: string,
    client: net.Socket,
    private readonly addresses: ReadonlyMap<string, string>,
  ) {
    const [host, port] = upstream.split(':');
    this.#socket = net.connect({ host, port: Number(port) });
    this.#socket.on('error', () => client.destroy());
    this.#socket.on('close', () => client.destroy());
    const splitter = new FrameSplitter();
    this.#socket.on('data', (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        if (!client.destroyed) client.write(encodeFrame(this.#rewritten(decodeFrame(frame))));
      }
    });
  }

  send(request: RemotingCommand): void {
    this.#socket.write(encodeFrame(request));
  }

  close(): void {
    this.#socket.destroy();
  }

  #rewritten(response: RemotingCommand): RemotingCommand {
    if (response.body === undefined || this.addresses.size === 0) return response;
    let text = response.body.toString('utf8');
    if (!text.includes('brokerAddrs')) return response;
    for (const [from, to] of this.addresses) text = text.replaceAll(`"${from}"`, `"${to}"`);
    return { ...response, body: Buffer.from(text, 'utf8') };
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
    case 'oversized-json-header':
      return [oversizedHeaderResponse(request, SerializeType.JSON)];
    case 'oversized-binary-header':
      return [oversizedHeaderResponse(request, SerializeType.ROCKETMQ)];
    case 'many-json-header-fields':
      return [manyFieldsResponse(request, SerializeType.JSON)];
    case 'many-binary-header-fields':
      return [manyFieldsResponse(request, SerializeType.ROCKETMQ)];
  }
}

function response(request: RemotingCommand, fields: Partial<RemotingCommand>): RemotingCommand {
  return {
    code: 0,
    language: 'JAVA',
    version: SERVER_VERSION,
    opaque: request.opaque,
    flag: FLAG_RESPONSE,
    extFields: {},
    ...fields,
  };
}

/** A response whose header is MAX_HEADER_BYTES + 1 bytes long: a remark fills it. */
function oversizedHeaderResponse(request: RemotingCommand, serializeType: SerializeType): Buffer {
  const base = response(request, { serializeType, remark: '' });
  const baseLength = encodeFrame(base).readUInt32BE(4) & 0xffffff;
  const frame = encodeFrame({ ...base, remark: 'r'.repeat(MAX_HEADER_BYTES + 1 - baseLength) });
  if ((frame.readUInt32BE(4) & 0xffffff) !== MAX_HEADER_BYTES + 1) throw new Error('miscounted header');
  return frame;
}

/** A response with MAX_HEADER_FIELDS + 1 extFields (a JSON header counts its own fields on top). */
function manyFieldsResponse(request: RemotingCommand, serializeType: SerializeType): Buffer {
  const extFields: Record<string, string> = {};
  for (let i = 0; i <= MAX_HEADER_FIELDS; i++) extFields[`f${i}`] = 'v';
  return encodeFrame(response(request, { serializeType, extFields }));
}

function routeResponse(request: RemotingCommand, body: Buffer): Buffer {
  const frame = encodeFrame(response(request, { body }));
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
