/**
 * What a release publishes and what a deployer's `serverless package` makes of it, from a clone-like copy
 * of the checkout: `npm pack` (whose prepack builds dist/) and `npm run pack:handler` (the kit package);
 * then a service set up as docs/writing-a-handler.md says (rocketmq-lambda-handler in dependencies,
 * rocketmq-lambda in devDependencies, both installed from those tarballs, zod from the registry) is
 * packaged by the Framework without a bundler, and the handler is run from the extracted zip. The example
 * service at the repository root is packaged and run the same way.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloneCheckout, REPO_ROOT, runCommand } from './clone-checkout.js';
import { invokeExtracted, requireExports } from './extracted-function.js';
import { packedClone } from './packed-clone.js';
import { serverlessPackage } from './serverless-package.js';
import { readTarball, type TarEntry } from './tar-entries.js';
import { extractZip, type ZipEntry } from './zip-entries.js';

/** The bar for a handler zip built without a bundler. */
const MAX_ZIP_BYTES = 1_000_000;
/** What a handler zip carried before the kit had its own package (the poller's and `dev`'s packages). */
const POLLER_ONLY_PACKAGES = ['dynalite', 'esbuild', 'tsx', 'pino', '@aws-sdk'];
const FIXTURE_DIR = path.join(REPO_ROOT, 'test/fixtures/handler-zip');
const SETUP_TIMEOUT_MS = 300_000;
/** The console page's assets, which the build copies into dist/dev/console/assets. */
const CONSOLE_ASSETS = 'src/dev/console/assets';

interface RootManifest {
  version: string;
  exports: Record<string, Record<string, string>>;
  bin: Record<string, string>;
}

let clone: CloneCheckout;
let work: string;
let root: RootManifest;
let pollerTarball: string;
let kitTarball: string;
/** The example service's `serverless package`, started once dist/ is built (see the last describe). */
let examplePackaged: Promise<ExtractedZip> | undefined;

/** A zip the Framework made, extracted into `taskDir`. */
interface ExtractedZip {
  zipBytes: number;
  entries: ZipEntry[];
  taskDir: string;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'rl-packaging-'));
  // The run's one `npm pack` of a clone (packed-clone.ts; the image's runtime stage unpacks the same).
  const packed = packedClone();
  clone = await packed.cloned;
  root = JSON.parse(await readFile(path.join(clone.dir, 'package.json'), 'utf8')) as RootManifest;
  // The kit is compiled and packed in a staging directory of its own: it runs while `npm pack` builds dist/.
  const kitPacked = clone.run('npm', ['run', '--silent', 'pack:handler', '--', '--pack-destination', work]);
  kitPacked.catch(() => undefined); // awaited below; not unhandled should `npm pack` fail first
  pollerTarball = await packed.tarball;
  // dist/ is there (npm pack's prepack built it): the example service is packaged meanwhile too.
  examplePackaged = packageExample();
  examplePackaged.catch(() => undefined); // awaited by its describe's beforeAll
  kitTarball = (await kitPacked).trim().split('\n').at(-1) ?? '';
}, SETUP_TIMEOUT_MS);

/** `serverless package` of the example service in the clone (deploy-like values), its zip extracted. */
async function packageExample(): Promise<ExtractedZip> {
  const zipFile = await serverlessPackage(clone.dir, 'rocketmq-lambda-example', {
    ROCKETMQ_NAME_SERVER: '10.0.0.10:9876',
    ROCKETMQ_LAMBDA_IMAGE: `123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:${root.version}`,
    ROCKETMQ_LAMBDA_SUBNET: 'subnet-0f3e2d1c4b5a69788',
  });
  const zipBytes = (await stat(zipFile)).size;
  const taskDir = path.join(work, 'example-task');
  const entries = await extractZip(zipFile, taskDir);
  return { zipBytes, entries, taskDir };
}

afterAll(async () => {
  // The clone is the run's shared one (packed-clone.ts): removed when the worker exits.
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** `package/<path>` of a tarball, or a failure naming what the tarball holds. */
function entry(entries: readonly TarEntry[], file: string): TarEntry {
  const found = entries.find((e) => e.path === `package/${file}`);
  if (found === undefined)
    throw new Error(`no ${file} in the tarball: ${entries.map((e) => e.path).join(', ')}`);
  return found;
}

/** Every file an `exports` map (conditions included) or a `bin` points at. */
function manifestTargets(manifest: { exports?: unknown; bin?: unknown }): string[] {
  const targets: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value.replace(/^\.\//, ''));
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  return targets;
}

/** The packages (`zod`, `@aws-sdk/client-sqs`) that have files in a zip, nested ones included. */
function zippedPackages(entries: readonly ZipEntry[]): Set<string> {
  const names = new Set<string>();
  for (const { name } of entries) {
    for (const match of name.matchAll(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) {
      if (match[1] !== undefined) names.add(match[1]);
    }
  }
  return names;
}

function describeZip(label: string, zipBytes: number, entries: readonly ZipEntry[]): void {
  const files = entries.filter((e) => !e.name.endsWith('/'));
  const unzipped = files.reduce((sum, e) => sum + e.size, 0);
  process.stdout.write(`[${label}] ${zipBytes} bytes zipped, ${unzipped} unzipped, ${files.length} files\n`);
}

/** A RocketMQ event (event v1) whose records carry `bodies` as JSON, with messageIds `m-1`, `m-2`, ... */
function eventOf(bodies: readonly unknown[]): unknown {
  return {
    eventSource: 'rocketmq',
    consumerGroup: 'orders-fn',
    Records: bodies.map((body, index) => ({
      messageId: `m-${index + 1}`,
      offsetMsgId: `7F00000100002A9F00000000000000${String(index).padStart(2, '0')}`,
      topic: 'Orders',
      brokerName: 'broker-a',
      queueId: 0,
      queueOffset: index,
      tags: null,
      keys: [],
      body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)).toString('base64'),
      properties: {},
      bornTimestamp: 1_700_000_000_000,
      storeTimestamp: 1_700_000_000_005,
      bornHost: '10.0.0.7:53211',
      storeHost: '127.0.0.1:10911',
      reconsumeTimes: 0,
    })),
  };
}

describe('npm pack of a clean clone', () => {
  it('builds dist/ (prepack): the command is executable with its shebang, every export and the LICENSE are in', async () => {
    const entries = await readTarball(pollerTarball);
    const main = entry(entries, 'dist/cli/main.js');
    expect(main.mode & 0o111, `dist/cli/main.js mode ${main.mode.toString(8)}`).toBe(0o111);
    expect(main.content.toString('utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(root.bin).toEqual({ 'rocketmq-lambda': './dist/cli/main.js' });
    const targets = manifestTargets(root);
    expect(targets).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/handler/index.js', 'dist/serverless/index.js']),
    );
    for (const target of targets) entry(entries, target);
    entry(entries, 'dist/handler/index.d.ts');
    expect(entry(entries, 'LICENSE').content.toString('utf8')).toBe(
      await readFile(path.join(REPO_ROOT, 'LICENSE'), 'utf8'),
    );
    entry(entries, 'README.md');
  });

  it("ships the dev console's page as it is in src/dev/console/assets (no build step for users)", async () => {
    const entries = await readTarball(pollerTarball);
    const assets = (await readdir(path.join(REPO_ROOT, CONSOLE_ASSETS))).filter(
      (file) => !file.endsWith('.d.ts'),
    );
    expect(assets).toEqual(expect.arrayContaining(['index.html', 'console.js', 'console.css']));
    for (const file of assets) {
      expect(entry(entries, `dist/dev/console/assets/${file}`).content.toString('utf8'), file).toBe(
        await readFile(path.join(REPO_ROOT, CONSOLE_ASSETS, file), 'utf8'),
      );
    }
  });

  it('ships no sources, tests or the kit package build', async () => {
    const paths = (await readTarball(pollerTarball)).map((e) => e.path);
    expect(paths.filter((p) => /^package\/(src|test|bench|docs|infra\/npm)\//.test(p))).toEqual([]);
    expect(paths.filter((p) => p.endsWith('.tgz'))).toEqual([]);
  });

  it('packs the kit (npm run pack:handler) with its own files only, at the same version, depending on zod only', async () => {
    expect(path.basename(kitTarball)).toBe(`rocketmq-lambda-handler-${root.version}.tgz`);
    const entries = await readTarball(kitTarball);
    const modules = (await readdir(path.join(REPO_ROOT, 'src/handler')))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `handler/${file.slice(0, -'.ts'.length)}`)
      // The one shared module the kit imports (dependency-free).
      .concat('util/trace-context');
    expect(entries.map((e) => e.path).sort()).toEqual(
      [
        'package/LICENSE',
        'package/README.md',
        'package/package.json',
        ...modules.flatMap((m) => [`package/dist/${m}.js`, `package/dist/${m}.d.ts`]),
      ].sort(),
    );
    const manifest = JSON.parse(entry(entries, 'package.json').content.toString('utf8')) as {
      name: string;
      version: string;
      dependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional: boolean }>;
      exports: unknown;
    };
    expect(manifest).toMatchObject({ name: 'rocketmq-lambda-handler', version: root.version });
    expect(Object.keys(manifest.dependencies)).toEqual(['zod']);
    expect(manifest.peerDependenciesMeta).toEqual({ '@middy/core': { optional: true } });
    for (const target of manifestTargets(manifest)) entry(entries, target);
    expect(entry(entries, 'LICENSE').content.toString('utf8')).toContain('Apache License');
  });
});

describe('a service with the kit in dependencies and rocketmq-lambda in devDependencies, packaged without a bundler', () => {
  let service: string;
  let zipFile: string;
  let zipBytes: number;
  let entries: ZipEntry[];
  let taskDir: string;

  beforeAll(async () => {
    service = path.join(work, 'service');
    await cp(FIXTURE_DIR, service, { recursive: true });
    // Where the fixture's package.json expects them: beside the service, so they are not zipped with it.
    await cp(pollerTarball, path.join(work, 'rocketmq-lambda.tgz'));
    await cp(kitTarball, path.join(work, 'rocketmq-lambda-handler.tgz'));
    // What `rocketmq-lambda dev` leaves in a service: offsets in the embedded DynamoDB, handler shims.
    await mkdir(path.join(service, '.rocketmq-lambda/dynamodb'), { recursive: true });
    await writeFile(path.join(service, '.rocketmq-lambda/dynamodb/000003.log'), 'offsets');
    await mkdir(path.join(service, '.rocketmq-lambda/handlers'), { recursive: true });
    await writeFile(path.join(service, '.rocketmq-lambda/handlers/orders.mjs'), 'export {};\n');
    await runCommand(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'],
      service,
      process.env,
    );
    zipFile = await serverlessPackage(service, 'rmq-handler-zip');
    zipBytes = (await stat(zipFile)).size;
    taskDir = path.join(work, 'task');
    entries = await extractZip(zipFile, taskDir);
    describeZip('handler zip', zipBytes, entries);
  }, SETUP_TIMEOUT_MS);

  it('gives a zip under 1 MB with the handler, the kit and zod only', () => {
    expect(zipBytes).toBeLessThan(MAX_ZIP_BYTES);
    expect([...zippedPackages(entries)].sort()).toEqual(['rocketmq-lambda-handler', 'zod']);
    const names = entries.map((e) => e.name);
    for (const heavy of POLLER_ONLY_PACKAGES) {
      expect(names.filter((name) => name.includes(`node_modules/${heavy}`))).toEqual([]);
    }
    expect(names).toContain('handler.js');
    expect(names).toContain('node_modules/rocketmq-lambda-handler/dist/handler/index.js');
  });

  it('leaves the dev state (.rocketmq-lambda/) out', () => {
    expect(entries.map((e) => e.name).filter((name) => name.startsWith('.rocketmq-lambda'))).toEqual([]);
  });

  it('runs the handler from the extracted zip: the bad orders fail, the rest of the batch succeeds', async () => {
    const event = eventOf([{ orderId: 'o-1', amount: 5 }, { orderId: 'o-2', amount: -1 }, 'not json']);
    expect(await invokeExtracted(taskDir, 'handler.handler', event)).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm-2' }, { itemIdentifier: 'm-3' }],
    });
  });

  it('lets a CommonJS handler require the kit', async () => {
    const names = await requireExports(taskDir, 'rocketmq-lambda-handler');
    expect(names).toEqual(
      expect.arrayContaining(['createBatchHandler', 'recordJson', 'RocketMQEventSchema']),
    );
  });

  it('installs the rocketmq-lambda command from the packed tarball', async () => {
    const bin = path.join(service, 'node_modules/.bin/rocketmq-lambda');
    const version = await new Promise<string>((resolve, reject) => {
      execFile(bin, ['--version'], { cwd: service, timeout: 30_000 }, (error, stdout, stderr) => {
        if (error === null) resolve(stdout.trim());
        else reject(new Error(`${bin} --version failed: ${stderr}`, { cause: error }));
      });
    });
    expect(version).toBe(root.version);
  });
});

describe('the example service (serverless.yml at the repository root)', () => {
  let zipBytes: number;
  let entries: ZipEntry[];
  let taskDir: string;

  beforeAll(async () => {
    if (examplePackaged === undefined) throw new Error('the packing of the clone did not get to dist/');
    ({ zipBytes, entries, taskDir } = await examplePackaged);
    describeZip('example zip', zipBytes, entries);
  }, SETUP_TIMEOUT_MS);

  it('gives a zip under 1 MB with the compiled handlers, the kit and zod only', () => {
    expect(zipBytes).toBeLessThan(MAX_ZIP_BYTES);
    expect([...zippedPackages(entries)]).toEqual(['zod']);
    const outside = entries
      .map((e) => e.name)
      .filter((name) => !name.startsWith('node_modules/zod/') && !name.endsWith('/'));
    const loose = outside.filter((name) => !/^dist\/(examples|handler)\/[a-z-]+\.js$/.test(name));
    expect(loose.sort()).toEqual(['dist/util/trace-context.js', 'package.json']);
  });

  it('runs the orders handler from the extracted zip', async () => {
    const event = eventOf([
      { orderId: 'o-1', total: 5 },
      { orderId: 'o-2', total: -1 },
    ]);
    expect(await invokeExtracted(taskDir, 'dist/examples/orders.handler', event)).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm-2' }],
    });
  });
});
