import { describe, expect, it } from 'vitest';
import { Connection } from '../../../src/network/connection.js';
import { answerInboundRequest } from '../../../src/network/inbound-request.js';
import {
  decodeFrame,
  FLAG_ONEWAY,
  FLAG_RESPONSE,
  type RemotingCommand,
} from '../../../src/protocol/remoting-command.js';
import { componentLogger } from '../../../src/util/logger.js';

const connection = new Connection({ address: '127.0.0.1:9' });
const logger = componentLogger('test');

function request(flag = 0): RemotingCommand {
  return { code: 307, language: 'JAVA', version: 479, opaque: 42, flag, extFields: {} };
}

async function answer(flag: number, handler: Parameters<typeof answerInboundRequest>[2]) {
  const frame = await answerInboundRequest(request(flag), connection, handler, logger);
  return frame === undefined ? undefined : decodeFrame(frame.subarray(4));
}

describe('answerInboundRequest', () => {
  it('encodes the handler response as a JSON reply with our language and version', async () => {
    const reply = await answer(0, () => ({ code: 0, body: Buffer.from('x') }));
    expect(reply).toMatchObject({ code: 0, opaque: 42, flag: FLAG_RESPONSE, language: 'JAVA', version: 401 });
    expect(reply?.body?.toString()).toBe('x');
  });

  it('answers 1 SYSTEM_ERROR when the response cannot be encoded (frame above 16 MiB)', async () => {
    const reply = await answer(0, () => ({ code: 0, body: Buffer.alloc(16 * 1024 * 1024) }));
    expect(reply).toMatchObject({ code: 1, opaque: 42, flag: FLAG_RESPONSE });
    expect(reply?.remark).toContain('16 MiB');
    expect(reply?.body).toBeUndefined();
  });

  it('returns nothing for a oneway request, whatever the handler does', async () => {
    expect(await answer(FLAG_ONEWAY, () => ({ code: 0 }))).toBeUndefined();
    expect(await answer(FLAG_ONEWAY, undefined)).toBeUndefined();
    expect(
      await answer(FLAG_ONEWAY, () => {
        throw new Error('ignored');
      }),
    ).toBeUndefined();
  });
});
