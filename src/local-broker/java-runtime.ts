/**
 * What the local RocketMQ needs from the machine: a Java 11+ runtime (17 recommended) and, to fetch
 * the jars the first time, Maven. Also the JVM module flags RocketMQ needs on Java 17.
 */
import { LocalBrokerError } from './local-broker-error.js';
import { CommandNotFoundError, runCommand } from './run-command.js';

/**
 * How to get Java and Maven on Debian/Ubuntu, quoted in every "missing" error.
 */
export const JAVA_INSTALL_HINT = 'apt-get update && apt-get install -y openjdk-17-jdk-headless maven';

/**
 * Oldest Java major version we launch RocketMQ 5.3.3 with.
 */
export const MIN_JAVA_MAJOR_VERSION = 11;

/**
 * Module flags for RocketMQ on Java 9+: its store casts mapped buffers to `sun.nio.ch.DirectBuffer`
 * and older code paths reflect into JDK internals.
 */
export const JAVA_MODULE_FLAGS: readonly string[] = [
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-exports=java.base/sun.nio.ch=ALL-UNNAMED',
  '--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED',
  '--add-opens=java.base/java.util=ALL-UNNAMED',
  '--add-opens=java.base/java.lang=ALL-UNNAMED',
];

/**
 * Parses the major version out of `java -version` output (`"17.0.15"` -> 17, `"1.8.0_402"` -> 8).
 * Returns undefined when no version string is found.
 */
export function parseJavaMajorVersion(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?[^"]*"/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}

/**
 * Checks that `java` is on PATH and new enough; throws {@link LocalBrokerError} saying how to install
 * it otherwise. Resolves with the major version.
 */
export async function assertJavaAvailable(): Promise<number> {
  let output: string;
  try {
    const result = await runCommand('java', ['-version'], { timeoutMs: 30_000 });
    output = `${result.stderr}${result.stdout}`;
    if (result.exitCode !== 0) {
      throw new LocalBrokerError(
        `java -version exited with ${String(result.exitCode)}: ${output.trim()}. Install a JDK: ${JAVA_INSTALL_HINT}`,
      );
    }
  } catch (cause) {
    if (cause instanceof LocalBrokerError) throw cause;
    const reason = cause instanceof CommandNotFoundError ? 'is not on PATH' : 'could not be run';
    throw new LocalBrokerError(
      `Java ${reason}: the local RocketMQ needs Java ${MIN_JAVA_MAJOR_VERSION}+ (17 recommended). Install it: ${JAVA_INSTALL_HINT}`,
      { cause },
    );
  }
  const major = parseJavaMajorVersion(output);
  if (major === undefined || major < MIN_JAVA_MAJOR_VERSION) {
    throw new LocalBrokerError(
      `Java ${MIN_JAVA_MAJOR_VERSION}+ is needed, found: ${output.split('\n')[0] ?? output}. Install it: ${JAVA_INSTALL_HINT}`,
    );
  }
  return major;
}

/**
 * Checks that `mvn` is on PATH and runs; throws {@link LocalBrokerError} saying how to install it
 * otherwise.
 */
export async function assertMavenAvailable(): Promise<void> {
  try {
    const result = await runCommand('mvn', ['-v', '-B'], { timeoutMs: 60_000 });
    if (result.exitCode !== 0) {
      throw new LocalBrokerError(
        `mvn -v exited with ${String(result.exitCode)}: ${result.stdout}${result.stderr}. Install Maven: ${JAVA_INSTALL_HINT}`,
      );
    }
  } catch (cause) {
    if (cause instanceof LocalBrokerError) throw cause;
    const reason = cause instanceof CommandNotFoundError ? 'is not on PATH' : 'could not be run';
    throw new LocalBrokerError(
      `Maven (mvn) ${reason}: it fetches the RocketMQ jars from Maven Central. Install it: ${JAVA_INSTALL_HINT}`,
      { cause },
    );
  }
}
