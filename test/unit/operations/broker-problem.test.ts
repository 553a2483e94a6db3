/**
 * Broker problems named as what they are (operations/broker-problem.ts): a missing topic or group is not
 * an unreachable broker.
 */
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { NoMasterError } from '../../../src/client/no-master-error.js';
import { brokerProblemLine, brokerProblemOf } from '../../../src/operations/broker-problem.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';

const refusal = (code: number) =>
  new BrokerError({ code, requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC, address: '10.0.0.1:9876' });
const context = { what: 'the route of topic Orders', topic: 'Orders', group: 'orders-lambda' };

describe('brokerProblemOf', () => {
  it('names TOPIC_NOT_EXIST and SUBSCRIPTION_GROUP_NOT_EXIST', () => {
    expect(brokerProblemOf(refusal(ResponseCode.TOPIC_NOT_EXIST), context)).toEqual({
      kind: 'topic-missing',
      message: 'topic Orders does not exist (said 10.0.0.1:9876)',
    });
    expect(brokerProblemOf(refusal(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST), context)).toEqual({
      kind: 'group-missing',
      message: 'consumer group orders-lambda does not exist (said 10.0.0.1:9876)',
    });
  });

  it('tells a refusal, a missing route, another answer and no answer apart', () => {
    expect(brokerProblemOf(refusal(ResponseCode.NO_PERMISSION), context).kind).toBe('refused');
    expect(brokerProblemOf(new NoMasterError('broker-a', 'Orders'), context)).toEqual({
      kind: 'no-route',
      message: 'the route of topic Orders: no master address known for broker broker-a of Orders',
    });
    expect(brokerProblemOf(refusal(ResponseCode.SYSTEM_BUSY), context).kind).toBe('failed');
    expect(brokerProblemOf(new ProtocolError('bad frame'), context).kind).toBe('failed');
    expect(brokerProblemOf(new Error('connect ECONNREFUSED 10.0.0.1:9876'), context)).toEqual({
      kind: 'unreachable',
      message: 'the route of topic Orders: connect ECONNREFUSED 10.0.0.1:9876',
    });
  });
});

describe('brokerProblemLine', () => {
  it('says a missing topic as a sentence, the rest after a label', () => {
    expect(brokerProblemLine('topic Orders does not exist', 'topic-missing')).toBe(
      'topic Orders does not exist',
    );
    expect(brokerProblemLine('x', 'unreachable')).toBe('broker unreachable: x');
    expect(brokerProblemLine('x', undefined)).toBe('broker unreachable: x');
    expect(brokerProblemLine('x', 'no-route')).toBe('no route: x');
    expect(brokerProblemLine('x', 'refused')).toBe('refused by the broker: x');
    expect(brokerProblemLine('x', 'failed')).toBe('broker error: x');
  });
});
