import { describe, expect, it } from 'vitest';
import { BrokerOffsetSync } from '../../../../src/consumer/consume/broker-offset-sync.js';
import { MemoryOffsetStore } from '../../../../src/offsets/memory-offset-store.js';
import type { UpdateConsumerOffsetRequestHeader } from '../../../../src/protocol/headers.js';
import { rootLogger } from '../../../../src/util/logger.js';

const queue = { topic: 'T', brokerName: 'broker-a', queueId: 2 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(masters: Record<string, string> = { 'broker-a': '10.0.0.1:10911' }) {
  const sent: Array<{ address: string; header: UpdateConsumerOffsetRequestHeader }> = [];
  const offsetStore = new MemoryOffsetStore();
  const sync = new BrokerOffsetSync({
    broker: {
      updateConsumerOffsetOneway: async (address, header) => {
        sent.push({ address, header });
      },
    },
    masterAddress: (brokerName) => masters[brokerName],
    offsetStore,
    consumerGroup: 'G',
    log: rootLogger,
    intervalMs: 40,
  });
  return { sent, offsetStore, sync };
}

describe('BrokerOffsetSync', () => {
  it('tells the master of a moved offset at once, then at most once per interval with the latest value', async () => {
    const t = setup();
    t.offsetStore.updateOffset(queue, 10, true);
    t.sync.moved(queue);
    await sleep(10);
    expect(t.sent).toEqual([
      {
        address: '10.0.0.1:10911',
        header: { consumerGroup: 'G', topic: 'T', queueId: 2, commitOffset: 10, bname: 'broker-a' },
      },
    ]);
    for (const offset of [11, 12, 13]) {
      t.offsetStore.updateOffset(queue, offset, true);
      t.sync.moved(queue);
    }
    await sleep(10);
    expect(t.sent).toHaveLength(1); // within the interval: held back
    await sleep(60);
    expect(t.sent.map((s) => s.header.commitOffset)).toEqual([10, 13]);
    t.sync.moved(queue); // unchanged: nothing to tell
    await sleep(60);
    expect(t.sent).toHaveLength(2);
    t.sync.stop();
  });

  it('sends no oneway for an offset a pull already carried to the master, and sends one that moved past it', async () => {
    const t = setup();
    t.offsetStore.updateOffset(queue, 10, true);
    t.sync.moved(queue);
    await sleep(10);
    expect(t.sent.map((s) => s.header.commitOffset)).toEqual([10]);
    t.offsetStore.updateOffset(queue, 20, true);
    t.sync.moved(queue);
    t.sync.carried(queue, 20); // the next pull took 20 to the master before the interval ended
    await sleep(60);
    expect(t.sent.map((s) => s.header.commitOffset)).toEqual([10]);
    t.offsetStore.updateOffset(queue, 30, true);
    t.sync.moved(queue);
    t.sync.carried(queue, 25); // a pull sent before the batch that reached 30 ended
    t.sync.carried(queue, 15); // an older value never lowers what the master is known to have
    await sleep(60);
    expect(t.sent.map((s) => s.header.commitOffset)).toEqual([10, 30]);
    t.sync.stop();
  });

  it('holds a move back for an interval after a pull carried the offset, so pulls that keep coming carry it instead', async () => {
    const t = setup();
    t.sync.carried(queue, 10); // a pull took 10 to the master
    t.offsetStore.updateOffset(queue, 20, true);
    t.sync.moved(queue); // a batch ended just after: the oneway waits out the interval
    await sleep(5);
    expect(t.sent).toEqual([]);
    t.sync.carried(queue, 20); // the next pull of the drain carried 20 before the interval ended
    await sleep(60);
    expect(t.sent).toEqual([]);
    t.offsetStore.updateOffset(queue, 30, true);
    t.sync.moved(queue); // no pull carries 30 (caught up: the pull waits at the broker): the oneway goes out
    await sleep(60);
    expect(t.sent.map((s) => s.header.commitOffset)).toEqual([30]);
    t.sync.stop();
  });

  it('waits out a whole interval after the latest pull, and then sends what that pull did not carry', async () => {
    const t = setup(); // interval 40 ms
    t.sync.carried(queue, 10);
    t.offsetStore.updateOffset(queue, 20, true);
    t.sync.moved(queue); // due 40 ms after the pull that carried 10
    await sleep(25);
    t.sync.carried(queue, 15); // a pull sent before the batch that reached 20 ended: the wait starts again
    await sleep(25);
    expect(t.sent).toEqual([]); // 50 ms after the first pull, 25 after the latest
    await sleep(50);
    expect(t.sent.map((s) => s.header.commitOffset)).toEqual([20]);
    t.sync.stop();
  });

  it('sends nothing for a queue forgotten or after stop, nor without a known master', async () => {
    const t = setup({});
    t.offsetStore.updateOffset(queue, 5, true);
    t.sync.moved(queue);
    await sleep(20);
    expect(t.sent).toEqual([]); // no master known
    const u = setup();
    u.offsetStore.updateOffset(queue, 5, true);
    u.sync.moved(queue);
    u.sync.forget(queue);
    u.sync.stop();
    u.sync.moved(queue);
    await sleep(20);
    expect(u.sent).toEqual([]);
  });
});
