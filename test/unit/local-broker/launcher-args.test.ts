import { describe, expect, it } from 'vitest';
import { parseLauncherArgs } from '../../../src/local-broker/launcher-args.js';
import { LocalBrokerError } from '../../../src/local-broker/local-broker-error.js';

describe('parseLauncherArgs (npm run broker)', () => {
  it('starts one broker without options, a cluster of 2 masters with --cluster', () => {
    expect(parseLauncherArgs([])).toEqual({ kind: 'broker' });
    expect(parseLauncherArgs(['--cluster'])).toEqual({ kind: 'cluster', brokerGroups: 2, slavesPerGroup: 0 });
    expect(parseLauncherArgs(['--cluster', '--groups', '3', '--slaves', '1'])).toEqual({
      kind: 'cluster',
      brokerGroups: 3,
      slavesPerGroup: 1,
    });
    expect(parseLauncherArgs(['--help'])).toEqual({ kind: 'help' });
  });

  it('refuses unknown options, counts without --cluster, and bad counts', () => {
    for (const argv of [
      ['--clusterr'],
      ['--slaves', '1'],
      ['--cluster', '--groups', '0'],
      ['--cluster', '--slaves', '-1'],
      ['--cluster', '--groups', 'two'],
      ['extra'],
    ]) {
      expect(() => parseLauncherArgs(argv), argv.join(' ')).toThrow(LocalBrokerError);
    }
  });
});
