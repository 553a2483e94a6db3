/**
 * Amazon's event-ruler (Java, 1.8.1) as the reference of the filter's differential test: one JVM run
 * answers many (patterns, event) cases. The program is test/java's EventRulerMatch.java, built with the
 * Java interop peer (test/support/java-interop.ts; the integration global setup builds it, and so does
 * the first call here). Throws, never answers, when Java, Maven or the build is missing.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { LocalBrokerError } from '../../src/local-broker/local-broker-error.js';
import { tailLines } from '../../src/local-broker/run-command.js';
import { ensureJavaInteropBuilt } from './java-interop.js';

/** One case: patterns (JSON text each, as Lambda's Pattern) and an event (JSON text). */
export interface RulerCase {
  patterns: readonly string[];
  event: string;
}

/** event-ruler's answer to one case: matched, or refused with its message. */
export type RulerAnswer = boolean | { error: string };

const MAIN_CLASS = 'rocketmq.lambda.interop.EventRulerMatch';
/**
 * From this many cases on, the JVM compiles with C2 as well (tiered compilation) instead of stopping at
 * C1: each case costs about a millisecond (a fresh Machine), so thousands of them pay for C2's compile,
 * which runs on the second core. Measured on two cores: 3000 cases 4.2 s instead of 6 s, 23,000 cases
 * 15-19 s instead of 34 s. A few dozen cases start faster with C1 only.
 */
const CASES_FOR_C2 = 1000;
const TIMEOUT_MS = 120_000;

/**
 * Asks event-ruler about `cases`, in one JVM; resolves with one answer per case, in order.
 *
 * @example
 * ```ts
 * const [answer] = await eventRulerMatches([{ patterns: ['{"a":["x"]}'], event: '{"a":"x"}' }]);
 * expect(answer).toBe(true);
 * ```
 */
export async function eventRulerMatches(cases: readonly RulerCase[]): Promise<RulerAnswer[]> {
  const { classesDir, libDir } = await ensureJavaInteropBuilt();
  const input = cases
    .map((one) => {
      const parts = [...one.patterns, one.event];
      if (parts.some((part) => /[\t\n\r]/.test(part))) {
        throw new Error(
          `a case holds a raw tab or newline (write it with JSON.stringify): ${parts.join(' | ')}`,
        );
      }
      return parts.join('\t');
    })
    .join('\n');
  const args = [
    ...(cases.length >= CASES_FOR_C2 ? [] : ['-XX:TieredStopAtLevel=1']),
    '-XX:+UseSerialGC',
    '-Xmx256m',
    '-cp',
    `${classesDir}:${join(libDir, '*')}`,
    MAIN_CLASS,
  ];
  const { exitCode, stdout, stderr } = await new Promise<{
    exitCode: number | null;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('error', (cause) => {
      clearTimeout(timer);
      reject(new LocalBrokerError('could not start java for event-ruler (is a JDK installed?)', { cause }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        exitCode: code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.end(`${input}\n`);
  });
  if (exitCode !== 0) {
    throw new LocalBrokerError(
      `event-ruler's EventRulerMatch failed (exit ${String(exitCode)}):\n${tailLines(stderr, 40)}`,
    );
  }
  const lines = stdout.split('\n').filter((line) => line.length > 0);
  if (lines.length !== cases.length) {
    throw new LocalBrokerError(
      `event-ruler answered ${lines.length} of ${cases.length} cases:\n${tailLines(`${stdout}${stderr}`, 20)}`,
    );
  }
  return lines.map((line) => {
    if (line === 'true') return true;
    if (line === 'false') return false;
    if (line.startsWith('error ')) return { error: line.slice('error '.length) };
    throw new LocalBrokerError(`event-ruler answered an unknown line: ${line}`);
  });
}
