/**
 * The TCP sockets a process holds, read from Linux's /proc: the socket inodes among its file
 * descriptors (`/proc/<pid>/fd/* -> socket:[inode]`) matched against the kernel's socket tables
 * (`/proc/<pid>/net/tcp` and `tcp6`, which list every socket of the network namespace, not only the
 * process's). The scale bench counts the poller's connections per broker with it, independently of the
 * client's own connection pool.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

/**
 * One row of /proc/net/tcp or tcp6, decoded.
 */
export interface TcpSocketEntry {
  /** `host:port`; IPv6 hosts in brackets, IPv4-mapped IPv6 as plain IPv4. */
  readonly localAddress: string;
  readonly remoteAddress: string;
  readonly state: string;
  readonly inode: number;
}

/** The kernel's TCP states (include/net/tcp_states.h), by their hex code in /proc/net/tcp. */
const TCP_STATES: Readonly<Record<string, string>> = {
  '01': 'ESTABLISHED',
  '02': 'SYN_SENT',
  '03': 'SYN_RECV',
  '04': 'FIN_WAIT1',
  '05': 'FIN_WAIT2',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '09': 'LAST_ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
  '0C': 'NEW_SYN_RECV',
};

/**
 * Decodes an address of /proc/net/tcp (`0100007F:2A9F`) or tcp6 (32 hex digits, then the port) into
 * `host:port`. The kernel prints the address as 32-bit words in host byte order (little-endian here), the
 * port in network order.
 *
 * @example
 * ```ts
 * decodeProcAddress('0100007F:2A9F'); // => '127.0.0.1:10911'
 * decodeProcAddress('0000000000000000FFFF00000100007F:2A9F'); // => '127.0.0.1:10911'
 * ```
 */
export function decodeProcAddress(hex: string): string {
  const [hostHex, portHex] = hex.split(':') as [string, string | undefined];
  if (portHex === undefined || !/^[0-9A-Fa-f]{4}$/.test(portHex)) {
    throw new Error(`not a /proc/net/tcp address: ${JSON.stringify(hex)}`);
  }
  const port = Number.parseInt(portHex, 16);
  if ((hostHex.length !== 8 && hostHex.length !== 32) || !/^[0-9A-Fa-f]+$/.test(hostHex)) {
    throw new Error(`not a /proc/net/tcp address: ${JSON.stringify(hex)}`);
  }
  const bytes: number[] = [];
  for (let word = 0; word < hostHex.length; word += 8) {
    const wordBytes: number[] = [];
    for (let i = 0; i < 8; i += 2) wordBytes.push(Number.parseInt(hostHex.slice(word + i, word + i + 2), 16));
    bytes.push(...wordBytes.reverse());
  }
  if (bytes.length === 4) return `${bytes.join('.')}:${port}`;
  const ipv4Mapped =
    bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (ipv4Mapped) return `${bytes.slice(12).join('.')}:${port}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return `[${groups.join(':')}]:${port}`;
}

/**
 * Parses the text of /proc/net/tcp or tcp6 (a header line, then one socket per line).
 *
 * @example
 * ```ts
 * const entries = parseProcNetTcp(readFileSync('/proc/self/net/tcp', 'utf8'));
 * ```
 */
export function parseProcNetTcp(text: string): TcpSocketEntry[] {
  const entries: TcpSocketEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // sl local rem st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    if (fields.length < 10) continue;
    const [, local, remote, stateHex] = fields as [string, string, string, string];
    const inode = Number(fields[9]);
    if (!Number.isSafeInteger(inode))
      throw new Error(`no inode in /proc/net/tcp line ${JSON.stringify(line)}`);
    entries.push({
      localAddress: decodeProcAddress(local),
      remoteAddress: decodeProcAddress(remote),
      state: TCP_STATES[stateHex.toUpperCase()] ?? `0x${stateHex}`,
      inode,
    });
  }
  return entries;
}

/**
 * The socket inode a file descriptor's link names (`socket:[123]`), or undefined for anything else.
 *
 * @example
 * ```ts
 * socketInodeOfLink('socket:[4711]'); // => 4711
 * socketInodeOfLink('/dev/null'); // => undefined
 * ```
 */
export function socketInodeOfLink(target: string): number | undefined {
  const match = /^socket:\[(\d+)\]$/.exec(target);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The TCP sockets (IPv4 and IPv6) among `inodes`, the sockets of one process.
 *
 * @example
 * ```ts
 * const mine = tcpSocketsOf(parseProcNetTcp(tcpText), new Set([4711]));
 * ```
 */
export function tcpSocketsOf(
  entries: readonly TcpSocketEntry[],
  inodes: ReadonlySet<number>,
): TcpSocketEntry[] {
  return entries.filter((entry) => entry.inode !== 0 && inodes.has(entry.inode));
}

/**
 * Counts ESTABLISHED sockets by remote address (listening and closing sockets are not connections).
 *
 * @example
 * ```ts
 * establishedByRemote(sockets).get('127.0.0.1:10911'); // => 1
 * ```
 */
export function establishedByRemote(
  sockets: readonly Pick<TcpSocketEntry, 'remoteAddress' | 'state'>[],
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const socket of sockets) {
    if (socket.state !== 'ESTABLISHED') continue;
    counts.set(socket.remoteAddress, (counts.get(socket.remoteAddress) ?? 0) + 1);
  }
  return counts;
}

/**
 * Reads the TCP sockets process `pid` holds now (Linux only). A descriptor that closes while it is
 * being read is skipped.
 *
 * @example
 * ```ts
 * const sockets = await readProcessTcpSockets('self');
 * console.log(establishedByRemote(sockets));
 * ```
 */
export async function readProcessTcpSockets(pid: number | 'self'): Promise<TcpSocketEntry[]> {
  const fdDir = `/proc/${pid}/fd`;
  const inodes = new Set<number>();
  for (const fd of await readdir(fdDir)) {
    const target = await readlink(`${fdDir}/${fd}`).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    });
    const inode = target === undefined ? undefined : socketInodeOfLink(target);
    if (inode !== undefined) inodes.add(inode);
  }
  const tables = await Promise.all(
    ['tcp', 'tcp6'].map((table) =>
      readFile(`/proc/${pid}/net/${table}`, 'utf8').catch((error: unknown) => {
        // A kernel without IPv6 has no tcp6 table.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
        throw error;
      }),
    ),
  );
  return tcpSocketsOf(tables.flatMap(parseProcNetTcp), inodes);
}
