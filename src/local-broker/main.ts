/**
 * `npm run broker`: starts a local RocketMQ (namesrv + broker), prints their addresses and keeps
 * them up until Ctrl-C (SIGINT) or SIGTERM, then stops them cleanly.
 */

import { describeError } from '../util/describe-error.js';
import { startLocalBroker } from './local-broker.js';

async function main(): Promise<void> {
  const startedAt = Date.now();
  process.stdout.write('starting a local RocketMQ 5.3.3 (first run downloads the jars with Maven)...\n');
  const broker = await startLocalBroker();
  process.stdout.write(
    [
      `local RocketMQ ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
      `  namesrv: ${broker.namesrvAddr}`,
      `  broker:  ${broker.brokerAddr} (${broker.brokerName}, cluster ${broker.clusterName})`,
      `  logs:    ${broker.logDir}`,
      `  export NAMESRV_ADDR=${broker.namesrvAddr}`,
      'press Ctrl-C to stop',
      '',
    ].join('\n'),
  );
  await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write('stopping...\n');
  await broker.stop();
  process.stdout.write('stopped\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${describeError(err)}\n`);
  process.exitCode = 1;
});
