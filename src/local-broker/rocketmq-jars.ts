/**
 * The RocketMQ 5.3.3 jars (namesrv, broker, client, tools and their dependencies), fetched once with
 * Maven from infra/local-broker/pom.xml into a cache directory outside the work tree, and reused.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { componentLogger, type Logger } from '../util/logger.js';
import { assertMavenAvailable } from './java-runtime.js';
import { LocalBrokerError } from './local-broker-error.js';
import { runCommand, tailLines } from './run-command.js';

/**
 * The RocketMQ version the local broker and the interop peer run.
 *
 * @example
 * ```ts
 * console.log(`local RocketMQ ${ROCKETMQ_VERSION}`);
 * ```
 */
export const ROCKETMQ_VERSION = '5.3.3';

/**
 * The pom whose dependencies make up the classpath (shipped in the package's `infra/`).
 *
 * @example
 * ```ts
 * await runCommand('mvn', ['-q', '-f', LOCAL_BROKER_POM, 'dependency:tree']);
 * ```
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
  /** @default {@link defaultRocketMQCacheDir}() */
  cacheDir?: string;
  log?: Logger;
}

/**
 * The cache directory: `$ROCKETMQ_LAMBDA_CACHE` when set, else
 * `~/.cache/rocketmq-lambda/rocketmq-5.3.3`.
 *
 * @example
 * ```ts
 * defaultRocketMQCacheDir() // => '/home/me/.cache/rocketmq-lambda/rocketmq-5.3.3'
 * ```
 */
export function defaultRocketMQCacheDir(): string {
  const fromEnv = process.env.ROCKETMQ_LAMBDA_CACHE;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return join(homedir(), '.cache', 'rocketmq-lambda', `rocketmq-${ROCKETMQ_VERSION}`);
}

/**
 * A `java -cp` value for every jar in `libDir`, plus any extra entries placed first.
 *
 * @example
 * ```ts
 * rocketmqClasspath('/cache/lib') // => '/cache/lib/*'
 * rocketmqClasspath('/cache/lib', ['/x/classes']) // => '/x/classes:/cache/lib/*'
 * ```
 */
export function rocketmqClasspath(libDir: string, extraEntries: readonly string[] = []): string {
  return [...extraEntries, join(libDir, '*')].join(':');
}

/**
 * Makes sure the RocketMQ jars are in the cache, running
 * `mvn -q dependency:copy-dependencies` only when the cache lacks a marker matching the current pom.
 * Throws {@link LocalBrokerError} (with Maven's output tail) when Maven is missing or fails.
 *
 * @example
 * ```ts
 * const { classpath } = await ensureRocketMQJars();
 * spawn('java', ['-cp', classpath, 'org.apache.rocketmq.namesrv.NamesrvStartup']);
 * ```
 */
export async function ensureRocketMQJars(options: EnsureJarsOptions = {}): Promise<RocketMQJars> {
  const log = options.log ?? componentLogger('local-broker.jars');
  const cacheDir = options.cacheDir ?? defaultRocketMQCacheDir();
  const libDir = join(cacheDir, 'lib');
  const markerPath = join(cacheDir, MARKER_FILE);
  const pomHash = await hashFile(LOCAL_BROKER_POM);
  const result = { cacheDir, libDir, classpath: rocketmqClasspath(libDir) };

  if (existsSync(libDir) && (await readMarker(markerPath)) === pomHash) {
    return { ...result, fetched: false };
  }

  await assertMavenAvailable();
  await mkdir(cacheDir, { recursive: true });
  const stagingDir = join(cacheDir, `lib.staging-${process.pid}-${Date.now()}`);
  const startedAt = Date.now();
  log.info({ cacheDir, pom: LOCAL_BROKER_POM }, 'fetching RocketMQ jars with Maven');
  const mvn = await runCommand(
    'mvn',
    ['-q', '-B', '-f', LOCAL_BROKER_POM, 'dependency:copy-dependencies', `-DoutputDirectory=${stagingDir}`],
    { timeoutMs: FETCH_TIMEOUT_MS },
  );
  if (mvn.exitCode !== 0) {
    await rm(stagingDir, { recursive: true, force: true });
    throw new LocalBrokerError(
      `fetching the RocketMQ ${ROCKETMQ_VERSION} jars failed (mvn exit ${String(mvn.exitCode)}):\n${tailLines(
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

async function hashFile(path: string): Promise<string> {
  try {
    return createHash('sha256')
      .update(await readFile(path))
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
