import { describe, expect, it } from 'vitest';
import { ClientRequestHandler } from '../../../src/client/client-request-handler.js';
import { parseConsumerRunningInfo } from '../../../src/protocol/bodies.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';

const request = (code: number, extFields: Record<string, string>, flag = 0): RemotingCommand => ({
  code,
  language: 'JAVA',
  version: 479,
  opaque: 9,
  flag,
  extFields,
});

describe('ClientRequestHandler', () => {
  it('dispatches NOTIFY_CONSUMER_IDS_CHANGED to every listener, even when one throws', async () => {
    const handler = new ClientRequestHandler();
    const seen: string[] = [];
    handler.onConsumerIdsChanged(() => {
      throw new Error('boom');
    });
    const stop = handler.onConsumerIdsChanged((group) => seen.push(group));
    await handler.handle(request(40, { consumerGroup: 'G' }, 2));
    expect(seen).toEqual(['G']);
    stop();
    await handler.handle(request(40, { consumerGroup: 'G' }, 2));
    expect(seen).toEqual(['G']);
  });

  it('answers GET_CONSUMER_RUNNING_INFO from the group provider', async () => {
    const handler = new ClientRequestHandler();
    handler.setRunningInfoProvider('G', ({ clientId, jstackEnable }) => ({
      properties: { PROP_CLIENT_ID: clientId, JSTACK: String(jstackEnable) },
      subscriptionSet: [],
      mqTable: [{ queue: { topic: 'T', brokerName: 'b', queueId: 3 }, info: { commitOffset: 4 } }],
    }));
    const response = await handler.handle(
      request(307, { consumerGroup: 'G', clientId: 'me', jstackEnable: 'false' }),
    );
    expect(response?.code).toBe(0);
    const info = parseConsumerRunningInfo(response?.body);
    expect(info.properties).toEqual({ PROP_CLIENT_ID: 'me', JSTACK: 'false' });
    expect(info.mqTable[0]?.queue.queueId).toBe(3);
  });

  it('answers code 1 for a group this client does not run, and undefined for other codes', async () => {
    const handler = new ClientRequestHandler();
    const remove = handler.setRunningInfoProvider('G', () => ({
      properties: {},
      subscriptionSet: [],
      mqTable: [],
    }));
    remove();
    expect(await handler.handle(request(307, { consumerGroup: 'G', clientId: 'me' }))).toEqual({
      code: 1,
      remark: 'The Consumer Group <G> not exist in this consumer',
    });
    expect(await handler.handle(request(309, {}))).toBeUndefined();
  });

  it('rejects a notify without consumerGroup', async () => {
    await expect(new ClientRequestHandler().handle(request(40, {}, 2))).rejects.toThrow(/no consumerGroup/);
  });
});
