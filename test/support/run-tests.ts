/**
 * `npm test` after the lint: the whole project's type-check (`tsc --noEmit`, as `npm run typecheck`)
 * beside `vitest run`, instead of before it. The type-check takes most of a minute of one core and the
 * first minutes of vitest are mostly waits on JVMs and child processes, so the two overlap; the
 * type-check runs at a lower CPU priority so it never slows a test's timing much.
 *
 * The type-check's output is printed once it ends (so it does not interleave with vitest's). When it
 * fails, vitest is stopped (SIGTERM) and this exits 1 without a test report, as `npm test` did when the
 * type-check ran first; .ci/run then says that the type-check or lint failed. Otherwise the exit code is
 * vitest's. Arguments are passed on to vitest (`npm test -- test/unit`).
 *
 * Usage: npx tsx test/support/run-tests.ts [vitest arguments...]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
/** Nice value of the type-check: below the tests, which measure waits and timeouts. */
const TYPECHECK_NICE = 10;

function exitOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

async function main(): Promise<number> {
  const typecheck = spawn(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (typecheck.pid !== undefined) {
    try {
      setPriority(typecheck.pid, TYPECHECK_NICE);
    } catch {
      // Not allowed here: it runs at the tests' priority.
    }
  }
  const output: Buffer[] = [];
  typecheck.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  typecheck.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  const startedAt = Date.now();

  const vitest = spawn(process.execPath, [VITEST, 'run', ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      typecheck.kill(signal);
      vitest.kill(signal);
    });
  }
  const vitestExit = exitOf(vitest);

  const typecheckCode = await exitOf(typecheck);
  const text = Buffer.concat(output).toString('utf8').trimEnd();
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(0);
  if (typecheckCode !== 0) {
    process.stderr.write(
      `\n[type-check] tsc -p tsconfig.json --noEmit failed (exit ${typecheckCode}, ${seconds} s); stopping the tests:\n${text}\n`,
    );
    vitest.kill('SIGTERM');
    await vitestExit;
    return 1;
  }
  process.stdout.write(
    `\n[type-check] passed in ${seconds} s, beside the tests${text === '' ? '' : `:\n${text}`}\n`,
  );
  return vitestExit;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
