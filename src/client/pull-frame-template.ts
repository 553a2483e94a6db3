/**
 * A PULL_MESSAGE frame made from a template. A pull loop sends the same header hundreds of times a
 * second with only `queueOffset`, `sysFlag` and `commitOffset` changing, yet the generic path turns
 * the header into strings, JSON and a concatenated frame on every pull (and the broker parses that
 * JSON with fastjson on every pull). The template encodes the fixed fields once, as the binary
 * (ROCKETMQ) header the broker decodes without a JSON parser (`RocketMQSerializable`), and a pull
 * writes the three changing values and the opaque into one buffer.
 *
 * The frame carries exactly the fields {@link toExtFields} would give the header: only the
 * serialization differs. Brokers answer in their own serialize type (JSON by default) whatever the
 * request used, and every RocketMQ server decodes both (docs/protocol.md).
 */
import type { RemotingRequest } from '../network/connection.js';
import type { PullMessageRequestHeader } from '../protocol/headers.js';
import {
  CLIENT_LANGUAGE,
  CLIENT_VERSION,
  LANGUAGE_CODES,
  SerializeType,
  toExtFields,
} from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';

/** The header fields that change from one pull of a queue to the next; every other one is fixed. */
const CHANGING_FIELDS = ['queueOffset', 'sysFlag', 'commitOffset'] as const;
type ChangingField = (typeof CHANGING_FIELDS)[number];

/** code:int16 language:uint8 version:int16 opaque:int32 flag:int32 remarkLength:int32 extLength:int32 */
const FIXED_HEADER_BYTES = 21;
const OPAQUE_AT = 8 + 5;
const FLAG_AT = 8 + 9;
const EXT_LENGTH_AT = 8 + 17;

/** One changing field: its key's bytes with their length in front, then the value's length and bytes. */
interface ChangingEntry {
  readonly field: ChangingField;
  /** keyLength:int16 key */
  readonly keyBytes: Buffer;
}

/**
 * The encoded PULL_MESSAGE frames of one queue's pulls.
 */
export class PullFrameTemplate {
  /** The fixed header fields as given (undefined ones included: they are left out of the frame). */
  private readonly fixed: ReadonlyArray<readonly [string, unknown]>;
  private readonly keyCount: number;
  /** code, language, version, remark length 0 and the fixed ext entries, ready to copy. */
  private readonly head: Buffer;
  /** The fixed ext entries' bytes. */
  private readonly fixedExtBytes: number;
  private readonly changing: readonly ChangingEntry[];

  constructor(header: PullMessageRequestHeader) {
    const record = header as unknown as Record<string, unknown>;
    const fixed: Array<readonly [string, unknown]> = [];
    for (const key of Object.keys(record)) {
      if (!(CHANGING_FIELDS as readonly string[]).includes(key)) fixed.push([key, record[key]]);
    }
    this.fixed = fixed;
    this.keyCount = Object.keys(record).length;
    const fixedFields = toExtFields(Object.fromEntries(fixed));
    const entries = Object.entries(fixedFields).map(([key, value]) => extEntry(key, value));
    this.fixedExtBytes = entries.reduce((sum, entry) => sum + entry.length, 0);
    const fixedHeader = Buffer.alloc(8 + FIXED_HEADER_BYTES);
    fixedHeader.writeInt16BE(RequestCode.PULL_MESSAGE, 8);
    fixedHeader.writeUInt8(LANGUAGE_CODES.indexOf(CLIENT_LANGUAGE), 8 + 2);
    fixedHeader.writeInt16BE(CLIENT_VERSION, 8 + 3);
    this.head = Buffer.concat([fixedHeader, ...entries]);
    this.changing = CHANGING_FIELDS.map((field) => {
      const key = Buffer.from(field, 'latin1');
      const keyBytes = Buffer.allocUnsafe(2 + key.length);
      keyBytes.writeInt16BE(key.length, 0);
      key.copy(keyBytes, 2);
      return { field, keyBytes };
    });
  }

  /** True when `header` differs from the template's only in `queueOffset`, `sysFlag` and `commitOffset`. */
  fits(header: PullMessageRequestHeader): boolean {
    const record = header as unknown as Record<string, unknown>;
    for (const [key, value] of this.fixed) if (record[key] !== value) return false;
    let keys = 0;
    for (const _ in record) keys++;
    return keys === this.keyCount;
  }

  /**
   * The PULL_MESSAGE request with `header`, which must {@link PullFrameTemplate.fits | fit} the
   * template: its frame comes from the template, its `extFields` are made only for a request signer.
   */
  request(header: PullMessageRequestHeader): RemotingRequest {
    return new TemplatePullRequest(this, header);
  }

  /**
   * The whole frame (length prefix included) of a PULL_MESSAGE request with `header`, which must
   * {@link PullFrameTemplate.fits | fit} the template.
   */
  encode(header: PullMessageRequestHeader, opaque: number, flag: number): Buffer {
    const values = [String(header.queueOffset), String(header.sysFlag), String(header.commitOffset)];
    let extBytes = this.fixedExtBytes;
    for (let i = 0; i < this.changing.length; i++) {
      extBytes += (this.changing[i] as ChangingEntry).keyBytes.length + 4 + (values[i] as string).length;
    }
    const headerBytes = FIXED_HEADER_BYTES + extBytes;
    const frame = Buffer.allocUnsafe(8 + headerBytes);
    this.head.copy(frame, 0);
    frame.writeInt32BE(4 + headerBytes, 0);
    frame.writeUInt32BE(((SerializeType.ROCKETMQ << 24) | headerBytes) >>> 0, 4);
    frame.writeInt32BE(opaque, OPAQUE_AT);
    frame.writeInt32BE(flag, FLAG_AT);
    frame.writeInt32BE(extBytes, EXT_LENGTH_AT);
    let at = this.head.length;
    for (let i = 0; i < this.changing.length; i++) {
      const { keyBytes } = this.changing[i] as ChangingEntry;
      const value = values[i] as string;
      at += keyBytes.copy(frame, at);
      frame.writeInt32BE(value.length, at);
      // Decimal digits and a minus sign: one byte each.
      at += 4 + frame.write(value, at + 4, 'latin1');
    }
    return frame;
  }
}

/**
 * A pull request made from a template. A class, not an object literal with an `extFields` getter: V8
 * gives every such literal a hidden class of its own, made in the old generation, on every pull.
 */
class TemplatePullRequest implements RemotingRequest {
  readonly code = RequestCode.PULL_MESSAGE;
  readonly #template: PullFrameTemplate;
  readonly #header: PullMessageRequestHeader;

  constructor(template: PullFrameTemplate, header: PullMessageRequestHeader) {
    this.#template = template;
    this.#header = header;
  }

  /** Read only by a request signer; the frame is the template's. */
  get extFields(): Record<string, string> {
    return toExtFields(this.#header);
  }

  encodeFrame(opaque: number, flag: number): Buffer {
    return this.#template.encode(this.#header, opaque, flag);
  }
}

/** keyLength:int16 key valueLength:int32 value, both UTF-8. */
function extEntry(key: string, value: string): Buffer {
  const k = Buffer.from(key, 'utf8');
  const v = Buffer.from(value, 'utf8');
  const entry = Buffer.allocUnsafe(2 + k.length + 4 + v.length);
  entry.writeInt16BE(k.length, 0);
  k.copy(entry, 2);
  entry.writeInt32BE(v.length, 2 + k.length);
  v.copy(entry, 6 + k.length);
  return entry;
}
