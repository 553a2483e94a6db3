import { describe, expect, it } from 'vitest';
import {
  InboundBudget,
  MAX_INBOUND_REPLY_BYTES,
  MAX_INBOUND_REQUESTS,
} from '../../../src/network/inbound-budget.js';
import { componentLogger } from '../../../src/util/logger.js';

const base = { address: '127.0.0.1:10911', logger: componentLogger('test.inbound-budget') };

function recordingGate() {
  const calls: string[] = [];
  return { calls, gate: { pause: () => calls.push('pause'), resume: () => calls.push('resume') } };
}

describe('InboundBudget', () => {
  it('pauses at the request bound and resumes at half of it', () => {
    const { calls, gate } = recordingGate();
    const budget = new InboundBudget(gate, { ...base, maxRequests: 4, maxReplyBytes: 1000 });
    const tickets = [budget.admit(), budget.admit(), budget.admit()];
    expect(calls).toEqual([]);
    tickets.push(budget.admit());
    expect(calls).toEqual(['pause']);
    expect(budget).toMatchObject({ requests: 4, paused: true });
    tickets[0]?.release();
    expect(calls).toEqual(['pause']);
    tickets[1]?.release();
    expect(calls).toEqual(['pause', 'resume']);
    expect(budget).toMatchObject({ requests: 2, paused: false });
  });

  it('pauses at the reply-byte bound and resumes once the bytes are written', () => {
    const { calls, gate } = recordingGate();
    const budget = new InboundBudget(gate, { ...base, maxRequests: 100, maxReplyBytes: 1000 });
    const big = budget.admit();
    big.queueReply(1000);
    expect(calls).toEqual(['pause']);
    expect(budget.replyBytes).toBe(1000);
    big.release();
    expect(calls).toEqual(['pause', 'resume']);
    expect(budget).toMatchObject({ requests: 0, replyBytes: 0 });
  });

  it('release and queueReply are idempotent; a released ticket queues nothing', () => {
    const { gate } = recordingGate();
    const budget = new InboundBudget(gate, base);
    const ticket = budget.admit();
    ticket.queueReply(10);
    ticket.queueReply(10);
    expect(budget.replyBytes).toBe(10);
    ticket.release();
    ticket.release();
    ticket.queueReply(10);
    expect(budget).toMatchObject({ requests: 0, replyBytes: 0 });
  });

  it('defaults to the named bounds', () => {
    const { calls, gate } = recordingGate();
    const budget = new InboundBudget(gate, base);
    for (let i = 0; i < MAX_INBOUND_REQUESTS - 1; i++) budget.admit();
    expect(calls).toEqual([]);
    budget.admit();
    expect(calls).toEqual(['pause']);
    expect(MAX_INBOUND_REPLY_BYTES).toBe(4 * 1024 * 1024);
  });
});
