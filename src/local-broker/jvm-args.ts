/**
 * The JVM flags of a local namesrv or broker: small heap, C1 only, no perf data, our logback file,
 * ROCKETMQ_HOME-style directories under the temp directory, then the caller's extra flags and the
 * classpath.
 */
import { tlsJvmFlags } from './broker-tls.js';
import { JAVA_MODULE_FLAGS } from './java-runtime.js';

/** Direct memory of a JVM that writes no messages (the namesrv). */
const DEFAULT_DIRECT_MEMORY_MB = 512;

/** Inputs of {@link localJvmArgs}. */
export interface LocalJvmArgsInput {
  heapMb: number;
  /** The logback configuration file of this JVM. */
  logbackFile: string;
  /** `user.home` and `rocketmq.home.dir`. */
  homeDir: string;
  classpath: string;
  /** `-XX:MaxDirectMemorySize` in MiB (a broker's: `brokerDirectMemoryMb`). @default 512 */
  maxDirectMemoryMb?: number | undefined;
  /** The `tls.properties` file when the servers run TLS-only. */
  tlsConfigFile?: string | undefined;
  extraJvmOptions: readonly string[];
}

/**
 * Everything between `java` and the main class.
 */
export function localJvmArgs(input: LocalJvmArgsInput): string[] {
  return [
    `-Xms${Math.min(256, input.heapMb)}m`,
    `-Xmx${input.heapMb}m`,
    `-XX:MaxDirectMemorySize=${input.maxDirectMemoryMb ?? DEFAULT_DIRECT_MEMORY_MB}m`,
    '-XX:-UsePerfData',
    // C1 only: boots in about half the time on 2 cores; pass -XX:TieredStopAtLevel=4 in
    // extraJvmOptions for benchmarks.
    '-XX:TieredStopAtLevel=1',
    ...tlsJvmFlags(input.tlsConfigFile),
    ...JAVA_MODULE_FLAGS,
    `-Duser.home=${input.homeDir}`,
    `-Drocketmq.home.dir=${input.homeDir}`,
    `-Drmq.logback.configurationFile=${input.logbackFile}`,
    ...input.extraJvmOptions,
    '-cp',
    input.classpath,
  ];
}
