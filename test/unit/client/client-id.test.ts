import { describe, expect, it } from 'vitest';
import { createClientId, localIp } from '../../../src/client/client-id.js';

describe('createClientId', () => {
  it('is ip@pid#unique', () => {
    const id = createClientId({ ip: '10.1.2.3' });
    expect(id).toMatch(new RegExp(`^10\\.1\\.2\\.3@${process.pid}#[0-9a-z]+-\\d+-[0-9a-f]{6}$`));
  });

  it('never repeats within a process', () => {
    const ids = new Set(Array.from({ length: 5000 }, () => createClientId()));
    expect(ids.size).toBe(5000);
  });

  it('uses a fixed instance name when given', () => {
    expect(createClientId({ ip: '1.2.3.4', instanceName: 'poller-a' })).toBe('1.2.3.4@poller-a');
  });

  it('defaults to a local IPv4 address', () => {
    expect(localIp()).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(createClientId().startsWith(`${localIp()}@`)).toBe(true);
  });
});
