import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signingContent, signRequest } from '../../../src/protocol/acl-signer.js';

describe('signingContent', () => {
  it('concatenates values sorted by key, then the body (docs/protocol.md, ACL signing)', () => {
    const content = signingContent(
      { topic: 'TopicTest', AccessKey: 'rocketmq2', queueId: '0' },
      Buffer.from('hello'),
    );
    expect(content.toString('utf8')).toBe('rocketmq20TopicTesthello');
  });

  it('leaves Signature out and works without a body', () => {
    expect(signingContent({ b: '2', Signature: 'old', a: '1' }, undefined).toString()).toBe('12');
    expect(signingContent({ a: '1' }, Buffer.alloc(0)).toString()).toBe('1');
    expect(signingContent({}, Buffer.from([1, 2])).equals(Buffer.from([1, 2]))).toBe(true);
  });

  it('sorts keys by UTF-16 code units like a Java TreeMap', () => {
    // Java TreeMap order: 'AccessKey' (0x41), U+1F600 (surrogate 0xD83D), U+FB01 (0xFB01).
    const content = signingContent(
      { '\uFB01': '2', '\u{1F600}': '1', AccessKey: 'ak', zeta: 'z', Zeta: 'Z' },
      undefined,
    );
    expect(content.toString('utf8')).toBe('akZz12');
  });
});

describe('signRequest', () => {
  it('reproduces the ACL test vector of docs/protocol.md', () => {
    const signed = signRequest({ topic: 'TopicTest', queueId: '0' }, Buffer.from('hello'), {
      accessKey: 'rocketmq2',
      secretKey: '12345678',
    });
    expect(signed).toEqual({
      topic: 'TopicTest',
      queueId: '0',
      AccessKey: 'rocketmq2',
      Signature: 'av6ifRlR0Kuh217rwHVyMZt8mg4=',
    });
  });

  // Signatures below were printed by Java 17 running the AclClientRPCHook algorithm
  // (TreeMap over extFields without Signature, values as UTF-8, body appended, HmacSHA1, Base64).
  const tokenFields = {
    topic: '订单Topic',
    consumerGroup: 'g',
    Zeta: 'z',
    alpha: 'a',
    été: 'summer',
    Signature: 'ignored',
  };
  const tokenCredentials = { accessKey: 'ak', secretKey: 'sk-秘密', securityToken: 'tok' };

  it('signs the SecurityToken, non-ASCII keys/values/secret, and replaces a stale Signature', () => {
    const signed = signRequest(tokenFields, undefined, tokenCredentials);
    expect(signed.SecurityToken).toBe('tok');
    expect(signed.AccessKey).toBe('ak');
    expect(signed.Signature).toBe('vImDU/gRHd/rBG4wdPmlo69SGYo=');
    expect(tokenFields.Signature).toBe('ignored');
  });

  it('appends binary bodies byte for byte', () => {
    const signed = signRequest(tokenFields, Buffer.from([0, 0xff, 10, 13]), tokenCredentials);
    expect(signed.Signature).toBe('u+BCQNAblqq39mqJ4o3xOgSruGQ=');
  });

  it('orders surrogate-pair keys before high BMP keys, as Java does', () => {
    const signed = signRequest({ '\u{1F600}': '1', '\uFB01': '2' }, undefined, {
      accessKey: 'ak',
      secretKey: 'k',
    });
    expect(signed.Signature).toBe('MbUdcvjT7OtsMSXq+CyNUPKw+CU=');
  });

  it('overrides caller-supplied AccessKey and omits SecurityToken when not configured', () => {
    const signed = signRequest({ AccessKey: 'someone-else' }, undefined, { accessKey: 'me', secretKey: 's' });
    expect(signed.AccessKey).toBe('me');
    expect(signed).not.toHaveProperty('SecurityToken');
  });

  it('always equals HmacSHA1 over the signing content of the returned fields', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), { maxKeys: 6 }),
        fc.option(
          fc.uint8Array({ maxLength: 32 }).map((a) => Buffer.from(a)),
          { nil: undefined },
        ),
        fc.string({ unit: 'grapheme', minLength: 1 }),
        (extFields, body, secretKey) => {
          const signed = signRequest(extFields, body, { accessKey: 'ak', secretKey });
          const expected = createHmac('sha1', secretKey)
            .update(signingContent(signed, body))
            .digest('base64');
          expect(signed.Signature).toBe(expected);
          for (const key of Object.keys(extFields)) {
            if (key !== 'Signature' && key !== 'AccessKey') expect(signed[key]).toBe(extFields[key]);
          }
        },
      ),
    );
  });
});
