/**
 * `npm run demo`: the local loop in one command. Starts `rocketmq-lambda dev --local-broker` on the repo's
 * serverless.yml (a local RocketMQ, the embedded DynamoDB under .rocketmq-lambda/demo, the poller with the
 * example handlers in-process), then sends sample messages with our producer for about 20 s: JSON orders
 * tagged `order` / `refund` to Orders (the concurrent `orders` function) and ordered ledger entries to
 * Ledger (the orderly `ledger` function, one account per queue). The handlers' JSON lines appear on stdout.
 * Keeps running as a dev loop afterwards; Ctrl-C stops everything it started and exits 0, except the local
 * broker: kept up 15 minutes for the next run (src/local-broker/kept-broker.ts), whose first invocation
 * then skips the JVMs' boot. `--keep-broker <minutes>` changes that (0: stop it with the demo),
 * `--stop-broker` stops a kept broker now.
 * `npm run demo -- --timings` also prints the start-up timeline (startup-timeline.ts) at the first invocation.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { ProducerMessage } from '../client/producer.js';
import type { DevSession } from '../dev/dev-session.js';
import { startKeptBroker } from '../local-broker/kept-broker.js';
import { KEPT_BROKER_DIR } from '../local-broker/kept-broker-files.js';
import { DEV_STATE_DIR } from '../serverless-service/dev-state-file.js';
import { abortableSleep } from '../util/abortable-sleep.js';
import { suppressAwsSdkNodeVersionWarning } from '../util/aws-sdk-node-warning.js';
import { describeError } from '../util/describe-error.js';
import { formatMinutes } from '../util/format-minutes.js';
import { componentLogger, rootLogger } from '../util/logger.js';
import { formatStartupTimeline, markStartupPhase } from '../util/startup-timeline.js';
import { demoOptions } from './demo-options.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE_DURATION_MS = 20_000;
const SAMPLE_INTERVAL_MS = 400;
/** A second Ctrl-C later than this after the first exits at once. */
const REPEATED_SIGNAL_MS = 2_000;
/** Ledger accounts: each keeps to one queue of Ledger, so its entries stay in order. */
const ACCOUNTS = ['acct-A', 'acct-B'] as const;

/** The n-th sample: orders and refunds to Orders, alternating with ledger entries to Ledger. */
function sample(n: number): { message: ProducerMessage; queueId?: number } {
  if (n % 2 === 0) {
    const orderId = 1000 + n / 2;
    const refund = n % 6 === 4;
    return {
      message: {
        topic: 'Orders',
        tags: refund ? 'refund' : 'order',
        keys: [`order-${orderId}`],
        body: JSON.stringify({ orderId, total: refund ? 0 : Math.round(((n * 7.3) % 100) * 100) / 100 }),
      },
    };
  }
  const index = (n - 1) / 2;
  const accountIndex = index % ACCOUNTS.length;
  const account = ACCOUNTS[accountIndex] ?? 'acct-A';
  const entry = { account, seq: Math.floor(index / ACCOUNTS.length) + 1, amount: (index % 5) - 2 };
  return {
    message: { topic: 'Ledger', tags: 'entry', keys: [account], body: JSON.stringify(entry) },
    queueId: accountIndex,
  };
}

/** How demo-launch.mjs loaded this module: from its bundle ('reused' or 'built'), or its sources. */
function loadedAs(): string {
  const as = (globalThis as Record<symbol, unknown>)[Symbol.for('rocketmq-lambda.demo-loaded-as')];
  return typeof as === 'string' ? as : 'sources';
}

async function main(): Promise<number> {
  const as = loadedAs();
  markStartupPhase(as === 'sources' ? 'node, tsx and imports' : `node and imports (demo bundle ${as})`);
  // As the CLI's main.ts does for every command: the demo is its own entry point.
  suppressAwsSdkNodeVersionWarning();
  const options = demoOptions(process.argv.slice(2));
  if (typeof options === 'string') {
    console.error(`demo: ${options}`);
    return 2;
  }
  const stateDir = path.join(REPO, DEV_STATE_DIR, 'demo');
  const keptDir = path.join(stateDir, KEPT_BROKER_DIR);
  if (options.action === 'stop-broker') {
    const { stopKeptBroker } = await import('../local-broker/kept-broker.js');
    const stopped = await stopKeptBroker(keptDir);
    console.log(
      stopped === undefined
        ? 'No kept local broker was running.'
        : `Stopped the kept local broker (${stopped}).`,
    );
    return 0;
  }
  const { timings, keepBrokerMs } = options;
  const level = process.env.LOG_LEVEL ?? 'warn';
  const logger = pino({ level }, process.stdout);
  // Some components log through the root logger: the same level keeps the handlers' lines readable.
  rootLogger.level = level;
  const log = componentLogger('demo', logger);

  const stopping = new AbortController();
  let firstSignalAtMs: number | undefined;
  const onSignal = (): void => {
    // npm (and tsx, when run from the sources) relay a Ctrl-C to this process too: repeats within a
    // moment are the same Ctrl-C.
    if (firstSignalAtMs !== undefined) {
      if (Date.now() - firstSignalAtMs > REPEATED_SIGNAL_MS) process.exit(130);
      return;
    }
    firstSignalAtMs = Date.now();
    console.log(
      `\nStopping (the producer, the poller, the embedded DynamoDB${keepBrokerMs === undefined ? ' and the local broker' : ''})...`,
    );
    stopping.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  console.log(
    `${keepBrokerMs === undefined ? 'Starting a local RocketMQ 5.3.3' : 'Taking the local RocketMQ an earlier run kept, or starting one,'} and \`rocketmq-lambda dev\` on serverless.yml (the first run downloads the broker jars through Maven)...`,
  );
  // The kept broker first: taken at once, or its host starts the JVMs, which boot (seconds) while the dev
  // loop's modules load (the poller, the AWS SDK, the console). Only what starts it is imported above.
  const keep =
    keepBrokerMs === undefined
      ? undefined
      : {
          dir: keptDir,
          idleMs: keepBrokerMs,
          started: startKeptBroker({
            dir: keptDir,
            idleMs: keepBrokerMs,
            log: componentLogger('dev', logger),
          }),
        };
  const { startInBackground } = await import('../dev/dev-background-starts.js');
  const starting = startInBackground({ kind: 'broker', keep }, stateDir, logger);
  let session: DevSession;
  let sending: Promise<void> | undefined;
  try {
    const [{ startDevSession }, { consoleLine, useLocalCredentials }] = await Promise.all([
      import('../dev/dev-session.js'),
      import('./dev-command.js'),
    ]).catch((error: unknown) => {
      starting.abandon(log);
      throw error;
    });
    markStartupPhase('dev loop imported');
    useLocalCredentials(process.env);
    session = await startDevSession({
      starting,
      // The samples go out as soon as the topics exist: the poller's first pulls find them waiting.
      onLocalTopics: (nameServer) => {
        sending = sendSamples(nameServer, stopping.signal, log).catch((error: unknown) =>
          log.error({ err: error }, 'sending samples failed'),
        );
      },
      configFile: path.join(REPO, 'serverless.yml'),
      env: process.env,
      localBroker: true,
      keepBroker: keep,
      stateDir,
      logger,
      stdout: process.stdout,
      tty: process.stdout.isTTY === true,
      console: options.console,
      onConsole: (url) => console.log(consoleLine(url)),
      onFirstInvocation: (msSinceStart) => {
        console.log(
          `First handler invocation ${(performance.now() / 1000).toFixed(1)} s after the process started (${msSinceStart} ms after dev started).`,
        );
        if (timings) console.log(formatStartupTimeline());
      },
    });
  } catch (error) {
    stopping.abort();
    await sending;
    // Ctrl-C during the start: what failed after it (a killed `serverless print`) is its echo.
    if (firstSignalAtMs !== undefined) {
      console.log('Stopped before the demo started.');
      return 130;
    }
    console.error(`demo: could not start: ${describeError(error)}`);
    return 1;
  }
  const stopSession = (): void => {
    session.stop().catch((error: unknown) => log.error({ err: error }, 'stopping dev failed'));
  };
  if (stopping.signal.aborted) stopSession();
  else stopping.signal.addEventListener('abort', stopSession, { once: true });

  const reused = session.local?.reused === true;
  console.log(
    `Local RocketMQ at ${session.nameServer}${reused ? ', kept from an earlier run' : ''} (${(performance.now() / 1000).toFixed(1)} s after the process started). Sample messages go to Orders and Ledger for ${SAMPLE_DURATION_MS / 1000} s from the moment the topics existed; the handlers' lines follow. Ctrl-C to stop.`,
  );
  const exit = await session.stopped;
  stopping.abort();
  await sending;
  if (keep !== undefined && session.local?.keptForMs !== undefined) {
    console.log(
      `The local RocketMQ stays up ${formatMinutes(keep.idleMs)} for the next \`npm run demo\` (\`npm run demo -- --stop-broker\` stops it now, \`--keep-broker 0\` does not keep it).`,
    );
  }
  for (const { mapping, error } of exit.failures) {
    console.error(`demo: mapping ${mapping} failed: ${describeError(error)}`);
  }
  return exit.failures.length === 0 ? 0 : 1;
}

/** Sends a sample every {@link SAMPLE_INTERVAL_MS} for {@link SAMPLE_DURATION_MS}, or until `signal`. */
async function sendSamples(
  nameServer: string,
  signal: AbortSignal,
  log: ReturnType<typeof componentLogger>,
): Promise<void> {
  const [{ Producer }, { RocketMQClient }] = await Promise.all([
    import('../client/producer.js'),
    import('../client/rocketmq-client.js'),
  ]);
  const client = new RocketMQClient({ nameServerAddresses: nameServer.split(';') });
  const producer = new Producer({ client, producerGroup: 'rocketmq-lambda-demo' });
  try {
    await producer.start();
    const deadline = Date.now() + SAMPLE_DURATION_MS;
    let sent = 0;
    for (let n = 0; Date.now() < deadline && !signal.aborted; n++) {
      const { message, queueId } = sample(n);
      try {
        await producer.send(message, queueId === undefined ? {} : { queueId });
        sent += 1;
      } catch (error) {
        log.warn({ err: error, topic: message.topic }, 'a sample message was not sent');
      }
      await abortableSleep(SAMPLE_INTERVAL_MS, signal);
    }
    if (!signal.aborted) {
      console.log(`Sent ${sent} sample messages. Still running as a dev loop: Ctrl-C to stop.`);
    }
  } finally {
    await producer.shutdown();
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
