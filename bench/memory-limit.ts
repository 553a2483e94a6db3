/**
 * A bench child with the memory of a Fargate task: a memory cgroup with that limit, so that node sizes its
 * heap as it would in the task. V8 derives the old generation's limit and the young generation's
 * semi-spaces from the memory it is given (libuv reads the cgroup's limit). On Node 20 and 22 that is:
 * - a 1 MiB semi-space and 256 MiB of old generation at 512 MiB (the plugin's default task);
 * - 8 MiB and 1 GiB at 2,048 MiB;
 * - 16 MiB and 2-4 GiB on a machine with no limit, like the bench's.
 *
 * The wrapper is a command prefix. It creates (or reuses) a child cgroup of this process's memory cgroup,
 * sets its limit, moves the shell into it and runs the command there. It works with cgroup v1
 * (`memory.limit_in_bytes`) and with cgroup v2 (`memory.max`, where the parent's
 * `cgroup.subtree_control` must offer `memory`). When neither can be written, it fails and says why.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where the cgroup file systems are mounted. */
const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * The memory cgroup `/proc/self/cgroup` puts this process in, and which version it is: v1's `memory`
 * controller line (`4:memory:/path`) wins over v2's unified line (`0::/path`). Undefined when neither
 * line is there.
 *
 * @example
 * ```ts
 * memoryCgroupOf('4:memory:/ci/job-1\n0::/\n'); // => { version: 1, dir: '/sys/fs/cgroup/memory/ci/job-1' }
 * memoryCgroupOf('0::/user.slice\n'); // => { version: 2, dir: '/sys/fs/cgroup/user.slice' }
 * ```
 */
export function memoryCgroupOf(
  procSelfCgroup: string,
  root = CGROUP_ROOT,
): { version: 1 | 2; dir: string } | undefined {
  const lines = procSelfCgroup.split('\n');
  for (const line of lines) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers?.split(',').includes('memory') && path !== undefined) {
      return { version: 1, dir: join(root, 'memory', path) };
    }
  }
  for (const line of lines) {
    const path = /^0::(.*)$/.exec(line)?.[1];
    if (path !== undefined) return { version: 2, dir: join(root, path) };
  }
  return undefined;
}

/**
 * A command prefix that runs what follows it in a memory cgroup limited to `memoryMiB`
 * (`rocketmq-lambda-bench-<MiB>` under this process's own). Throws naming the file it could not write.
 *
 * @example
 * ```ts
 * const wrapper = await memoryLimitWrapper(512); // ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', '/sys/fs/cgroup/...']
 * await runChild(wrapper[0], [...wrapper.slice(1), process.execPath, script], { timeoutMs });
 * ```
 */
export async function memoryLimitWrapper(memoryMiB: number): Promise<string[]> {
  if (!Number.isSafeInteger(memoryMiB) || memoryMiB < 64) {
    throw new Error(`a memory limit is a whole number of MiB, at least 64; got ${memoryMiB}`);
  }
  const own = memoryCgroupOf(await readFile('/proc/self/cgroup', 'utf8'));
  if (own === undefined) {
    throw new Error(
      '/proc/self/cgroup names no memory cgroup: the bench cannot give a child a memory limit here',
    );
  }
  const dir = join(own.dir, `rocketmq-lambda-bench-${memoryMiB}`);
  const limitFile = join(dir, own.version === 1 ? 'memory.limit_in_bytes' : 'memory.max');
  try {
    await mkdir(dir, { recursive: true });
    if (!existsSync(limitFile)) {
      throw new Error(
        own.version === 1
          ? `${dir} has no memory.limit_in_bytes`
          : `${dir} has no memory.max: the parent's cgroup.subtree_control does not offer the memory controller`,
      );
    }
    await writeFile(limitFile, String(memoryMiB * 2 ** 20));
  } catch (cause) {
    throw new Error(
      `cannot limit a child's memory to ${memoryMiB} MiB through ${limitFile} (cgroup v${own.version}; the bench needs to write there, as root in a container usually can)`,
      { cause },
    );
  }
  return ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir];
}
