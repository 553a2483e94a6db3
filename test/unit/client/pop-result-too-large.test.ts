/**
 * A POP answer whose messages of two queues are interleaved with messages too large to inflate: the
 * receipts follow the body's order per queue, so every message (too large or not) gets the receipt of its
 * own offset, and the too-large ones come apart, in body order.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toPopResult } from '../../../src/client/pop-result.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';

const ZLIB = MessageSysFlag.COMPRESSED | MessageSysFlag.COMPRESSION_ZLIB;
const BOMB = deflateSync(Buffer.alloc(2 * 1024 * 1024));

describe('toPopResult with messages too large to inflate', () => {
  it('gives every message the receipt of its own offset, and parts the too-large ones', () => {
    // Queue 0: 10 (too large), 11, 12 (too large); queue 1: 20, 21 (too large), 22; interleaved.
    const layout: [queueId: number, queueOffset: number, bomb: boolean][] = [
      [0, 10, true],
      [1, 20, false],
      [0, 11, false],
      [1, 21, true],
      [0, 12, true],
      [1, 22, false],
    ];
    const body = encodeStoredMessages(
      layout.map(([queueId, queueOffset, bomb]) => ({
        topic: 'T',
        queueId,
        queueOffset,
        physicalOffset: 1000 + queueOffset,
        properties: { UNIQ_KEY: `id-${queueId}-${queueOffset}` },
        ...(bomb ? { storedBody: BOMB, sysFlag: ZLIB } : { body: Buffer.from(`m${queueOffset}`) }),
      })),
    );
    const response: RemotingCommand = {
      code: 0,
      language: 'JAVA',
      version: 479,
      opaque: 1,
      flag: 1,
      body,
      extFields: {
        popTime: '1',
        invisibleTime: '60000',
        reviveQid: '0',
        restNum: '0',
        startOffsetInfo: '0 0 10;0 1 20',
        msgOffsetInfo: '0 0 10,11,12;0 1 20,21,22',
        orderCountInfo: '',
      },
    };
    const result = toPopResult(response, 'broker:10911', 'broker-a', { maxBodyBytes: 1024 * 1024 });
    if (result.status !== 'FOUND') throw new Error(`not FOUND: ${result.status}`);
    expect(result.messages.map((p) => p.message.queueOffset)).toEqual([20, 11, 22]);
    expect(result.tooLarge?.map((t) => t.popped.message.queueOffset)).toEqual([10, 21, 12]);
    for (const popped of [...result.messages, ...(result.tooLarge ?? []).map((t) => t.popped)]) {
      expect([popped.receipt.queueId, popped.receipt.queueOffset]).toEqual([
        popped.message.queueId,
        popped.message.queueOffset,
      ]);
      expect(popped.receipt.ckQueueOffset).toBe(popped.message.queueId === 0 ? 10 : 20);
    }
    expect(result.tooLarge?.[0]?.reason).toMatch(/^body inflates past 1048576 bytes/);
  });
});
