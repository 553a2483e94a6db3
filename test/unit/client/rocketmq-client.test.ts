import { describe, expect, it } from 'vitest';
import { RocketMQClient, signCommand } from '../../../src/client/rocketmq-client.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';

const command = (flag: number): RemotingCommand => ({
  code: 11,
  language: 'JAVA',
  version: 401,
  opaque: 1,
  flag,
  extFields: { topic: 'TopicTest', queueId: '0' },
  body: Buffer.from('hello'),
});

describe('signCommand', () => {
  it('signs requests with the ACL test vector of docs/protocol.md', () => {
    const signed = signCommand(command(0), { accessKey: 'rocketmq2', secretKey: '12345678' });
    expect(signed.extFields).toEqual({
      topic: 'TopicTest',
      queueId: '0',
      AccessKey: 'rocketmq2',
      Signature: 'av6ifRlR0Kuh217rwHVyMZt8mg4=',
    });
  });

  it('leaves replies unsigned', () => {
    const reply = command(1);
    expect(signCommand(reply, { accessKey: 'a', secretKey: 'b' })).toBe(reply);
  });
});

describe('RocketMQClient', () => {
  it('gives every instance its own client id and closes idempotently', async () => {
    const a = new RocketMQClient({ nameServerAddresses: '127.0.0.1:9876' });
    const b = new RocketMQClient({ nameServerAddresses: ['127.0.0.1:9876'], clientIp: '10.0.0.1' });
    expect(a.clientId).not.toBe(b.clientId);
    expect(b.clientId.startsWith('10.0.0.1@')).toBe(true);
    expect(new RocketMQClient({ nameServerAddresses: 'x:1', clientId: 'fixed@1' }).clientId).toBe('fixed@1');
    await a.close();
    await a.close();
    await b.close();
  });
});
