import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  decodeProcAddress,
  establishedByRemote,
  parseProcNetTcp,
  readProcessTcpSockets,
  socketInodeOfLink,
  tcpSocketsOf,
} from '../../../bench/proc-tcp-sockets.js';

// Lines as a Linux 6.x kernel prints them (trailing columns shortened).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:8573 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1186117 1 00000000faa66824 100 0 0 10 0
   1: 0100007F:C35A 0100007F:2A9F 01 00000000:00000000 02:000A7D2F 00000000     0        0 2200001 2 0000000000000000 20 4 30 10 -1
   2: 0100007F:C35C 0100007F:2A9F 06 00000000:00000000 03:00001234 00000000     0        0 0 3 0000000000000000
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100007F:C360 0000000000000000FFFF00000100007F:2A9F 01 00000000:00000000 00:00000000 00000000     0        0 2200002 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:C362 00000000000000000000000001000000:0050 01 00000000:00000000 00:00000000 00000000     0        0 2200003 1 0000000000000000 100 0 0 10 0
`;

describe('decodeProcAddress', () => {
  it('decodes IPv4 (little-endian words) and the port (network order)', () => {
    expect(decodeProcAddress('0100007F:2A9F')).toBe('127.0.0.1:10911');
    expect(decodeProcAddress('0A01A8C0:0050')).toBe('192.168.1.10:80');
  });

  it('decodes IPv4-mapped IPv6 as plain IPv4 and other IPv6 in brackets', () => {
    expect(decodeProcAddress('0000000000000000FFFF00000100007F:2A9F')).toBe('127.0.0.1:10911');
    expect(decodeProcAddress('00000000000000000000000001000000:0050')).toBe('[0:0:0:0:0:0:0:1]:80');
  });

  it('rejects what is not an address', () => {
    expect(() => decodeProcAddress('0100007F')).toThrow(/not a \/proc\/net\/tcp address/);
    expect(() => decodeProcAddress('0100007:2A9F')).toThrow(/not a \/proc\/net\/tcp address/);
    expect(() => decodeProcAddress('0100007G:2A9F')).toThrow(/not a \/proc\/net\/tcp address/);
  });
});

describe('parseProcNetTcp', () => {
  it('reads every socket line with its addresses, state and inode, skipping the header', () => {
    expect(parseProcNetTcp(TCP)).toEqual([
      { localAddress: '127.0.0.1:34163', remoteAddress: '0.0.0.0:0', state: 'LISTEN', inode: 1186117 },
      {
        localAddress: '127.0.0.1:50010',
        remoteAddress: '127.0.0.1:10911',
        state: 'ESTABLISHED',
        inode: 2200001,
      },
      { localAddress: '127.0.0.1:50012', remoteAddress: '127.0.0.1:10911', state: 'TIME_WAIT', inode: 0 },
    ]);
    expect(parseProcNetTcp(TCP6).map((entry) => [entry.remoteAddress, entry.state])).toEqual([
      ['127.0.0.1:10911', 'ESTABLISHED'],
      ['[0:0:0:0:0:0:0:1]:80', 'ESTABLISHED'],
    ]);
  });

  it('reads an empty table (no tcp6 on the kernel) as no sockets', () => {
    expect(parseProcNetTcp('')).toEqual([]);
  });
});

describe('sockets of one process', () => {
  it('takes the inode of socket links only', () => {
    expect(socketInodeOfLink('socket:[2200001]')).toBe(2200001);
    expect(socketInodeOfLink('pipe:[2200001]')).toBeUndefined();
    expect(socketInodeOfLink('/dev/null')).toBeUndefined();
  });

  it('keeps the entries of its inodes (never the inode 0 of TIME_WAIT) and counts ESTABLISHED by remote', () => {
    const entries = [...parseProcNetTcp(TCP), ...parseProcNetTcp(TCP6)];
    const mine = tcpSocketsOf(entries, new Set([1186117, 2200001, 2200002, 0]));
    expect(mine.map((entry) => entry.inode)).toEqual([1186117, 2200001, 2200002]);
    expect(establishedByRemote(mine)).toEqual(new Map([['127.0.0.1:10911', 2]]));
  });
});

describe('readProcessTcpSockets (Linux /proc)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("finds this process's own loopback connection to a server it opened", async () => {
    const server: Server = createServer((socket) => socket.on('error', () => socket.destroy()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the server has no port');
    const client: Socket = createConnection({ host: '127.0.0.1', port: address.port });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', resolve);
      client.once('error', reject);
    });
    closers.unshift(async () => {
      client.destroy();
    });

    const sockets = await readProcessTcpSockets('self');
    const remote = `127.0.0.1:${address.port}`;
    expect(establishedByRemote(sockets).get(remote)).toBe(1);
    expect(sockets.some((s) => s.state === 'LISTEN' && s.localAddress === remote)).toBe(true);
  });
});
