/**
 * Whether the file offset store could keep offsets under a directory, found without writing anything
 * (for `rocketmq-lambda validate --connect`): the directory, or the nearest ancestor the store would
 * create it in, is a directory this process may write to. The store creates the missing levels itself
 * (file-offset-store.ts).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../util/describe-error.js';

/**
 * Undefined when offsets can be written under `directory` (absolute), else one line saying why not: which
 * path is not a directory, or may not be written to.
 */
export async function offsetDirectoryProblem(directory: string): Promise<string | undefined> {
  let current = path.resolve(directory);
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(current)).isDirectory();
    } catch (error) {
      const parent = path.dirname(current);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && parent !== current) {
        current = parent;
        continue;
      }
      return `cannot look at ${current}: ${describeError(error)}`;
    }
    if (!isDirectory) return `${current} is not a directory`;
    try {
      await access(current, constants.W_OK | constants.X_OK);
    } catch {
      return `${current} may not be written to by this user`;
    }
    return undefined;
  }
}
