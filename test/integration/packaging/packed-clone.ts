/**
 * One `npm pack` of a clone-like copy of the checkout per test run, shared by the files that need the
 * release tarball: npm-packages.test.ts (which also works in the clone, dist/ built by the pack's prepack)
 * and the image's runtime stage (image/packed-package.ts, which unpacks the tarball). The integration files
 * run in one worker that keeps its modules (vitest.config.ts, `isolate: false`), so the second file finds
 * the first one's pack: a build of dist/ and a pack less per run. The clone and the tarball live in the
 * run's directory (`runTempDir`, test/setup/global-setup.ts), removed at the run's teardown.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { inject } from 'vitest';
import { type CloneCheckout, cloneCheckout } from './clone-checkout.js';

/** The shared clone and its tarball, each as soon as it is there. */
export interface PackedClone {
  /** The clone, as soon as it is copied (dist/ is only there once `tarball` resolves). */
  readonly cloned: Promise<CloneCheckout>;
  /** The `.tgz` that `npm pack` wrote (its prepack built the clone's dist/). */
  readonly tarball: Promise<string>;
}

let shared: PackedClone | undefined;

/**
 * The run's packed clone (made on the first call). Callers must not remove the clone or the tarball, nor
 * change the clone's tracked files or dist/.
 *
 * @example
 * ```ts
 * const packed = packedClone();
 * const clone = await packed.cloned;
 * const tarball = await packed.tarball;
 * ```
 */
export function packedClone(): PackedClone {
  if (shared !== undefined) return shared;
  const parent = inject('runTempDir');
  const cloned = cloneCheckout(parent);
  const tarball = (async () => {
    const dir = await mkdtemp(path.join(parent, 'rl-packed-clone-'));
    const clone = await cloned;
    const printed = await clone.run('npm', ['pack', '--json', '--pack-destination', dir]);
    const filename = (JSON.parse(printed) as { filename?: string }[])[0]?.filename;
    if (filename === undefined) throw new Error(`npm pack printed no filename: ${printed}`);
    return path.join(dir, filename);
  })();
  // Awaited by the callers; a failure must not count as unhandled meanwhile.
  cloned.catch(() => undefined);
  tarball.catch(() => undefined);
  shared = { cloned, tarball };
  return shared;
}
