/**
 * Go command-line tools for tests (actionlint): each built once with `go install <module>@<version>` from the
 * Go module proxy into its own cached directory (`~/.cache/rocketmq-lambda/<name>-<version>/bin`, see
 * cached-tool.ts). A missing `go` fails with a message that says what to install; nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureCachedTool } from './cached-tool.js';

const run = promisify(execFile);

/** Building a tool compiles its module graph; on 2 shared cores that takes about a minute. */
const INSTALL_TIMEOUT_MS = 600_000;

/**
 * A tool to install: the Go package path of its command, the version (a module version tag), the binary.
 *
 * @example
 * ```ts
 * const tool: GoTool = { name: 'actionlint', version: 'v1.7.12', pkg: 'github.com/rhysd/actionlint/cmd/actionlint', executable: 'actionlint' };
 * ```
 */
export interface GoTool {
  readonly name: string;
  readonly version: string;
  /** The package of the command, as `go install` takes it (without `@version`). */
  readonly pkg: string;
  readonly executable: string;
}

/**
 * The path of the tool's binary, building it on first use.
 *
 * @example
 * ```ts
 * const actionlint = await ensureGoTool(tool); // ~/.cache/rocketmq-lambda/actionlint-v1.7.12/bin/actionlint
 * ```
 */
export function ensureGoTool(tool: GoTool): Promise<string> {
  return ensureCachedTool({
    name: tool.name,
    version: tool.version,
    binary: (dir) =>
      path.join(dir, 'bin', process.platform === 'win32' ? `${tool.executable}.exe` : tool.executable),
    build: (dir, binary) => build(tool, dir, binary),
  });
}

async function build(tool: GoTool, dir: string, binary: string): Promise<string> {
  await requireGo(tool.name);
  const bin = path.join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const spec = `${tool.pkg}@${tool.version}`;
  try {
    // GOBIN puts the binary in the cache directory; GOFLAGS from the environment could turn the build into
    // a vendored or workspace one, which `go install pkg@version` refuses.
    await run('go', ['install', spec], {
      env: { ...process.env, GOBIN: bin, GOFLAGS: '' },
      timeout: INSTALL_TIMEOUT_MS,
    });
  } catch (cause) {
    const stderr = (cause as { stderr?: unknown }).stderr;
    throw new Error(
      `${tool.name} setup: go install ${spec} failed (the Go module proxy must be reachable)${typeof stderr === 'string' && stderr !== '' ? `:\n${stderr}` : ''}`,
      { cause },
    );
  }
  if (!existsSync(binary)) throw new Error(`${tool.name} setup: go install ${spec} left no ${binary}`);
  return spec;
}

async function requireGo(toolName: string): Promise<void> {
  try {
    await run('go', ['version']);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(
      `${toolName} setup: the go command is missing; install Go 1.21 or newer (it fetches the newer toolchain a module asks for from the module proxy by itself; Debian bookworm's golang-go is 1.19, too old)`,
      { cause: error },
    );
  }
}
