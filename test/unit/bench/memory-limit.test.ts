import { describe, expect, it } from 'vitest';
import { memoryCgroupOf, memoryLimitWrapper } from '../../../bench/memory-limit.js';

describe('memoryCgroupOf', () => {
  it("finds cgroup v1's memory controller line, whichever controllers share it", () => {
    const v1 = '9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n';
    expect(memoryCgroupOf(v1)).toEqual({ version: 1, dir: '/sys/fs/cgroup/memory/process_api/abc' });
    expect(memoryCgroupOf('5:cpu,memory:/job\n', '/cg')).toEqual({ version: 1, dir: '/cg/memory/job' });
  });

  it('falls back to the unified v2 line, and to nothing without either', () => {
    expect(memoryCgroupOf('0::/user.slice/session-1.scope\n')).toEqual({
      version: 2,
      dir: '/sys/fs/cgroup/user.slice/session-1.scope',
    });
    expect(memoryCgroupOf('3:cpuset:/\n')).toBeUndefined();
  });
});

describe('memoryLimitWrapper', () => {
  it('refuses a limit that is no whole number of MiB or too small for node', async () => {
    await expect(memoryLimitWrapper(0.5)).rejects.toThrow(
      'a memory limit is a whole number of MiB, at least 64; got 0.5',
    );
    await expect(memoryLimitWrapper(16)).rejects.toThrow('at least 64; got 16');
  });
});
