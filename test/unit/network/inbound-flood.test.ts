/**
 * A peer that floods us with GET_CONSUMER_RUNNING_INFO (307) and does not read our replies. Before the
 * inbound budget, 300,000 of them took a poller from 78 to 353 MB RSS for good: every request was
 * answered and every reply queued. Now reading pauses at the bound, TCP pushes back on the peer, and
 * the flood completes only as fast as the peer reads.
 */
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/network/connection.js';
import { MAX_INBOUND_REPLY_BYTES, MAX_INBOUND_REQUESTS } from '../../../src/network/inbound-budget.js';
import { encodeFrame, FrameSplitter } from '../../../src/protocol/remoting-command.js';
import { expectQuietFor, waitForQuiet } from '../../support/quiet-window.js';
import { FakeServer, waitFor } from './fake-server.js';

const FLOOD_REQUESTS = 300_000;
const FRAMES_PER_WRITE = 512;
const MiB = 1024 * 1024;

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Writes `total` copies of `frame` as fast as the socket takes them; `blocked` while it waits for drain. */
function flood(socket: net.Socket, frame: Buffer, total: number) {
  const batch = Buffer.concat(Array.from({ length: FRAMES_PER_WRITE }, () => frame));
  const state = { sent: 0, blocked: false };
  const pump = (): void => {
    state.blocked = false;
    while (state.sent < total && !socket.destroyed) {
      const count = Math.min(FRAMES_PER_WRITE, total - state.sent);
      const accepted = socket.write(
        count === FRAMES_PER_WRITE ? batch : batch.subarray(0, count * frame.length),
      );
      state.sent += count;
      if (!accepted) {
        state.blocked = true;
        socket.once('drain', pump);
        return;
      }
    }
  };
  pump();
  return state;
}

describe('a peer that floods inbound requests and never reads the replies', () => {
  it('keeps pending inbound requests and queued reply bytes under the bound, then drains', async () => {
    const server = await FakeServer.start();
    cleanups.push(() => server.close());
    const peak = { inboundPending: 0, queuedReplyBytes: 0, queuedBytes: 0 };
    let handled = 0;
    const reply = { code: 0, body: Buffer.from('{"properties":{},"subscriptionSet":[],"mqTable":{}}') };
    const connection: Connection = new Connection({
      address: server.address,
      requestHandler: () => {
        handled++;
        // Sampled at every admission, where the pending count peaks.
        peak.inboundPending = Math.max(peak.inboundPending, connection.inboundPending);
        peak.queuedReplyBytes = Math.max(peak.queuedReplyBytes, connection.queuedReplyBytes);
        return reply;
      },
    });
    cleanups.push(() => connection.close());
    await connection.request({ code: 34 }, 2000);

    const peer = server.lastPeer.socket;
    peer.removeAllListeners('data');
    peer.pause();
    const heapBefore = process.memoryUsage().heapUsed;
    const sampler = setInterval(() => {
      peak.queuedReplyBytes = Math.max(peak.queuedReplyBytes, connection.queuedReplyBytes);
      peak.queuedBytes = Math.max(peak.queuedBytes, connection.queuedBytes);
      peak.inboundPending = Math.max(peak.inboundPending, connection.inboundPending);
    }, 2);
    cleanups.push(async () => clearInterval(sampler));
    const request = encodeFrame({
      code: 307,
      language: 'JAVA',
      version: 479,
      opaque: 1,
      flag: 0,
      extFields: { consumerGroup: 'G', clientId: '127.0.0.1@1', jstackEnable: 'false' },
    });
    const writer = flood(peer, request, FLOOD_REQUESTS);

    // Phase 1: the peer reads nothing. We stop reading, and the peer's writes back up.
    await waitFor(() => connection.isReadingPaused && writer.blocked, 20_000);
    // Requests read before the pause are still being answered; nothing announces the last one, so
    // watch the count until it holds still for a while (a link that kept reading would never hold).
    await waitForQuiet('requests handled while paused', { windowMs: 300, timeoutMs: 20_000 }, () => handled);
    expect(connection.isReadingPaused).toBe(true);
    expect(writer.sent).toBeLessThan(FLOOD_REQUESTS);
    expect(handled).toBeLessThan(FLOOD_REQUESTS);
    expect(peak.inboundPending).toBeLessThanOrEqual(MAX_INBOUND_REQUESTS);
    expect(peak.queuedReplyBytes).toBeLessThanOrEqual(MAX_INBOUND_REPLY_BYTES);
    expect(connection.inboundPending).toBeLessThanOrEqual(MAX_INBOUND_REQUESTS);
    // Loose sanity check (the process also holds the fake peer): nowhere near the 275 MB of before.
    const heapGrowthBytes = process.memoryUsage().heapUsed - heapBefore;
    expect(heapGrowthBytes).toBeLessThan(64 * MiB);

    // Phase 2: the peer reads (and only counts) the replies; the whole flood gets answered.
    const splitter = new FrameSplitter();
    let replies = 0;
    peer.on('data', (chunk: Buffer) => {
      replies += splitter.push(chunk).length;
    });
    peer.resume();
    await waitFor(() => replies === FLOOD_REQUESTS, 120_000);
    expect(handled).toBe(FLOOD_REQUESTS);
    expect(peak.inboundPending).toBeLessThanOrEqual(MAX_INBOUND_REQUESTS);
    expect(peak.queuedReplyBytes).toBeLessThanOrEqual(MAX_INBOUND_REPLY_BYTES);
    await waitFor(() => connection.inboundPending === 0 && connection.queuedBytes === 0);
    expect(connection.queuedReplyBytes).toBe(0);
    expect(connection.isReadingPaused).toBe(false);
    expect(connection.isOpen).toBe(true);
  }, 180_000);

  it('a link paused on a flood is not mistaken for a stalled frame', async () => {
    const server = await FakeServer.start();
    cleanups.push(() => server.close());
    let handled = 0;
    const connection = new Connection({
      address: server.address,
      partialFrameTimeoutMs: 100,
      requestHandler: () => {
        handled++;
        return { code: 0, body: Buffer.alloc(200, 1) };
      },
    });
    cleanups.push(() => connection.close());
    await connection.request({ code: 34 }, 2000);
    const peer = server.lastPeer.socket;
    peer.removeAllListeners('data');
    peer.pause();
    const total = 40_000;
    const request = encodeFrame({
      code: 307,
      language: 'JAVA',
      version: 479,
      opaque: 7,
      flag: 0,
      extFields: {},
    });
    flood(peer, request, total);
    await waitFor(() => connection.isReadingPaused, 20_000);
    // The first pauses are brief: the kernel takes our replies and reading resumes (a plaintext link
    // reads again at the loop's next poll). Once the peer's receive and our send buffers are full, the
    // pause lasts until the peer reads: wait for that, no request handled for a while.
    await waitForQuiet('requests handled while paused', { windowMs: 300, timeoutMs: 20_000 }, () => handled);
    expect(handled).toBeLessThan(total);
    // Paused far longer than partialFrameTimeoutMs, very likely with half a frame buffered: the
    // stalled-frame timer would close the link, an absence only a window can show.
    await expectQuietFor('the paused link (open, paused, requests handled)', 500, () => [
      connection.isOpen,
      connection.isReadingPaused,
      handled,
    ]);
    expect(connection.isOpen).toBe(true);
    expect(connection.isReadingPaused).toBe(true);

    const splitter = new FrameSplitter();
    let replies = 0;
    peer.on('data', (chunk: Buffer) => {
      replies += splitter.push(chunk).length;
    });
    peer.resume();
    await waitFor(() => replies === total, 60_000);
    expect(connection.isOpen).toBe(true);
  }, 90_000);
});
