/**
 * Message ids and the socket addresses inside them.
 *
 * ```
 * offset msg id = hex(storeIp:4|16 bytes, storePort:int32, physicalOffset:int64)   32 or 56 hex chars
 * unique id     = hex(ip:4, pid:uint16, processRandom:4, msSinceMonthStart:uint32, counter:uint16)
 * ```
 * Both are uppercase hex. The unique id (the producer's `UNIQ_KEY`) follows Java's
 * `MessageClientIDSetter` layout, with a per-process random word in place of the class-loader hash.
 */

import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { splitHostPort } from '../util/split-host-port.js';
import { ProtocolError } from './errors.js';

/** A decoded offset message id. */
export interface OffsetMsgId {
  /** `ip:port`, IPv6 as `[ip]:port`. */
  address: string;
  /** Text form of the store host IP. */
  ip: string;
  port: number;
  physicalOffset: number;
}

const HEX_PATTERN = /^[0-9A-Fa-f]*$/;

/**
 * Builds the broker's "offset msg id" from the store host and the commit-log offset.
 *
 * @throws ProtocolError when `ip` is not 4 or 16 bytes or the offset is not a safe non-negative integer.
 */
export function createOffsetMsgId(ip: Uint8Array, port: number, physicalOffset: number): string {
  if (ip.length !== 4 && ip.length !== 16)
    throw new ProtocolError(`IP address must be 4 or 16 bytes, got ${ip.length}`);
  if (!Number.isSafeInteger(physicalOffset) || physicalOffset < 0) {
    throw new ProtocolError(`physicalOffset ${physicalOffset} is not a safe non-negative integer`);
  }
  const bytes = Buffer.allocUnsafe(ip.length + 12);
  bytes.set(ip, 0);
  bytes.writeInt32BE(port | 0, ip.length);
  bytes.writeBigInt64BE(BigInt(physicalOffset), ip.length + 4);
  return bytes.toString('hex').toUpperCase();
}

/**
 * Decodes an offset message id (Java `MessageDecoder.decodeMessageId`).
 *
 * @throws ProtocolError when the id is not 32 or 56 hex chars or the offset is not a safe integer.
 */
export function decodeOffsetMsgId(id: string): OffsetMsgId {
  if ((id.length !== 32 && id.length !== 56) || !HEX_PATTERN.test(id)) {
    throw new ProtocolError(`Offset message id must be 32 or 56 hex chars: ${JSON.stringify(id)}`);
  }
  const bytes = Buffer.from(id, 'hex');
  const ipLength = id.length === 32 ? 4 : 16;
  const ip = formatIpAddress(bytes.subarray(0, ipLength));
  const port = bytes.readInt32BE(ipLength);
  const offset = bytes.readBigInt64BE(ipLength + 4);
  const physicalOffset = Number(offset);
  if (!Number.isSafeInteger(physicalOffset)) {
    throw new ProtocolError(`Offset message id ${id} holds an offset beyond 2^53: ${offset}`);
  }
  return { address: formatHostPort(ip, port), ip, port, physicalOffset };
}

/**
 * Text form of a 4- or 16-byte IP address: dotted IPv4, or RFC 5952 IPv6 (lowercase, the longest
 * run of two or more zero groups shortened to `::`).
 */
export function formatIpAddress(ip: Uint8Array): string {
  if (ip.length === 4) return `${ip[0]}.${ip[1]}.${ip[2]}.${ip[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i] ?? 0) << 8) | (ip[i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * `ip:port`, with IPv6 addresses bracketed: `[ip]:port`.
 */
export function formatHostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/**
 * Parses IPv4 dotted text or IPv6 text (with `::` and an optional trailing dotted IPv4) to bytes.
 *
 * @throws ProtocolError for anything else (host names are not resolved here).
 */
export function parseIpAddress(text: string): Uint8Array {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return v4;
  const v6 = parseIpv6(text);
  if (v6 !== undefined) return v6;
  throw new ProtocolError(`Not an IP address: ${JSON.stringify(text)}`);
}

/**
 * Parses `ip:port` or `[ipv6]:port` (an unbracketed IPv6 address splits at its last colon).
 *
 * @throws ProtocolError for a malformed address or a port outside 0..65535.
 */
export function parseHostPort(address: string): { ip: Uint8Array; port: number } {
  const parsed = splitHostPort(address);
  if (parsed === undefined) throw new ProtocolError(`Address needs ip:port: ${JSON.stringify(address)}`);
  return { ip: parseIpAddress(parsed.host), port: parsed.port };
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] ?? '';
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    bytes[i] = Number(part);
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = (text.split('%')[0] ?? '').split('::');
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const head = parseIpv6Groups(halves[0] ?? '', !compressed);
  const tail = compressed ? parseIpv6Groups(halves[1] ?? '', true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** Colon-separated hex groups; the last may be dotted IPv4 (two groups) when `allowIpv4` is set. */
function parseIpv6Groups(text: string, allowIpv4: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (allowIpv4 && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(part)) {
      groups.push(Number.parseInt(part, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

/** Options of {@link createUniqueIdGenerator}. */
export interface UniqueIdOptions {
  /** 4-byte IPv4 address to embed. @default the first non-internal IPv4 address of this host, else random */
  ip?: Uint8Array;
  /** @default process.pid */
  pid?: number;
  /** Clock in ms since the epoch. @default Date.now */
  now?: () => number;
}

/**
 * Makes an independent unique id generator (for tests, or several producers that want their own
 * counter). {@link createUniqueId} uses one shared generator.
 */
export function createUniqueIdGenerator(options: UniqueIdOptions = {}): () => string {
  const ip = options.ip ?? localIpv4();
  if (ip.length !== 4) throw new ProtocolError(`Unique id IP must be 4 bytes, got ${ip.length}`);
  const now = options.now ?? Date.now;
  const fixed = Buffer.allocUnsafe(10);
  fixed.set(ip, 0);
  fixed.writeUInt16BE((options.pid ?? process.pid) & 0xffff, 4);
  randomBytes(4).copy(fixed, 6);
  const prefix = fixed.toString('hex').toUpperCase();
  let monthStart = 0;
  let nextMonthStart = 0;
  let lastTime = Number.NEGATIVE_INFINITY;
  let counter = 0;
  const tail = Buffer.allocUnsafe(6);
  return () => {
    // (time, counter) only ever increases, so ids never repeat in this process, even when the clock
    // steps back (NTP) or more than 65536 ids are made in one millisecond.
    const time = now();
    if (time > lastTime) {
      lastTime = time;
      counter = 0;
    } else if (++counter > 0xffff) {
      lastTime += 1;
      counter = 0;
    }
    if (lastTime >= nextMonthStart || lastTime < monthStart) {
      const date = new Date(lastTime);
      monthStart = new Date(date.getFullYear(), date.getMonth(), 1).getTime();
      nextMonthStart = new Date(date.getFullYear(), date.getMonth() + 1, 1).getTime();
    }
    tail.writeUInt32BE((lastTime - monthStart) >>> 0, 0);
    tail.writeUInt16BE(counter, 4);
    return prefix + tail.toString('hex').toUpperCase();
  };
}

let sharedGenerator: (() => string) | undefined;

/**
 * A new producer message id (`UNIQ_KEY`): 32 uppercase hex chars, unique within this process and,
 * through pid and a per-process random word, across processes on one host.
 */
export function createUniqueId(): string {
  sharedGenerator ??= createUniqueIdGenerator();
  return sharedGenerator();
}

function localIpv4(): Uint8Array {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) {
        const parsed = parseIpv4(address.address);
        if (parsed !== undefined) return parsed;
      }
    }
  }
  return new Uint8Array(randomBytes(4));
}
