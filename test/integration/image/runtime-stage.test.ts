/**
 * The poller image without a Docker engine: infra/docker/Dockerfile's stages are replayed on the host
 * (see runtime-stage.ts: the build stage's `npm run build`, the runtime stage's own `npm ci` flags, its
 * dist/ copy, bin link, chmod and writable directory), then the image's ENTRYPOINT and HEALTHCHECK run
 * from the runtime stage's files only, with the image's ENV and USER, against the real broker. A missing
 * production dependency, a devDependency imported at run time, a wrong bin link or a broken `health`
 * command fails here.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { RUN_DEFAULTS } from '../../../src/config/config-schema.js';
import { offsetFilePath } from '../../../src/offsets/file-offset-store.js';
import { parseOffsetFile } from '../../../src/offsets/offset-file.js';
import { LOCAL_OFFSETS_INSTANCE } from '../../../src/poller/offset-stores.js';
import { parseMessageQueueKey } from '../../../src/protocol/message-queue.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { planStages, type StagePlan } from './dockerfile-stages.js';
import { type ImageProcess, type ReplayedImage, replayImage } from './runtime-stage.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DOCKERFILE = path.join(REPO, 'infra/docker/Dockerfile');
const QUEUES = 4;
/** A `local:` handler a user would add to the image: appends each record's messageId to $LEDGER_FILE. */
const LEDGER_HANDLER = `import { appendFileSync } from 'node:fs';
export async function handler(event) {
  appendFileSync(process.env.LEDGER_FILE, event.Records.map((record) => \`\${record.messageId}\\n\`).join(''));
  return {};
}
`;

/** The runtime (final) stage's plan; fails with what is missing when the Dockerfile's shape changed. */
async function runtimePlan(): Promise<
  StagePlan & { entrypoint: readonly string[]; healthcheck: readonly string[] }
> {
  const runtime = planStages(await readFile(DOCKERFILE, 'utf8'), DOCKERFILE).at(-1);
  if (runtime === undefined) throw new Error(`${DOCKERFILE}: no FROM, so no runtime stage`);
  const { entrypoint, healthcheck } = runtime;
  if (entrypoint === undefined)
    throw new Error(`${DOCKERFILE}: the runtime stage "${runtime.name}" has no ENTRYPOINT`);
  if (healthcheck === undefined) {
    throw new Error(`${DOCKERFILE}: the runtime stage "${runtime.name}" has no HEALTHCHECK CMD`);
  }
  return { ...runtime, entrypoint, healthcheck };
}

/** stderr without Node's process warnings. */
function withoutNodeWarnings(stderr: string): string {
  return stderr.replace(/^\(node:\d+\) \w*Warning:[\s\S]*?to show where the warning was created\)\n/gm, '');
}

/** The JSON log lines of a process's stdout. */
function logLines(child: ImageProcess): { level?: unknown; msg?: unknown }[] {
  return child
    .stdout()
    .split('\n')
    .slice(0, -1) // the last piece is an unfinished line
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level?: unknown; msg?: unknown });
}

function logMessages(child: ImageProcess): unknown[] {
  return logLines(child).map((line) => line.msg);
}

let image: ReplayedImage | undefined;

function replayed(): ReplayedImage {
  if (image === undefined) throw new Error('the image was not replayed (see the beforeAll error)');
  return image;
}

/** Starts `argv` from the image; SIGKILLed at the end of the test if still running. */
function startInImage(argv: readonly string[], env: Record<string, string> = {}): ImageProcess {
  const started = replayed().start(argv, env);
  let done = false;
  started.exited.then(
    () => {
      done = true;
    },
    (error: unknown) => {
      done = true;
      process.stderr.write(`[image] ${String(error)}\n`);
    },
  );
  onTestFinished(async () => {
    if (done) return;
    started.child.kill('SIGKILL');
    await started.exited;
  });
  return started;
}

beforeAll(async () => {
  image = await replayImage({
    dockerfile: DOCKERFILE,
    context: REPO,
    // The CI job ran `npm ci` just before: npm's cache holds every tarball.
    extraNpmCiFlags: ['--prefer-offline'],
  });
}, 300_000);

afterAll(async () => {
  await image?.remove();
});

describe('infra/docker/Dockerfile, runtime stage replayed on the host', () => {
  it('installs production dependencies only, runs with NODE_ENV=production, links the package bin', async () => {
    const runtime = await runtimePlan();
    const npmCi = runtime.steps.flatMap((step) =>
      step.kind === 'run' && step.command.kind === 'npm-ci' ? [step.command.flags] : [],
    );
    expect(npmCi, 'the runtime stage runs exactly one npm ci').toHaveLength(1);
    expect(npmCi[0]).toContain('--omit=dev');
    expect(runtime.env.NODE_ENV).toBe('production');
    const { bin } = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const program = runtime.entrypoint[0] ?? '';
    const links = runtime.steps.flatMap((step) =>
      step.kind === 'run' &&
      step.command.kind === 'symlink' &&
      path.posix.basename(step.command.link) === program
        ? [path.posix.relative(step.workdir, path.posix.resolve(step.workdir, step.command.target))]
        : [],
    );
    expect(links, `the ENTRYPOINT's ${program} is linked to package.json's bin`).toEqual([
      path.posix.normalize(bin[program] ?? `(no bin named ${program} in package.json)`),
    ]);
    expect(runtime.healthcheck.slice(0, 1)).toEqual([program]);
  });

  it('the production install holds no devDependency package, and every dependency', async () => {
    const image = replayed();
    const lock = JSON.parse(await readFile(image.hostPath('package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([key, entry]) => key !== '' && entry.dev === true)
      .map(([key]) => key);
    expect(devOnly.length).toBeGreaterThan(0);
    expect(devOnly.filter((key) => existsSync(image.hostPath(key)))).toEqual([]);
    for (const name of ['vitest', 'typescript', '@biomejs/biome', 'serverless']) {
      expect(existsSync(image.hostPath(`node_modules/${name}`)), name).toBe(false);
    }
    const { dependencies } = JSON.parse(await readFile(image.hostPath('package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const missing = Object.keys(dependencies).filter(
      (name) => !existsSync(image.hostPath(`node_modules/${name}`)),
    );
    expect(missing).toEqual([]);
  });

  it('the ENTRYPOINT program answers --version from the image', async () => {
    const runtime = await runtimePlan();
    const { version } = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    const cli = startInImage([runtime.entrypoint[0] ?? '', '--version']);
    expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
    expect(cli.stdout()).toBe(`${version}\n`);
  });

  it('ENTRYPOINT consumes with a local: handler, HEALTHCHECK passes, SIGTERM stops it with exit 0 and offsets at the queue ends', async () => {
    const image = replayed();
    const runtime = await runtimePlan();
    const topic = uniqueTopic('image');
    const group = uniqueGroup('image');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);

    await writeFile(image.hostPath('handler.mjs'), LEDGER_HANDLER);
    const ledger = image.hostPath('/tmp/ledger.txt');
    const config = {
      nameServer: testBroker().namesrvAddr,
      shutdownTimeoutMs: 10_000,
      // The default path, .rocketmq-lambda/offsets under the WORKDIR: the directory the image prepares.
      offsets: { store: 'file' },
      mappings: [
        {
          name: 'ledger',
          topic,
          consumerGroup: group,
          function: 'local:./handler.mjs#handler',
          startingPosition: 'TRIM_HORIZON',
          maximumBatchingWindowMs: 20,
        },
      ],
    };
    // The heartbeat goes where the image's ROCKETMQ_LAMBDA_HEALTH_FILE says, for run and health alike.
    const heartbeatFile = runtime.env.ROCKETMQ_LAMBDA_HEALTH_FILE;
    if (heartbeatFile === undefined) throw new Error('the image sets no ROCKETMQ_LAMBDA_HEALTH_FILE');
    const poller = startInImage(runtime.entrypoint, {
      ROCKETMQ_LAMBDA_CONFIG: JSON.stringify(config),
      LEDGER_FILE: ledger,
    });
    const started = await waitFor('the poller to start', 30_000, async () => {
      if (logMessages(poller).includes('poller started')) return 'started';
      const exit = await Promise.race([poller.exited, Promise.resolve(undefined)]);
      return exit === undefined ? undefined : `exited with ${JSON.stringify(exit)}`;
    }).catch((error: unknown) => String(error));
    if (started !== 'started') {
      throw new Error(
        `the poller did not start: ${started}\nstderr:\n${poller.stderr()}\nstdout:\n${poller.stdout()}`,
      );
    }

    const producer = await newProducer(client);
    const sent = await produce(producer, topic, 200, { queues: QUEUES, batch: 25 });
    await waitFor('every message in the ledger', 30_000, async () => {
      const seen = new Set(existsSync(ledger) ? (await readFile(ledger, 'utf8')).split('\n') : []);
      return sent.every((id) => seen.has(id)) ? true : undefined;
    });

    const health = startInImage(runtime.healthcheck);
    expect(await health.exited, health.stderr()).toEqual({ code: 0, signal: null });
    expect(health.stdout()).toMatch(/^healthy: /);
    expect(existsSync(path.join(image.root, heartbeatFile))).toBe(true);

    poller.child.kill(runtime.stopSignal);
    expect(await poller.exited, poller.stderr()).toEqual({ code: 0, signal: null });
    expect(withoutNodeWarnings(poller.stderr())).toBe('');
    expect(logMessages(poller).at(-1)).toBe('stopped');
    // pino levels: 50 error, 60 fatal (e.g. an offsets directory the image's USER cannot write).
    expect(logLines(poller).filter((line) => typeof line.level === 'number' && line.level >= 50)).toEqual([]);

    const handled = (await readFile(ledger, 'utf8')).split('\n').filter((line) => line !== '');
    expect(handled.sort()).toEqual([...sent].sort());

    const offsetsFile = offsetFilePath(
      image.hostPath(RUN_DEFAULTS.offsetsPath),
      LOCAL_OFFSETS_INSTANCE,
      group,
    );
    const read = parseOffsetFile(await readFile(offsetsFile, 'utf8'));
    if (read.kind !== 'ok') throw new Error(`${offsetsFile}: ${read.kind}`);
    const stored = new Map<number, number>();
    for (const [key, offset] of read.offsets) {
      const queue = parseMessageQueueKey(key);
      if (queue.topic === topic) stored.set(queue.queueId, offset);
    }
    const ends = new Map<number, number>();
    for (let queueId = 0; queueId < QUEUES; queueId++) {
      ends.set(queueId, await client.broker.getMaxOffset(testBroker().brokerAddr, { topic, queueId }));
    }
    expect(stored).toEqual(ends);

    // Stopped: the heartbeat is gone, so the HEALTHCHECK now fails.
    const afterStop = startInImage(runtime.healthcheck);
    expect((await afterStop.exited).code).toBe(1);
    expect(afterStop.stderr()).toContain('no heartbeat file');
  });
});
