/**
 * The orphan watchdog of the local broker's JVMs (src/local-broker/jvm-process.ts): a JVM runs in a
 * process group of its own, so when our process is stopped by a signal sent to its whole group (a
 * terminal closed, `kill -- -<pgid>`, a supervisor), only the watchdog can kill it. A watchdog that died
 * of the same signal left the JVMs of a killed soak run alive, holding their ports and gigabytes of
 * memory.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { waitFor } from '../support/wait-for.js';

const JVM_PROCESS_MODULE = fileURLToPath(new URL('../../src/local-broker/jvm-process.ts', import.meta.url));

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rl-watchdog-'));
  // A JVM that would outlive the test by far: a single-file source program, no build step.
  await writeFile(
    path.join(dir, 'Sleeper.java'),
    'public class Sleeper { public static void main(String[] a) throws Exception { System.out.println("up"); Thread.sleep(600_000); } }\n',
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Running, not a zombie waiting to be reaped (an orphan's reaper is whatever PID 1 is here). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('local broker JVM watchdog', () => {
  it.each(['SIGTERM', 'SIGHUP'] as const)(
    'kills the JVM when %s reaches our whole process group',
    async (signal) => {
      // The owner: a node process of its own group that spawns the JVM and prints its pid.
      const script = [
        `import { spawnJvm } from ${JSON.stringify(JVM_PROCESS_MODULE)};`,
        `const jvm = spawnJvm({ name: 'sleeper', args: ['Sleeper.java'], cwd: ${JSON.stringify(dir)}, env: process.env });`,
        'console.log(`jvm ${jvm.pid}`);',
        'setInterval(() => {}, 1000);',
      ].join('\n');
      const owner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      });
      const ownerGroup = owner.pid;
      if (ownerGroup === undefined) throw new Error('could not spawn the owner process (node)');
      let jvmPid: number | undefined;
      onTestFinished(() => {
        if (alive(ownerGroup)) process.kill(-ownerGroup, 'SIGKILL');
        if (jvmPid !== undefined && alive(jvmPid)) process.kill(jvmPid, 'SIGKILL');
      });
      const lines = createInterface({ input: owner.stdout });
      jvmPid = await new Promise<number>((resolve, reject) => {
        lines.on('line', (line) => {
          const match = /^jvm (\d+)$/.exec(line);
          if (match) resolve(Number(match[1]));
        });
        owner.on('exit', (code) =>
          reject(new Error(`the owner process exited (${String(code)}) before spawning java`)),
        );
      });
      const pid = jvmPid;
      expect(alive(pid)).toBe(true);

      process.kill(-ownerGroup, signal);

      await waitFor(`the owner process to die of ${signal}`, 15_000, () =>
        alive(ownerGroup) ? undefined : true,
      );
      await waitFor(`the orphaned JVM ${pid} to be killed by its watchdog`, 15_000, () =>
        alive(pid) ? undefined : true,
      );
      expect(alive(pid)).toBe(false);
    },
    60_000,
  );
});
