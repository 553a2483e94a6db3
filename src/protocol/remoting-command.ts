/**
 * RemotingCommand: the frame every RocketMQ request and response travels in.
 *
 * Wire grammar (all integers big-endian):
 * ```
 * frame        = totalLength:int32 headerWord:int32 header:bytes[H] body:bytes[totalLength - 4 - H]
 * headerWord   = serializeType:uint8 << 24 | H:uint24          (0 = JSON, 1 = ROCKETMQ binary)
 * JSON header  = {"code","language","version","opaque","flag","remark"?,"extFields"?}
 * binary header= code:int16 language:uint8 version:int16 opaque:int32 flag:int32
 *                remarkLen:int32 remark:utf8 extLen:int32 (keyLen:int16 key valLen:int32 val)*
 * ```
 * Servers answer in their own serialize type, whatever the request used, so we decode both. An
 * incoming header is bounded before it is parsed (src/protocol/header-limits.ts).
 */
import { ProtocolError } from './errors.js';
import { checkJsonHeaderShape, MAX_HEADER_BYTES, MAX_HEADER_FIELDS } from './header-limits.js';

/** Serialize type of a frame's header. */
export const SerializeType = { JSON: 0, ROCKETMQ: 1 } as const;
export type SerializeType = (typeof SerializeType)[keyof typeof SerializeType];

/** Flag bit 0: the frame is a response. */
export const FLAG_RESPONSE = 1;
/** Flag bit 1: the request expects no response. */
export const FLAG_ONEWAY = 2;

/** LanguageCode names in the order of their byte values in binary headers. */
export const LANGUAGE_CODES = [
  'JAVA',
  'CPP',
  'DOTNET',
  'PYTHON',
  'DELPHI',
  'ERLANG',
  'RUBY',
  'OTHER',
  'HTTP',
  'GO',
  'PHP',
  'OMS',
  'RUST',
  'NODE_JS',
] as const;

/**
 * The language we announce. `NODE_JS` is unknown to brokers before 5.3.2 and `JAVA` makes brokers
 * treat us as a Java client in places that matter (ali-ons does the same).
 */
export const CLIENT_LANGUAGE = 'JAVA';

/**
 * The request version we send: 401 (V4_9_4) gets standard route JSON from the name server and has the
 * broker honour `maxReconsumeTimes`, while staying below 475 so a stopping server never answers GO_AWAY.
 */
export const CLIENT_VERSION = 401;

/** Largest value of the 4-byte length prefix the broker accepts (16 MiB frame cap, prefix included). */
export const MAX_FRAME_LENGTH = 16 * 1024 * 1024 - 4;

/** One decoded or to-be-encoded remoting frame. */
export interface RemotingCommand {
  /** Request code in requests, response code in responses. */
  code: number;
  language: string;
  version: number;
  /** Correlates a response with its request. */
  opaque: number;
  /** Bit 0 response, bit 1 oneway. */
  flag: number;
  remark?: string | undefined;
  /** The "custom header": every value is a string on the wire. */
  extFields: Record<string, string>;
  body?: Buffer | undefined;
  /** How the header was (or is to be) serialized; JSON when absent. */
  serializeType?: SerializeType | undefined;
}

/** True when the frame is a response rather than a request. */
export function isResponse(command: RemotingCommand): boolean {
  return (command.flag & FLAG_RESPONSE) !== 0;
}

/** True when the frame is a oneway request (no response expected). */
export function isOneway(command: RemotingCommand): boolean {
  return (command.flag & FLAG_ONEWAY) !== 0;
}

/**
 * Converts a header object to extFields: drops null/undefined, turns every value into its string form.
 */
export function toExtFields(header: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(header)) {
    if (value === undefined || value === null) continue;
    setOwn(out, key, typeof value === 'string' ? value : String(value));
  }
  return out;
}

/**
 * Encodes a command into one complete frame, length prefix included.
 */
export function encodeFrame(command: RemotingCommand): Buffer {
  const serializeType = command.serializeType ?? SerializeType.JSON;
  checkInt32(command.code, 'code');
  checkInt32(command.version, 'version');
  checkInt32(command.opaque, 'opaque');
  checkInt32(command.flag, 'flag');
  const header =
    serializeType === SerializeType.ROCKETMQ ? encodeBinaryHeader(command) : encodeJsonHeader(command);
  if (header.length > 0xffffff) {
    throw new ProtocolError(`header of ${header.length} bytes exceeds the 24-bit header length field`);
  }
  const bodyLength = command.body?.length ?? 0;
  const totalLength = 4 + header.length + bodyLength;
  if (totalLength > MAX_FRAME_LENGTH) {
    throw new ProtocolError(`frame of ${totalLength + 4} bytes exceeds the broker's 16 MiB frame cap`);
  }
  const prefix = Buffer.allocUnsafe(8);
  prefix.writeInt32BE(totalLength, 0);
  prefix.writeUInt32BE(((serializeType << 24) | header.length) >>> 0, 4);
  return command.body && bodyLength > 0
    ? Buffer.concat([prefix, header, command.body], 8 + header.length + bodyLength)
    : Buffer.concat([prefix, header], 8 + header.length);
}

/**
 * Decodes one frame without its 4-byte length prefix (what {@link FrameSplitter} yields).
 * Throws {@link ProtocolError} on anything malformed, and on a header above {@link MAX_HEADER_BYTES} or
 * with more than {@link MAX_HEADER_FIELDS} fields, refused before it is parsed (header-limits.ts says
 * why).
 */
export function decodeFrame(frame: Buffer): RemotingCommand {
  if (frame.length < 4) throw new ProtocolError(`frame of ${frame.length} bytes has no header length word`);
  const word = frame.readUInt32BE(0);
  const serializeType = word >>> 24;
  const headerLength = word & 0xffffff;
  if (4 + headerLength > frame.length) {
    throw new ProtocolError(
      `header length ${headerLength} exceeds the frame's ${frame.length - 4} remaining bytes`,
    );
  }
  if (headerLength > MAX_HEADER_BYTES) {
    throw new ProtocolError(
      `header of ${headerLength} bytes exceeds the cap of ${MAX_HEADER_BYTES} bytes on incoming headers`,
    );
  }
  const header = frame.subarray(4, 4 + headerLength);
  let command: RemotingCommand;
  if (serializeType === SerializeType.JSON) command = decodeJsonHeader(header);
  else if (serializeType === SerializeType.ROCKETMQ) command = decodeBinaryHeader(header);
  else throw new ProtocolError(`unknown serialize type ${serializeType}`);
  const bodyLength = frame.length - 4 - headerLength;
  if (bodyLength > 0) command.body = frame.subarray(4 + headerLength);
  command.serializeType = serializeType;
  return command;
}

/** Java reads these header fields as `int`: anything else would fail or wrap on the server. */
function checkInt32(value: number, field: string): void {
  if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
    throw new ProtocolError(`header field ${field} ${value} is not a 32-bit integer`);
  }
}

/**
 * Sets an own enumerable property, also for `__proto__`, which plain assignment would eat (it is the
 * one accessor on Object.prototype). Every other key is assigned: defineProperty on each key turns the
 * object into a slow dictionary, and that cost ~20 µs per PULL in header encoding and decoding.
 */
function setOwn(target: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function encodeJsonHeader(command: RemotingCommand): Buffer {
  const json: Record<string, unknown> = {
    code: command.code,
    language: command.language,
    version: command.version,
    opaque: command.opaque,
    flag: command.flag,
  };
  if (command.remark !== undefined) json.remark = command.remark;
  if (Object.keys(command.extFields).length > 0) json.extFields = command.extFields;
  return Buffer.from(JSON.stringify(json), 'utf8');
}

function decodeJsonHeader(header: Buffer): RemotingCommand {
  checkJsonHeaderShape(header);
  let parsed: unknown;
  try {
    parsed = JSON.parse(header.toString('utf8'));
  } catch (cause) {
    throw new ProtocolError('JSON header is not valid JSON', { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProtocolError('JSON header is not an object');
  }
  const h = parsed as Record<string, unknown>;
  const command: RemotingCommand = {
    code: requireInt(h.code, 'code'),
    language: typeof h.language === 'string' ? h.language : 'JAVA',
    version: h.version === undefined ? 0 : requireInt(h.version, 'version'),
    opaque: requireInt(h.opaque, 'opaque'),
    flag: h.flag === undefined ? 0 : requireInt(h.flag, 'flag'),
    extFields: {},
  };
  if (typeof h.remark === 'string') command.remark = h.remark;
  else if (h.remark !== undefined && h.remark !== null)
    throw new ProtocolError('JSON header remark is not a string');
  if (h.extFields !== undefined && h.extFields !== null) {
    if (typeof h.extFields !== 'object' || Array.isArray(h.extFields)) {
      throw new ProtocolError('JSON header extFields is not an object');
    }
    command.extFields = ownStringFields(h.extFields as Record<string, unknown>);
  }
  return command;
}

/**
 * The parsed extFields object itself when every value is a string (what brokers send): JSON.parse made
 * each key an own data property, `__proto__` included, so nothing is copied. Numbers and booleans
 * become strings, null drops the key; a nested object or array is refused.
 */
function ownStringFields(parsed: Record<string, unknown>): Record<string, string> {
  for (const key of Object.keys(parsed)) {
    const value = parsed[key];
    if (typeof value === 'string') continue;
    if (value === null) {
      delete parsed[key];
      continue;
    }
    if (typeof value === 'object') throw new ProtocolError(`JSON header extFields.${key} is not a scalar`);
    parsed[key] = String(value);
  }
  return parsed as Record<string, string>;
}

function requireInt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ProtocolError(`JSON header field ${field} is not an integer`);
  }
  return value;
}

function encodeBinaryHeader(command: RemotingCommand): Buffer {
  const languageCode = LANGUAGE_CODES.indexOf(command.language as (typeof LANGUAGE_CODES)[number]);
  if (languageCode < 0) throw new ProtocolError(`language ${command.language} has no binary code`);
  if (command.code > 0x7fff || command.code < -0x8000) {
    throw new ProtocolError(`code ${command.code} does not fit the binary header's short`);
  }
  if (command.version > 0x7fff || command.version < -0x8000) {
    throw new ProtocolError(`version ${command.version} does not fit the binary header's short`);
  }
  const remark = command.remark === undefined ? undefined : Buffer.from(command.remark, 'utf8');
  const entries: Buffer[] = [];
  let extLength = 0;
  for (const [key, value] of Object.entries(command.extFields)) {
    const k = Buffer.from(key, 'utf8');
    const v = Buffer.from(value, 'utf8');
    if (k.length > 0x7fff) throw new ProtocolError(`extFields key of ${k.length} bytes does not fit a short`);
    const entry = Buffer.allocUnsafe(2 + k.length + 4 + v.length);
    entry.writeInt16BE(k.length, 0);
    k.copy(entry, 2);
    entry.writeInt32BE(v.length, 2 + k.length);
    v.copy(entry, 6 + k.length);
    entries.push(entry);
    extLength += entry.length;
  }
  const fixed = Buffer.allocUnsafe(17);
  fixed.writeInt16BE(command.code, 0);
  fixed.writeUInt8(languageCode, 2);
  fixed.writeInt16BE(command.version, 3);
  fixed.writeInt32BE(command.opaque, 5);
  fixed.writeInt32BE(command.flag, 9);
  fixed.writeInt32BE(remark?.length ?? 0, 13);
  const extPrefix = Buffer.allocUnsafe(4);
  extPrefix.writeInt32BE(extLength, 0);
  return Buffer.concat([fixed, remark ?? Buffer.alloc(0), extPrefix, ...entries]);
}

function decodeBinaryHeader(header: Buffer): RemotingCommand {
  if (header.length < 21)
    throw new ProtocolError(`binary header of ${header.length} bytes is shorter than 21`);
  const languageCode = header.readUInt8(2);
  const command: RemotingCommand = {
    code: header.readInt16BE(0),
    language: LANGUAGE_CODES[languageCode] ?? 'OTHER',
    version: header.readInt16BE(3),
    opaque: header.readInt32BE(5),
    flag: header.readInt32BE(9),
    extFields: {},
  };
  let pos = 13;
  const remarkLength = header.readInt32BE(pos);
  pos += 4;
  if (remarkLength < 0 || pos + remarkLength + 4 > header.length) {
    throw new ProtocolError(`binary header remark length ${remarkLength} is out of range`);
  }
  if (remarkLength > 0) command.remark = header.toString('utf8', pos, pos + remarkLength);
  pos += remarkLength;
  const extLength = header.readInt32BE(pos);
  pos += 4;
  if (extLength < 0 || pos + extLength > header.length) {
    throw new ProtocolError(`binary header extFields length ${extLength} is out of range`);
  }
  const end = pos + extLength;
  let fields = 0;
  while (pos < end) {
    fields++;
    if (fields > MAX_HEADER_FIELDS) {
      throw new ProtocolError(
        `binary header of ${header.length} bytes has more than ${MAX_HEADER_FIELDS} extFields (the cap)`,
      );
    }
    if (pos + 2 > end) throw new ProtocolError('binary header extFields entry is truncated');
    const keyLength = header.readInt16BE(pos);
    pos += 2;
    if (keyLength < 0 || pos + keyLength + 4 > end)
      throw new ProtocolError('binary header extFields key is truncated');
    const key = header.toString('utf8', pos, pos + keyLength);
    pos += keyLength;
    const valueLength = header.readInt32BE(pos);
    pos += 4;
    if (valueLength < 0 || pos + valueLength > end) {
      throw new ProtocolError(`binary header extFields value of ${key} is truncated`);
    }
    const value = header.toString('utf8', pos, pos + valueLength);
    pos += valueLength;
    if (keyLength > 0 && valueLength > 0) setOwn(command.extFields, key, value);
  }
  return command;
}

/**
 * Splits a byte stream into frames. Feed it socket chunks; it returns each complete frame without its
 * length prefix, ready for {@link decodeFrame}. Every frame is a buffer of its own, into which the
 * splitter copied the frame's bytes once: it never keeps a reference to a chunk it was given, so a
 * reader may read every chunk into the same buffer (socket-link.ts does), and a frame's messages keep
 * only their own frame alive, not the reads around it. A length prefix that is negative, too small or
 * above the 16 MiB cap is a {@link ProtocolError}, thrown by {@link FrameSplitter.next} once the frames
 * before it are taken: the stream cannot be resynchronised and must be closed.
 * {@link FrameSplitter.append} plus {@link FrameSplitter.next} take frames one at a time, so a reader
 * that must stop mid-chunk (backpressure) leaves the rest here.
 */
export class FrameSplitter {
  private readonly maxFrameLength: number;
  /** Complete frames not yet taken, from `readyHead` on. */
  private readonly ready: (Buffer | undefined)[] = [];
  private readyHead = 0;
  /** Their bytes, length prefixes included. */
  private readyBytes = 0;
  /** The length prefix while fewer than its 4 bytes arrived. */
  private readonly prefix = Buffer.alloc(4);
  private prefixFill = 0;
  /** The frame being filled: its length is known, `partialFill` of its bytes arrived. */
  private partial: Buffer | undefined;
  private partialFill = 0;
  private error: ProtocolError | undefined;

  constructor(maxFrameLength: number = MAX_FRAME_LENGTH) {
    this.maxFrameLength = maxFrameLength;
  }

  /** Bytes received but not yet taken as part of a complete frame (complete frames not taken included). */
  get pendingBytes(): number {
    return this.readyBytes + this.prefixFill + (this.partial === undefined ? 0 : 4 + this.partialFill);
  }

  /**
   * Size, length prefix included, of the frame at the head of the buffer once its 4-byte prefix has
   * arrived; `undefined` before that. With {@link FrameSplitter.pendingBytes} it tells how much of a
   * stalled frame arrived.
   */
  get expectedBytes(): number | undefined {
    const head = this.ready[this.readyHead];
    if (head !== undefined) return 4 + head.length;
    return this.partial === undefined ? undefined : 4 + this.partial.length;
  }

  /** Appends and returns every frame now complete. */
  push(chunk: Buffer): Buffer[] {
    this.append(chunk);
    const frames: Buffer[] = [];
    for (let frame = this.next(); frame !== undefined; frame = this.next()) frames.push(frame);
    return frames;
  }

  /**
   * Takes `chunk[0, end)`, copying what it keeps: the chunk may be reused as soon as this returns. A
   * frame's buffer is allocated whole once its length is known (`Buffer.allocUnsafe`: pages a peer
   * never sends are never touched), and bytes after a bad length prefix are ignored.
   */
  append(chunk: Buffer, end: number = chunk.length): void {
    let position = 0;
    while (position < end && this.error === undefined) {
      const partial = this.partial;
      if (partial !== undefined) {
        const count = Math.min(partial.length - this.partialFill, end - position);
        chunk.copy(partial, this.partialFill, position, position + count);
        this.partialFill += count;
        position += count;
        if (this.partialFill === partial.length) {
          this.partial = undefined;
          this.addReady(partial);
        }
        continue;
      }
      let length: number;
      if (this.prefixFill === 0 && end - position >= 4) {
        length = chunk.readInt32BE(position);
        position += 4;
      } else {
        const count = Math.min(4 - this.prefixFill, end - position);
        chunk.copy(this.prefix, this.prefixFill, position, position + count);
        this.prefixFill += count;
        position += count;
        if (this.prefixFill < 4) return;
        this.prefixFill = 0;
        length = this.prefix.readInt32BE(0);
      }
      if (length < 4 || length > this.maxFrameLength) {
        this.error = new ProtocolError(`frame length ${length} is outside 4..${this.maxFrameLength}`);
        return;
      }
      const frame = Buffer.allocUnsafe(length);
      const count = Math.min(length, end - position);
      chunk.copy(frame, 0, position, position + count);
      position += count;
      if (count === length) {
        this.addReady(frame);
      } else {
        this.partial = frame;
        this.partialFill = count;
      }
    }
  }

  /** The next complete frame without its length prefix, or `undefined` while none is complete. */
  next(): Buffer | undefined {
    const frame = this.ready[this.readyHead];
    if (frame === undefined) {
      if (this.error !== undefined) throw this.error;
      return undefined;
    }
    this.ready[this.readyHead] = undefined;
    this.readyHead++;
    if (this.readyHead === this.ready.length) {
      this.ready.length = 0;
      this.readyHead = 0;
    }
    this.readyBytes -= 4 + frame.length;
    return frame;
  }

  private addReady(frame: Buffer): void {
    this.ready.push(frame);
    this.readyBytes += 4 + frame.length;
  }
}
