import { describe, expect, it } from 'vitest';
import { splitHostPort } from '../../../src/util/split-host-port.js';

describe('splitHostPort', () => {
  it('splits at the last colon and strips brackets', () => {
    expect(splitHostPort('10.0.0.5:10911')).toEqual({ host: '10.0.0.5', port: 10911 });
    expect(splitHostPort('broker.example.com:1')).toEqual({ host: 'broker.example.com', port: 1 });
    expect(splitHostPort('fd00::1:10911')).toEqual({ host: 'fd00::1', port: 10911 });
    expect(splitHostPort('::1:65535')).toEqual({ host: '::1', port: 65535 });
    expect(splitHostPort('[fd00::1]:10911')).toEqual({ host: 'fd00::1', port: 10911 });
  });

  it('keeps port 0 (a message id born at an unknown port); callers that connect refuse it', () => {
    expect(splitHostPort('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('returns undefined for addresses without a host or a valid port', () => {
    for (const address of ['', 'host', ':10911', 'host:', 'host:65536', 'host:-1', 'host:1a', '[]:1']) {
      expect(splitHostPort(address), address).toBeUndefined();
    }
  });
});
