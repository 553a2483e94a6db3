import { describe, expect, it } from 'vitest';
import {
  describeDeadLetter,
  redriveMessageOf,
  topicOfPopRetryTopic,
} from '../../../src/operations/dead-letter.js';
import { deadLetter, deadLetterIdentity } from './dlq-fixtures.js';

describe('describeDeadLetter', () => {
  it('reads the origin the broker recorded: RETRY_TOPIC and ORIGIN_MESSAGE_ID', () => {
    const message = deadLetter(4);
    expect(describeDeadLetter(message)).toMatchObject({
      dlqOffset: 4,
      ...deadLetterIdentity(message),
      tags: 'created',
      keys: ['order-4', 'x'],
      userProperties: { tenant: 't1' },
    });
  });

  it("prefers a proxy's DLQ_ORIGIN_TOPIC / DLQ_ORIGIN_MESSAGE_ID", () => {
    const message = deadLetter(0);
    message.properties.DLQ_ORIGIN_TOPIC = 'Payments';
    message.properties.DLQ_ORIGIN_MESSAGE_ID = 'ORIGIN';
    expect(describeDeadLetter(message)).toMatchObject({ originalTopic: 'Payments', originalMsgId: 'ORIGIN' });
  });

  it("reads a POP group's retry topic in RETRY_TOPIC (a message that failed after a retry) as its topic", () => {
    for (const retryTopic of ['%RETRY%G_Orders', '%RETRY%G+Orders']) {
      const message = deadLetter(0);
      message.properties.RETRY_TOPIC = retryTopic;
      expect(describeDeadLetter(message, 'G').originalTopic).toBe('Orders');
      // Another group's retry topic, or no group to read it with, stays as recorded.
      expect(describeDeadLetter(message, 'H').originalTopic).toBe(retryTopic);
      expect(describeDeadLetter(message).originalTopic).toBe(retryTopic);
      expect(redriveMessageOf(describeDeadLetter(message, 'G'), 'topic', 'G', 'Fallback').topic).toBe(
        'Orders',
      );
    }
  });

  it('topicOfPopRetryTopic splits after the group, whatever the topic and group contain', () => {
    expect(topicOfPopRetryTopic('%RETRY%my_group_my_topic', 'my_group')).toBe('my_topic');
    expect(topicOfPopRetryTopic('%RETRY%my_group+my+topic', 'my_group')).toBe('my+topic');
    expect(topicOfPopRetryTopic('%RETRY%my_group', 'my_group')).toBe('%RETRY%my_group');
    expect(topicOfPopRetryTopic('Orders', 'my_group')).toBe('Orders');
  });

  it('says undefined when no origin was recorded', () => {
    const message = deadLetter(0);
    delete message.properties.RETRY_TOPIC;
    delete message.properties.ORIGIN_MESSAGE_ID;
    expect(describeDeadLetter(message)).toMatchObject({ originalTopic: undefined, originalMsgId: undefined });
  });
});

describe('redriveMessageOf', () => {
  it('retry: to %RETRY%<group> with RETRY_TOPIC = the original topic, user properties kept, system ones dropped', () => {
    const message = redriveMessageOf(describeDeadLetter(deadLetter(2)), 'retry', 'G', 'Fallback');
    expect(message).toEqual({
      topic: '%RETRY%G',
      body: Buffer.from('{"order":2}'),
      tags: 'created',
      keys: ['order-2', 'x'],
      properties: { tenant: 't1', RETRY_TOPIC: 'Orders' },
    });
  });

  it('topic: to the original topic, no RETRY_TOPIC, no reconsume counters', () => {
    const message = redriveMessageOf(describeDeadLetter(deadLetter(2)), 'topic', 'G', 'Fallback');
    expect(message.topic).toBe('Orders');
    expect(message.properties).toEqual({ tenant: 't1' });
  });

  it("falls back to the mapping's topic when the broker recorded none, and keeps a user flag", () => {
    const letter = deadLetter(1, { flag: 7, tags: undefined, keys: [] });
    delete letter.properties.RETRY_TOPIC;
    const retry = redriveMessageOf(describeDeadLetter(letter), 'retry', 'G', 'Fallback');
    expect(retry).toMatchObject({ topic: '%RETRY%G', flag: 7, tags: undefined, keys: undefined });
    expect(retry.properties?.RETRY_TOPIC).toBe('Fallback');
    expect(redriveMessageOf(describeDeadLetter(letter), 'topic', 'G', 'Fallback').topic).toBe('Fallback');
  });
});
