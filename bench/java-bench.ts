/**
 * The Java peer of the bench (bench/java, PushConsumerBench.java): Apache RocketMQ's own
 * DefaultMQPushConsumer from rocketmq-client 5.3.3. Built once with Maven into the RocketMQ cache
 * directory under a name derived from its sources (as test/support/java-interop.ts does for the
 * interop peer), then run as a child process per measurement.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertJavaAvailable, assertMavenAvailable } from '../src/local-broker/java-runtime.js';
import { defaultRocketMQCacheDir } from '../src/local-broker/rocketmq-jars.js';
import { runCommand, tailLines } from '../src/local-broker/run-command.js';

const JAVA_DIR = fileURLToPath(new URL('./java/', import.meta.url));
const POM = join(JAVA_DIR, 'pom.xml');
const MAIN_CLASS = 'rocketmq.lambda.bench.PushConsumerBench';
const BUILD_PREFIX = 'bench-';

/**
 * A build of the Java peer.
 *
 * @example
 * ```ts
 * const build = await ensureJavaBenchBuilt();
 * spawn('java', javaBenchArgs(build, 256, ['decode', file, '2000', '3000']));
 * ```
 */
export interface JavaBenchBuild {
  readonly classesDir: string;
  readonly libDir: string;
}

/**
 * Builds the Java peer unless the cache holds a build of the current sources. Throws with Maven's
 * output when Java, Maven or the build fails.
 *
 * @example
 * ```ts
 * const build = await ensureJavaBenchBuilt();
 * ```
 */
export async function ensureJavaBenchBuilt(): Promise<JavaBenchBuild> {
  const hash = createHash('sha256');
  // Every file of the Maven project, so that a Java program added beside PushConsumerBench rebuilds it.
  const sources = [POM, ...(await filesUnder(join(JAVA_DIR, 'src')))];
  for (const file of sources) hash.update(`${relative(JAVA_DIR, file)}\0`).update(await readFile(file));
  const buildDir = join(defaultRocketMQCacheDir(), `${BUILD_PREFIX}${hash.digest('hex').slice(0, 16)}`);
  const build = { classesDir: join(buildDir, 'classes'), libDir: join(buildDir, 'lib') };
  const marker = join(buildDir, '.complete');
  if (existsSync(marker)) return build;
  await assertJavaAvailable();
  await assertMavenAvailable();
  const result = await runCommand('mvn', ['-q', '-B', '-f', POM, 'package', `-Dbench.buildDir=${buildDir}`], {
    timeoutMs: 15 * 60_000,
  });
  if (result.exitCode !== 0) {
    throw new Error(
      `building the Java bench peer failed (mvn exit ${String(result.exitCode)}):\n${tailLines(`${result.stdout}${result.stderr}`, 40)}`,
    );
  }
  await writeFile(marker, new Date().toISOString(), 'utf8');
  // Builds of older sources are ~65 MiB each: keep only the current one.
  const cacheDir = dirname(buildDir);
  for (const entry of await readdir(cacheDir)) {
    const path = join(cacheDir, entry);
    if (entry.startsWith(BUILD_PREFIX) && path !== buildDir) await rm(path, { recursive: true, force: true });
  }
  return build;
}

/**
 * The `java` arguments that run PushConsumerBench with `args`: the JVM's defaults (G1, tiered C2 JIT)
 * apart from the max heap, and the client's logging cut to warnings on stderr.
 *
 * @example
 * ```ts
 * javaBenchArgs(build, 256, ['consume', namesrvAddr, topic, group, '100000', '180000']);
 * ```
 */
export function javaBenchArgs(
  build: JavaBenchBuild,
  heapMb: number,
  args: readonly string[],
  mainClass: string = MAIN_CLASS,
): string[] {
  return [
    `-Xmx${heapMb}m`,
    `-Drmq.logback.configurationFile=${join(build.classesDir, 'bench-logback.xml')}`,
    `-Drocketmq.log.root=${join(tmpdir(), 'rocketmq-lambda-bench-logs')}`,
    '-cp',
    `${build.classesDir}:${join(build.libDir, '*')}`,
    mainClass,
    ...args,
  ];
}

/** The files under `dir`, recursively, in a stable order. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
