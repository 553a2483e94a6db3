/**
 * Apache RocketMQ's own admin tool, `mqadmin` (rocketmq-tools 5.3.3, from the jars the local broker
 * uses), run as a short-lived JVM against the test broker's name server, and small parsers of the
 * tables it prints. mqadmin exits 0 even when a command fails (it prints the Java stack trace), so
 * callers check {@link JAVA_FAILURE} on the output.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRocketMQJars } from '../../src/local-broker/rocketmq-jars.js';
import { runCommand } from '../../src/local-broker/run-command.js';

/** mqadmin's entry point in rocketmq-tools. */
export const MQADMIN_MAIN_CLASS = 'org.apache.rocketmq.tools.command.MQAdminStartup';

/** A small heap: mqadmin holds one command's answers. */
const MQADMIN_HEAP_MB = 128;
const MQADMIN_TIMEOUT_MS = 90_000;
/** The shaded logback's status listener that prints nothing (else every run starts with ~60 lines of it). */
const QUIET_LOGBACK_STATUS = 'org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener';

/**
 * Text mqadmin prints when a command failed (a Java exception or its stack), whatever the exit code.
 *
 * @example
 * ```ts
 * expect(result.output).not.toMatch(JAVA_FAILURE);
 * ```
 */
export const JAVA_FAILURE = /Exception|\n\s+at [a-z]+\.[\w.$]+\(|command failed/;

/** What one mqadmin run printed. */
export interface MqadminResult {
  exitCode: number | null;
  /** stdout then stderr. */
  output: string;
  elapsedMs: number;
}

/**
 * Runs `mqadmin <subcommand> <args...> -n <namesrvAddr>` in a throwaway working directory (consumerStatus
 * writes one file per client there; the tool's logs go to its `user.home`), removed afterwards.
 *
 * @example
 * ```ts
 * const { output } = await runMqadmin(testBroker().namesrvAddr, 'consumerProgress', ['-g', group]);
 * ```
 */
export async function runMqadmin(
  namesrvAddr: string,
  subcommand: string,
  args: readonly string[],
): Promise<MqadminResult> {
  const { classpath } = await ensureRocketMQJars();
  const dir = await mkdtemp(join(tmpdir(), 'rl-mqadmin-'));
  const startedAt = Date.now();
  try {
    const result = await runCommand(
      'java',
      [
        '-Xms32m',
        `-Xmx${MQADMIN_HEAP_MB}m`,
        // Less CPU for a JVM that lives a few seconds, on a machine shared with a broker.
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        `-Duser.home=${dir}`,
        `-Dlogback.statusListenerClass=${QUIET_LOGBACK_STATUS}`,
        '-cp',
        classpath,
        MQADMIN_MAIN_CLASS,
        subcommand,
        ...args,
        '-n',
        namesrvAddr,
      ],
      { cwd: dir, timeoutMs: MQADMIN_TIMEOUT_MS },
    );
    return {
      exitCode: result.exitCode,
      output: `${result.stdout}${result.stderr}`,
      elapsedMs: Date.now() - startedAt,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The rows of the table whose header line starts with `headerStart` (e.g. `#Topic`), up to the next
 * blank line, each as a map from header name (without `#`) to value. Values have no spaces, except the
 * last column, which takes the rest of the line (consumerProgress's `#LastTime` is a date and a time).
 *
 * @example
 * ```ts
 * const rows = tableRows(output, '#ClientId');
 * rows[0]?.Language; // => 'JAVA'
 * ```
 */
export function tableRows(text: string, headerStart: string): Record<string, string>[] {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.startsWith(headerStart));
  if (at < 0) return [];
  const header = (lines[at] ?? '').trim().split(/\s+#/);
  const names = header.map((name) => name.replace(/^#/, ''));
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '') break;
    const tokens = line.trim().split(/\s+/);
    const row: Record<string, string> = {};
    names.forEach((name, index) => {
      row[name] = index === names.length - 1 ? tokens.slice(index).join(' ') : (tokens[index] ?? '');
    });
    rows.push(row);
  }
  return rows;
}

/**
 * The lines of a `#Name#` section of `consumerStatus -i` (ConsumerRunningInfo's text), without the
 * blank lines.
 *
 * @example
 * ```ts
 * const lines = section(output, 'Consumer Properties');
 * ```
 */
export function section(text: string, name: string): string[] {
  const lines = text.split('\n');
  const at = lines.indexOf(`#${name}#`);
  if (at < 0) return [];
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((line) => /^#[^#\s][^#]*#$/.test(line));
  return (end < 0 ? rest : rest.slice(0, end)).filter((line) => line.trim() !== '');
}

/**
 * `key : value` lines of a section (`#Consumer Properties#`, `#User Consume Info#`) as a map.
 *
 * @example
 * ```ts
 * keyValues(section(output, 'Consumer Properties')).PROP_CONSUME_TYPE; // => 'CONSUME_PASSIVELY'
 * ```
 */
export function keyValues(lines: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of lines) {
    const match = /^(\S+)\s*: (.*)$/.exec(line);
    if (match?.[1] !== undefined) map[match[1]] = match[2] ?? '';
  }
  return map;
}
