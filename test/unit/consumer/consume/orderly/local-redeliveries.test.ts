import { describe, expect, it } from 'vitest';
import { LocalRedeliveries } from '../../../../../src/consumer/consume/orderly/local-redeliveries.js';
import { msg } from '../../fakes.js';

describe('LocalRedeliveries', () => {
  it('shows a record never redelivered as it is', () => {
    const message = msg(0, { reconsumeTimes: 2 });
    const redeliveries = new LocalRedeliveries();
    expect(redeliveries.viewOf(message)).toBe(message);
    expect(redeliveries.failuresOf(message)).toBe(2);
  });

  it('raises reconsumeTimes per redelivery, but counts only blamed ones as failures', () => {
    const message = msg(0, { reconsumeTimes: 1 });
    const redeliveries = new LocalRedeliveries();
    redeliveries.redelivered(message, false); // queued behind a failed record
    redeliveries.redelivered(message, true); // failed itself
    redeliveries.redelivered(message, true);
    expect(redeliveries.viewOf(message).reconsumeTimes).toBe(4);
    expect(redeliveries.failuresOf(message)).toBe(3);
    expect(message.reconsumeTimes).toBe(1); // the stored record is not changed
  });

  it('keeps records apart by object, so a record pulled again starts afresh', () => {
    const first = msg(0);
    const again = msg(0);
    const redeliveries = new LocalRedeliveries();
    redeliveries.redelivered(first, true);
    expect(redeliveries.failuresOf(first)).toBe(1);
    expect(redeliveries.failuresOf(again)).toBe(0);
    expect(redeliveries.viewOf(again)).toBe(again);
  });
});
