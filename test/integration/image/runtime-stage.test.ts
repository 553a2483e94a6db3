/**
 * The poller image without a Docker engine, built as a release builds it: from the package. `npm pack` of
 * the checkout (prepack builds dist/) is unpacked, and the package's own infra/docker/Dockerfile is replayed
 * on the host with that directory as the build context (see runtime-stage.ts: its .dockerignore, its own npm
 * flags, the bin link, chmod and writable directory); then the image's ENTRYPOINT and HEALTHCHECK run from
 * the replayed files only, with the image's ENV and USER, against the real broker. A file the package
 * lacks, a missing production dependency, a devDependency imported at run time, a wrong bin link, a native
 * addon without an arm64 binary or a broken `health` command fails here.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { RUN_DEFAULTS } from '../../../src/config/config-defaults.js';
import { offsetFilePath } from '../../../src/offsets/file-offset-store.js';
import { parseOffsetFile } from '../../../src/offsets/offset-file.js';
import { LOCAL_OFFSETS_INSTANCE } from '../../../src/poller/offset-stores.js';
import { parseMessageQueueKey } from '../../../src/protocol/message-queue.js';
import {
  PACKAGE_DOCKERFILE,
  PACKAGE_VERSION_BUILD_ARG,
} from '../../../src/serverless/poller-image-deploy.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { planStages, type StagePlan } from './dockerfile-stages.js';
import { contextFilter } from './dockerignore.js';
import { type PackedPackage, packedPackage } from './packed-package.js';
import { type ImageProcess, type ReplayedImage, replayImage } from './runtime-stage.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const QUEUES = 4;
/** The bar of issue 30 for the image's node_modules (file bytes; 68 MB on disk before the dev loop's tools left). */
const MAX_NODE_MODULES_BYTES = 25_000_000;
/** A `local:` handler a user would add to the image: appends each record's messageId to $LEDGER_FILE. */
const LEDGER_HANDLER = `import { appendFileSync } from 'node:fs';
export async function handler(event) {
  appendFileSync(process.env.LEDGER_FILE, event.Records.map((record) => \`\${record.messageId}\\n\`).join(''));
  return {};
}
`;

interface Manifest {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
}

interface InstalledPackage {
  readonly name: string;
  readonly dir: string;
  readonly manifest: {
    version?: string;
    scripts?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
}

let pkg: PackedPackage | undefined;
let image: ReplayedImage | undefined;

function packed(): PackedPackage {
  if (pkg === undefined) throw new Error('the package was not packed (see the beforeAll error)');
  return pkg;
}

function replayed(): ReplayedImage {
  if (image === undefined) throw new Error('the image was not replayed (see the beforeAll error)');
  return image;
}

/** The packed package's Dockerfile. */
function dockerfile(): string {
  return path.join(packed().dir, PACKAGE_DOCKERFILE);
}

async function packedManifest(): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(packed().dir, 'package.json'), 'utf8')) as Manifest;
}

/** The runtime (final) stage's plan; fails with what is missing when the Dockerfile's shape changed. */
async function runtimePlan(): Promise<
  StagePlan & { entrypoint: readonly string[]; healthcheck: readonly string[] }
> {
  const runtime = planStages(await readFile(dockerfile(), 'utf8'), dockerfile()).at(-1);
  if (runtime === undefined) throw new Error(`${dockerfile()}: no FROM, so no runtime stage`);
  const { entrypoint, healthcheck } = runtime;
  if (entrypoint === undefined)
    throw new Error(`${dockerfile()}: the runtime stage "${runtime.name}" has no ENTRYPOINT`);
  if (healthcheck === undefined) {
    throw new Error(`${dockerfile()}: the runtime stage "${runtime.name}" has no HEALTHCHECK CMD`);
  }
  return { ...runtime, entrypoint, healthcheck };
}

/** The npm commands (the words after `npm`) the runtime stage runs, in order. */
function npmCommands(runtime: StagePlan): (readonly string[])[] {
  return runtime.steps.flatMap((step) =>
    step.kind === 'run' && step.command.kind === 'npm' ? [step.command.args] : [],
  );
}

/** Every package under `nodeModules`, nested node_modules included. */
async function installedPackages(nodeModules: string): Promise<InstalledPackage[]> {
  if (!existsSync(nodeModules)) return [];
  const found: InstalledPackage[] = [];
  for (const entry of await readdir(nodeModules)) {
    if (entry.startsWith('.')) continue; // .bin, .package-lock.json
    const names = entry.startsWith('@')
      ? (await readdir(path.join(nodeModules, entry))).map((scoped) => `${entry}/${scoped}`)
      : [entry];
    for (const name of names) {
      const dir = path.join(nodeModules, name);
      const manifest = JSON.parse(
        await readFile(path.join(dir, 'package.json'), 'utf8'),
      ) as InstalledPackage['manifest'];
      found.push({ name, dir, manifest }, ...(await installedPackages(path.join(dir, 'node_modules'))));
    }
  }
  return found;
}

/** Bytes and files under `dir`. */
async function treeSize(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
    files++;
  }
  return { bytes, files };
}

/** Whether `dir/prebuilds/<platform>` holds a glibc `.node` binary (the base image is Debian). */
async function hasPrebuild(dir: string, platform: string): Promise<boolean> {
  const prebuilds = path.join(dir, 'prebuilds', platform);
  if (!existsSync(prebuilds)) return false;
  return (await readdir(prebuilds)).some((file) => file.endsWith('.node') && !file.includes('musl'));
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
  const packedAt = Date.now();
  pkg = await packedPackage();
  const replayAt = Date.now();
  image = await replayImage({
    dockerfile: dockerfile(),
    context: pkg.dir,
    // The CI job ran `npm ci` just before: npm's cache holds the tarballs (the package documents are
    // fetched: a package carries no lockfile).
    extraNpmInstallFlags: ['--prefer-offline'],
  });
  const { bytes, files } = await treeSize(image.hostPath('node_modules'));
  const packages = (await installedPackages(image.hostPath('node_modules'))).length;
  process.stdout.write(
    `[image] npm pack ${replayAt - packedAt} ms, replay ${Date.now() - replayAt} ms; node_modules ${bytes} bytes, ${files} files, ${packages} packages\n`,
  );
}, 300_000);

afterAll(async () => {
  await image?.remove();
  await pkg?.remove();
});

describe('infra/docker/Dockerfile, replayed from the packed package', () => {
  it('ships in the package with its .dockerignore and builds one stage from node:22-bookworm-slim, compiling nothing, naming no architecture', async () => {
    const { files } = packed();
    expect(files).toEqual(
      expect.arrayContaining([PACKAGE_DOCKERFILE, `${PACKAGE_DOCKERFILE}.dockerignore`, 'LICENSE']),
    );
    expect(await readFile(dockerfile(), 'utf8')).toBe(
      await readFile(path.join(REPO, PACKAGE_DOCKERFILE), 'utf8'),
    );
    // The context BuildKit sends: what the image copies, not the node_modules an installed package may hold.
    const { sends, ignoreFile } = await contextFilter(dockerfile(), packed().dir);
    expect(ignoreFile).toBe(`${dockerfile()}.dockerignore`);
    expect(files.filter(sends).filter((file) => !/^(package\.json|LICENSE|dist\/.*)$/.test(file))).toEqual(
      [],
    );
    expect(files.filter((file) => file.startsWith('dist/') && !sends(file))).toEqual([]);
    expect(sends('node_modules/zod/package.json')).toBe(false);
    const text = await readFile(dockerfile(), 'utf8');
    const stages = planStages(text, dockerfile());
    expect(stages.map((stage) => stage.base)).toEqual(['node:22-bookworm-slim']);
    const runtime = await runtimePlan();
    // `image: { build: true }` passes the package version under this name.
    expect(Object.keys(runtime.args)).toContain(PACKAGE_VERSION_BUILD_ARG);
    // No TypeScript build: npm only drops the devDependencies, installs and cleans its cache.
    expect(npmCommands(runtime).map((args) => args[0])).toEqual(['pkg', 'install', 'cache']);
    // Multi-platform from one file: no --platform, TARGETARCH or architecture name in any instruction.
    const instructions = text
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    expect(instructions).not.toMatch(
      /--platform|TARGET(ARCH|PLATFORM)|BUILDPLATFORM|amd64|arm64|x86_64|aarch64/i,
    );
  });

  it('installs production dependencies only, runs with NODE_ENV=production and a 16 MiB semi-space, links the package bin', async () => {
    const runtime = await runtimePlan();
    const installs = npmCommands(runtime).filter((args) => args[0] === 'install' || args[0] === 'ci');
    expect(installs, 'the runtime stage installs once').toHaveLength(1);
    expect(installs[0]).toContain('--omit=dev');
    expect(runtime.env.NODE_ENV).toBe('production');
    // V8 would size the young generation from a small task's memory (1 MiB at 512 MiB): the image pins it.
    expect(runtime.env.NODE_OPTIONS?.split(/\s+/)).toContain('--max-semi-space-size=16');
    const { bin } = await packedManifest();
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
    expect(runtime.user).toEqual({ uid: 1000, gid: 1000 });
  });

  it('installs every dependency at the version package.json pins, and no devDependency', async () => {
    const image = replayed();
    const { dependencies } = await packedManifest();
    const installed = await installedPackages(image.hostPath('node_modules'));
    // A package carries no lockfile: exact pins are what keeps two builds of one version alike.
    for (const [name, spec] of Object.entries(dependencies)) {
      expect(spec, `${name} is pinned to an exact version`).toMatch(/^\d+\.\d+\.\d+$/);
      const top = installed.find((entry) => entry.dir === image.hostPath(`node_modules/${name}`));
      expect(top?.manifest.version, name).toBe(spec);
    }
    // Names that only the repository's devDependencies bring in must not be installed at all.
    const lock = JSON.parse(await readFile(path.join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const lockName = (key: string) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const entries = Object.entries(lock.packages).filter(([key]) => key.includes('node_modules/'));
    const prodNames = new Set(
      entries.filter(([, entry]) => entry.dev !== true).map(([key]) => lockName(key)),
    );
    const devOnly = new Set(
      entries
        .filter(([key, entry]) => entry.dev === true && !prodNames.has(lockName(key)))
        .map(([key]) => lockName(key)),
    );
    expect(devOnly.size).toBeGreaterThan(0);
    expect(installed.map((entry) => entry.name).filter((name) => devOnly.has(name))).toEqual([]);
    for (const name of ['vitest', 'typescript', '@biomejs/biome', 'serverless']) {
      expect(existsSync(image.hostPath(`node_modules/${name}`)), name).toBe(false);
    }
  });

  it('keeps node_modules lean: under 25 MB, no dev loop tool, no native addon, no types, sources or maps', async () => {
    const nodeModules = replayed().hostPath('node_modules');
    expect((await treeSize(nodeModules)).bytes).toBeLessThan(MAX_NODE_MODULES_BYTES);
    const names = (await installedPackages(nodeModules)).map((entry) => entry.name);
    expect(names.filter((name) => /^(tsx|esbuild|@esbuild\/.*|dynalite|classic-level)$/.test(name))).toEqual(
      [],
    );
    const files = await readdir(nodeModules, { recursive: true });
    expect(files.filter((file) => /\.(node|[cm]?ts|map)$/.test(file))).toEqual([]);
  });

  it('every package with an install script (skipped by --ignore-scripts) ships linux-x64 and linux-arm64 binaries', async () => {
    const installed = await installedPackages(replayed().hostPath('node_modules'));
    const installedNames = new Set(installed.map((entry) => entry.name));
    const scripted = installed.filter(
      ({ dir, manifest }) =>
        ['preinstall', 'install', 'postinstall'].some((hook) => manifest.scripts?.[hook] !== undefined) ||
        existsSync(path.join(dir, 'binding.gyp')),
    );
    const unbuilt: string[] = [];
    for (const { name, dir, manifest } of scripted) {
      // A node-gyp-build addon loads prebuilds/<platform>/*.node; esbuild-style packages install the
      // binary of the build's platform as an optional dependency instead (here: the host's).
      const prebuilt = (await hasPrebuild(dir, 'linux-x64')) && (await hasPrebuild(dir, 'linux-arm64'));
      const optional = Object.keys(manifest.optionalDependencies ?? {});
      const perPlatform =
        ['linux-x64', 'linux-arm64'].every((platform) => optional.some((dep) => dep.endsWith(platform))) &&
        optional.some(
          (dep) => dep.endsWith(`${process.platform}-${process.arch}`) && installedNames.has(dep),
        );
      if (!prebuilt && !perPlatform) unbuilt.push(name);
    }
    process.stdout.write(
      `[image] packages with install scripts: ${scripted.map((p) => p.name).join(', ')}\n`,
    );
    expect(unbuilt).toEqual([]);
  });

  it('the ENTRYPOINT program answers --version from the image', async () => {
    const runtime = await runtimePlan();
    const { version } = await packedManifest();
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
