import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { NameServerClient } from '../../../src/client/name-server-client.js';
import { ConnectError } from '../../../src/network/errors.js';
import { FakeTransport } from './fake-transport.js';

const ROUTE = Buffer.from(
  '{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"a","cluster":"C"}],' +
    '"queueDatas":[{"brokerName":"a","perm":6,"readQueueNums":1,"topicSysFlag":0,"writeQueueNums":1}]}',
);

/** A client whose name servers fail as `answer` says, logging into `lines`. */
function clientOf(answer: (address: string) => { code: number; body?: Buffer; remark?: string }) {
  const lines: { msg: string; address?: string; suppressed?: number }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const transport = new FakeTransport(({ address }) => answer(address));
  const client = new NameServerClient({ addresses: ['down:1', 'odd:2', 'up:3'], transport, logger });
  return { client, lines };
}

describe('NameServerClient warnings (a failing name server is asked again within seconds)', () => {
  it('says once per name server and kind of failure, not once per lookup', async () => {
    let healthy = false;
    const { client, lines } = clientOf((address) => {
      if (address === 'down:1') throw new ConnectError('refused', { address });
      if (address === 'odd:2') return { code: 0, body: Buffer.from('{"brokerDatas":') };
      return healthy ? { code: 0, body: ROUTE } : { code: 1, remark: 'name server not ready' };
    });
    for (let i = 0; i < 10; i++) await client.queryRoute('T').catch(() => undefined);
    expect(lines.map((line) => `${line.address}: ${line.msg}`)).toEqual([
      'down:1: name server request failed, trying the next one',
      'odd:2: name server sent an unusable route, trying the next one',
      'up:3: name server refused, trying the next one',
    ]);
    healthy = true;
    await client.queryRoute('T');
    // The refusals held back are counted when the name server answers again.
    expect(lines.at(-1)).toMatchObject({
      address: 'up:3',
      msg: 'name server refused, trying the next one',
      suppressed: 8,
    });
  });
});
