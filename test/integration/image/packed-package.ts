/**
 * The rocketmq-lambda package as a release publishes it, unpacked: `npm pack` of a clone-like copy of the
 * checkout (its prepack builds dist/), then the tarball's files written out with their modes, as
 * `tar -xzf` gives them under `package/`. This directory is the image's build context in CI, as the
 * installed package is for `image.build` and the registry's tarball is in a release.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packedClone } from '../packaging/packed-clone.js';
import { readTarball } from '../packaging/tar-entries.js';

/**
 * A packed and unpacked package.
 *
 * @example
 * ```ts
 * const pkg = await packedPackage();
 * onTestFinished(() => pkg.remove());
 * ```
 */
export interface PackedPackage {
  /** The `.tgz` that `npm pack` wrote (the run's shared one: not removed by {@link PackedPackage.remove}). */
  readonly tarball: string;
  /** The unpacked package (what the tarball holds under `package/`). */
  readonly dir: string;
  /** The tarball's file paths relative to `dir`, e.g. `dist/cli/main.js`. */
  readonly files: readonly string[];
  /** Removes the unpacked copy. */
  remove(): Promise<void>;
}

/**
 * The checkout's commit-to-be as `npm pack` packs it (once per run, packed-clone.ts), unpacked into a temp
 * directory of the caller's.
 *
 * @example
 * ```ts
 * const { dir } = await packedPackage(); // dir/package.json, dir/dist/..., dir/infra/docker/Dockerfile
 * ```
 */
export async function packedPackage(): Promise<PackedPackage> {
  // The run's one pack (packed-clone.ts); only the unpacked copy is this caller's.
  const tarball = await packedClone().tarball;
  const work = await mkdtemp(path.join(tmpdir(), 'rl-packed-'));
  const remove = () => rm(work, { recursive: true, force: true });
  try {
    const dir = path.join(work, 'package');
    const files: string[] = [];
    for (const entry of await readTarball(tarball)) {
      if (!entry.path.startsWith('package/'))
        throw new Error(`${tarball}: ${entry.path} is outside package/`);
      const relative = entry.path.slice('package/'.length);
      const file = path.join(dir, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, entry.content);
      await chmod(file, entry.mode);
      files.push(relative);
    }
    return { tarball, dir, files, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
