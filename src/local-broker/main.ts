/**
 * `npm run broker`: starts a local RocketMQ (namesrv + broker, or with `-- --cluster` a namesrv and
 * broker groups, launcher-args.ts), prints the addresses and keeps them up until Ctrl-C (SIGINT) or
 * SIGTERM, then stops them cleanly.
 */

import { describeError } from '../util/describe-error.js';
import { selectedBrokerVersion } from './broker-version.js';
import { LAUNCHER_USAGE, type LauncherArgs, parseLauncherArgs } from './launcher-args.js';
import { startLocalBroker } from './local-broker.js';
import { startLocalCluster } from './local-cluster.js';

/** What was started: its address lines, and how to stop it. */
interface Started {
  lines: string[];
  namesrvAddr: string;
  stop(): Promise<void>;
}

async function start(what: Exclude<LauncherArgs, { kind: 'help' }>): Promise<Started> {
  if (what.kind === 'broker') {
    const broker = await startLocalBroker();
    return {
      lines: [
        `  namesrv: ${broker.namesrvAddr}`,
        `  broker:  ${broker.brokerAddr} (${broker.brokerName}, cluster ${broker.clusterName})`,
        `  logs:    ${broker.logDir}`,
      ],
      namesrvAddr: broker.namesrvAddr,
      stop: () => broker.stop(),
    };
  }
  const cluster = await startLocalCluster({
    brokerGroups: what.brokerGroups,
    slavesPerGroup: what.slavesPerGroup,
  });
  return {
    lines: [
      `  namesrv: ${cluster.namesrvAddr} (cluster ${cluster.clusterName})`,
      ...cluster.nodes.map(
        (node) =>
          `  broker:  ${node.address} (${node.brokerName}, ${node.role === 'master' ? 'master' : `slave ${node.brokerId}`})`,
      ),
      `  logs:    ${cluster.logDir}`,
      // autoCreateTopicEnable: a first send creates a topic on the master it went to only.
      '  topics:  auto-created by a first send on one master; `rocketmq-lambda dev --local-cluster` creates them on every master',
    ],
    namesrvAddr: cluster.namesrvAddr,
    stop: () => cluster.stop(),
  };
}

async function main(): Promise<void> {
  let what: LauncherArgs;
  try {
    what = parseLauncherArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${describeError(error)}\n${LAUNCHER_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (what.kind === 'help') {
    process.stdout.write(`${LAUNCHER_USAGE}\n`);
    return;
  }
  const startedAt = Date.now();
  const version = selectedBrokerVersion().name;
  const shape =
    what.kind === 'broker'
      ? ''
      : ` cluster (${what.brokerGroups} broker groups, ${what.slavesPerGroup} slave(s) each)`;
  process.stdout.write(
    `starting a local RocketMQ ${version}${shape} (first run downloads the jars with Maven)...\n`,
  );
  const started = await start(what);
  process.stdout.write(
    [
      `local RocketMQ ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
      ...started.lines,
      `  export NAMESRV_ADDR=${started.namesrvAddr}`,
      'press Ctrl-C to stop',
      '',
    ].join('\n'),
  );
  await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write('stopping...\n');
  await started.stop();
  process.stdout.write('stopped\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${describeError(err)}\n`);
  process.exitCode = 1;
});
