/**
 * The arguments of the standalone launcher (`npm run broker -- [--cluster [--groups n] [--slaves n]]`,
 * main.ts): one broker by default, or a local cluster.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../util/error-message.js';
import { LocalBrokerError } from './local-broker-error.js';

/**
 * What to start.
 */
export type LauncherArgs =
  | { kind: 'broker' }
  | { kind: 'cluster'; brokerGroups: number; slavesPerGroup: number }
  | { kind: 'help' };

/** What `npm run broker -- --help` prints. */
export const LAUNCHER_USAGE = [
  'usage: npm run broker -- [--cluster [--groups <n>] [--slaves <n>]]',
  '  (no option)    one namesrv and one broker (broker-a)',
  '  --cluster      a namesrv and broker groups broker-a, broker-b, ... instead',
  '  --groups <n>   broker groups of the cluster (default 2)',
  '  --slaves <n>   slaves of each master (default 0)',
  'ROCKETMQ_LAMBDA_BROKER_VERSION picks the RocketMQ version (default 5.3.3).',
].join('\n');

/**
 * Parses the launcher's arguments; throws {@link LocalBrokerError} on unknown options or bad counts.
 */
export function parseLauncherArgs(argv: readonly string[]): LauncherArgs {
  let values: { cluster?: boolean; groups?: string; slaves?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        cluster: { type: 'boolean' },
        groups: { type: 'string' },
        slaves: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (cause) {
    throw new LocalBrokerError(errorMessage(cause), { cause });
  }
  if (values.help === true) return { kind: 'help' };
  if (values.cluster !== true) {
    if (values.groups !== undefined || values.slaves !== undefined) {
      throw new LocalBrokerError('--groups and --slaves need --cluster');
    }
    return { kind: 'broker' };
  }
  return {
    kind: 'cluster',
    brokerGroups: count('--groups', values.groups, 2, 1),
    slavesPerGroup: count('--slaves', values.slaves, 0, 0),
  };
}

function count(flag: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min) {
    throw new LocalBrokerError(`${flag} must be an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}
