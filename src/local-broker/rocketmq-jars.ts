/**
 * The RocketMQ jars (namesrv, broker, client, tools and their dependencies; with the proxy for the
 * proxy entry) of one broker version, fetched once with Maven from infra/local-broker/pom.xml into a
 * cache directory per version outside the work tree, and reused.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { componentLogger, type Logger } from '../util/logger.js';
import {
  type BrokerVersionProfile,
  DEFAULT_BROKER_VERSION,
  selectedBrokerVersion,
} from './broker-version.js';
import { assertMavenAvailable } from './java-runtime.js';
import { LocalBrokerError } from './local-broker-error.js';
import { runCommand, tailLines } from './run-command.js';

/**
 * The default RocketMQ version of the local broker (see broker-version.ts for the others), and the one
 * the Java interop peer is built against.
 */
export const ROCKETMQ_VERSION = '5.3.3';

/**
 * The pom whose dependencies make up the classpath (shipped in the package's `infra/`).
 */
export const LOCAL_BROKER_POM = fileURLToPath(new URL('../../infra/local-broker/pom.xml', import.meta.url));

const MARKER_FILE = '.jars-complete';
const FETCH_TIMEOUT_MS = 15 * 60_000;

/** Where the jars live once fetched. */
export interface RocketMQJars {
  /** The cache directory (holds `lib/` and the completion marker). */
  cacheDir: string;
  /** Directory holding every jar. */
  libDir: string;
  /** A `java -cp` value covering every jar (`<libDir>/*`). */
  classpath: string;
  /** True when this call ran Maven, false when the cache was already complete. */
  fetched: boolean;
}

/** Options of {@link ensureRocketMQJars}. */
export interface EnsureJarsOptions {
  /** @default {@link rocketmqCacheDir}(version) */
  cacheDir?: string | undefined;
  /** @default the version `ROCKETMQ_LAMBDA_BROKER_VERSION` selects (5.3.3 when unset) */
  version?: BrokerVersionProfile | undefined;
  log?: Logger;
}

/**
 * The cache directory: `$ROCKETMQ_LAMBDA_CACHE` when set, else
 * `~/.cache/rocketmq-lambda/rocketmq-5.3.3`.
 */
export function defaultRocketMQCacheDir(): string {
  const fromEnv = process.env.ROCKETMQ_LAMBDA_CACHE;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return join(homedir(), '.cache', 'rocketmq-lambda', `rocketmq-${ROCKETMQ_VERSION}`);
}

/**
 * The jar cache directory of a broker version: {@link defaultRocketMQCacheDir}() for the default
 * version (as before versions existed), a sibling named after the version for the others
 * (`.../rocketmq-4.9.7`; with `$ROCKETMQ_LAMBDA_CACHE` set, `$ROCKETMQ_LAMBDA_CACHE-4.9.7`), so switching
 * versions never refetches.
 */
export function rocketmqCacheDir(version: BrokerVersionProfile = selectedBrokerVersion()): string {
  const base = defaultRocketMQCacheDir();
  if (version.name === DEFAULT_BROKER_VERSION) return base;
  const fromEnv = process.env.ROCKETMQ_LAMBDA_CACHE;
  if (fromEnv !== undefined && fromEnv !== '') return `${base}-${version.name}`;
  return join(dirname(base), basename(base).replace(ROCKETMQ_VERSION, version.name));
}

/**
 * The Maven properties that pick a version's jars from infra/local-broker/pom.xml (`rocketmq.proxy`
 * turns on the profile that adds rocketmq-proxy).
 */
export function mavenVersionArgs(version: BrokerVersionProfile): string[] {
  return [
    `-Drocketmq.version=${version.rocketmqVersion}`,
    `-Drocketmq.companion.version=${version.companionVersion}`,
    ...(version.proxy ? ['-Drocketmq.proxy=true'] : []),
  ];
}

/**
 * A `java -cp` value for every jar in `libDir`, plus any extra entries placed first.
 */
export function rocketmqClasspath(libDir: string, extraEntries: readonly string[] = []): string {
  return [...extraEntries, join(libDir, '*')].join(':');
}

/**
 * Makes sure the RocketMQ jars are in the cache, running
 * `mvn -q dependency:copy-dependencies` only when the cache lacks a marker matching the current pom.
 * Throws {@link LocalBrokerError} (with Maven's output tail) when Maven is missing or fails.
 */
export async function ensureRocketMQJars(options: EnsureJarsOptions = {}): Promise<RocketMQJars> {
  const log = options.log ?? componentLogger('local-broker.jars');
  const version = options.version ?? selectedBrokerVersion();
  const cacheDir = options.cacheDir ?? rocketmqCacheDir(version);
  const libDir = join(cacheDir, 'lib');
  const markerPath = join(cacheDir, MARKER_FILE);
  const versionArgs = mavenVersionArgs(version);
  // The marker covers the Maven properties too: a cache directory given by the caller that held
  // another version's jars is fetched anew.
  const pomHash = await hashFile(LOCAL_BROKER_POM, versionArgs.join(' '));
  const result = { cacheDir, libDir, classpath: rocketmqClasspath(libDir) };

  if (existsSync(libDir) && (await readMarker(markerPath)) === pomHash) {
    return { ...result, fetched: false };
  }

  await assertMavenAvailable();
  await mkdir(cacheDir, { recursive: true });
  const stagingDir = join(cacheDir, `lib.staging-${process.pid}-${Date.now()}`);
  const startedAt = Date.now();
  log.info({ cacheDir, pom: LOCAL_BROKER_POM, version: version.name }, 'fetching RocketMQ jars with Maven');
  const mvn = await runCommand(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      LOCAL_BROKER_POM,
      'dependency:copy-dependencies',
      ...versionArgs,
      `-DoutputDirectory=${stagingDir}`,
    ],
    { timeoutMs: FETCH_TIMEOUT_MS },
  );
  if (mvn.exitCode !== 0) {
    await rm(stagingDir, { recursive: true, force: true });
    throw new LocalBrokerError(
      `fetching the RocketMQ ${version.name} jars failed (mvn exit ${String(mvn.exitCode)}):\n${tailLines(
        `${mvn.stdout}${mvn.stderr}`,
        40,
      )}`,
    );
  }
  await rm(libDir, { recursive: true, force: true });
  await rename(stagingDir, libDir);
  await writeFile(markerPath, pomHash, 'utf8');
  log.info({ libDir, elapsedMs: Date.now() - startedAt }, 'RocketMQ jars ready');
  return { ...result, fetched: true };
}

async function hashFile(path: string, extra: string): Promise<string> {
  try {
    return createHash('sha256')
      .update(await readFile(path))
      .update(extra)
      .digest('hex');
  } catch (cause) {
    throw new LocalBrokerError(`cannot read ${path}: is the package's infra/ directory present?`, { cause });
  }
}

async function readMarker(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LocalBrokerError(`cannot read the jar cache marker ${path}`, { cause });
  }
}
