import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../../src/network/address.js';
import { NetworkError } from '../../../src/network/errors.js';

describe('parseAddress', () => {
  it.each([
    ['127.0.0.1:9876', '127.0.0.1', 9876],
    ['broker-a.internal:10911', 'broker-a.internal', 10911],
    ['[::1]:10911', '::1', 10911],
    ['::1:10911', '::1', 10911],
    ['fe80::1:2:10909', 'fe80::1:2', 10909],
  ])('splits %s at the last colon', (address, host, port) => {
    expect(parseAddress(address)).toEqual({ host, port });
  });

  it.each(['127.0.0.1', ':9876', '127.0.0.1:', '127.0.0.1:0', '127.0.0.1:65536', 'host:12ab', '[]:1'])(
    'rejects %s with a non-retriable NetworkError',
    (address) => {
      let caught: unknown;
      try {
        parseAddress(address);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(NetworkError);
      expect(caught).toMatchObject({ address, retriable: false });
    },
  );
});
