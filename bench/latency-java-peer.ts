/**
 * How the latency scenario runs its Java peer (bench/java, LatencyConsumerBench.java), which the
 * harness's Maven build (java-bench.ts) compiles beside PushConsumerBench: the same JVM settings as
 * java-bench.ts gives PushConsumerBench, another main class.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type JavaBenchBuild, javaBenchArgs } from './java-bench.js';

const MAIN_CLASS = 'rocketmq.lambda.bench.LatencyConsumerBench';

/**
 * The `java` arguments that run LatencyConsumerBench with `args`: the JVM's defaults apart from the max
 * heap, the client's logging cut to warnings on stderr. Throws when the build lacks the class (a build
 * cached from before it existed).
 *
 * @example
 * ```ts
 * latencyPeerArgs(build, 256, ['latency', namesrvAddr, topic, group, '8', '20000', '120000']);
 * ```
 */
export function latencyPeerArgs(build: JavaBenchBuild, heapMb: number, args: readonly string[]): string[] {
  const classFile = `${join(build.classesDir, ...MAIN_CLASS.split('.'))}.class`;
  if (!existsSync(classFile)) throw new Error(`the Java bench build has no ${MAIN_CLASS} (${classFile})`);
  return javaBenchArgs(build, heapMb, args, MAIN_CLASS);
}
