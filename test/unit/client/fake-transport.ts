import type { RemotingTransport } from '../../../src/client/transport.js';
import type { RemotingRequest } from '../../../src/network/connection.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';

/** A recorded request. */
export interface SentRequest {
  address: string;
  request: RemotingRequest;
  timeoutMs: number | undefined;
  oneway: boolean;
}

/** A reply the fake builds: a response, or an error to throw. */
export type FakeReply = Partial<RemotingCommand> & { code: number };

/** A RemotingTransport whose answers come from `respond`; records every request. */
export class FakeTransport implements RemotingTransport {
  readonly sent: SentRequest[] = [];

  constructor(private readonly respond: (sent: SentRequest) => FakeReply | Promise<FakeReply>) {}

  async request(address: string, request: RemotingRequest, timeoutMs: number): Promise<RemotingCommand> {
    const sent: SentRequest = { address, request, timeoutMs, oneway: false };
    this.sent.push(sent);
    const reply = await this.respond(sent);
    return { language: 'JAVA', version: 479, opaque: 1, flag: 1, extFields: {}, ...reply };
  }

  async oneway(address: string, request: RemotingRequest): Promise<void> {
    this.sent.push({ address, request, timeoutMs: undefined, oneway: true });
  }
}
