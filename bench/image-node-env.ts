/**
 * The poller's container image (infra/docker/Dockerfile) runs `rocketmq-lambda run` under bare `node`
 * of its base image's Node line (`ARG NODE_IMAGE=node:22-...`) with the environment its `ENV` lines set:
 * `NODE_ENV` and, where the image sets V8 flags, `NODE_OPTIONS`. The bench runs every node child that
 * stands for the poller (our drain contenders, the scenarios' drain and latency children) on that Node
 * line and with that same environment, read from the Dockerfile itself, so that a flag adopted in the
 * image is measured by the next run and a figure never comes from a runtime or flags the image does not
 * use (issue 34: "the bench must run the poller as the image runs it").
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureNode22, NODE22_VERSION } from '../test/support/node22.js';

/** The image's Dockerfile, the single place the image's node flags are set. */
export const IMAGE_DOCKERFILE = fileURLToPath(new URL('../infra/docker/Dockerfile', import.meta.url));
/** The variables of the image's `ENV` lines that change how node runs the poller. */
const NODE_VARIABLES = ['NODE_OPTIONS', 'NODE_ENV'] as const;

/**
 * `NODE_OPTIONS` and `NODE_ENV` as the Dockerfile's `ENV` instructions set them (absent ones left out).
 * Reads `ENV KEY=value` pairs, several per instruction and continued lines included; values may be
 * double-quoted. Throws naming the file when it cannot be read.
 *
 * @example
 * ```ts
 * imageNodeVariables('ENV NODE_ENV=production \\\n    NODE_OPTIONS="--max-semi-space-size=32"');
 * // => { NODE_ENV: 'production', NODE_OPTIONS: '--max-semi-space-size=32' }
 * ```
 */
export function imageNodeVariables(dockerfile = readDockerfile()): Record<string, string> {
  const joined = dockerfile.replace(/\\\r?\n/g, ' ');
  const variables: Record<string, string> = {};
  for (const line of joined.split(/\r?\n/)) {
    const instruction = /^\s*ENV\s+(.*)$/i.exec(line)?.[1];
    if (instruction === undefined) continue;
    for (const pair of instruction.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      const [, key, raw] = pair;
      if (key === undefined || raw === undefined) continue;
      if (!(NODE_VARIABLES as readonly string[]).includes(key)) continue;
      variables[key] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    }
  }
  return variables;
}

/**
 * The environment of a poller child: `base` (the harness's), `LOG_LEVEL` (warn unless set) and the
 * image's node variables, which replace any the harness had.
 *
 * @example
 * ```ts
 * await runChild((await benchNode()).path, [script, JSON.stringify(spec)], { timeoutMs, env: imageNodeEnv() });
 * ```
 */
export function imageNodeEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, ...rest } = base;
  return { ...rest, LOG_LEVEL: base.LOG_LEVEL ?? 'warn', ...imageNodeVariables() };
}

/**
 * The image's Node and node variables in words, for workload texts and reports: the release the
 * children run once {@link benchNode} resolved it, the image's line before that.
 *
 * @example
 * ```ts
 * imageNodeDescription(); // => 'as the image runs the poller (infra/docker/Dockerfile): Node v22.23.5, NODE_ENV=production, no NODE_OPTIONS'
 * ```
 */
export function imageNodeDescription(
  variables = imageNodeVariables(),
  node: string = resolved?.version ?? `${imageNodeMajor()}.x`,
): string {
  const options = variables.NODE_OPTIONS;
  const set = [`Node ${node}`];
  for (const [key, value] of Object.entries(variables))
    if (key !== 'NODE_OPTIONS') set.push(`${key}=${value}`);
  set.push(options === undefined || options === '' ? 'no NODE_OPTIONS' : `NODE_OPTIONS="${options}"`);
  return `as the image runs the poller (infra/docker/Dockerfile): ${set.join(', ')}`;
}

/**
 * The major version of Node the image runs: the tag of the Dockerfile's `ARG NODE_IMAGE=node:<major>...`
 * default. Throws naming the file when there is no such line.
 *
 * @example
 * ```ts
 * imageNodeMajor('ARG NODE_IMAGE=node:22-bookworm-slim\nFROM ${NODE_IMAGE}'); // => 22
 * ```
 */
export function imageNodeMajor(dockerfile = readDockerfile()): number {
  const tag = /^\s*ARG\s+NODE_IMAGE=(?:[^\s:]*\/)?node:(\d+)\b/im.exec(dockerfile)?.[1];
  if (tag === undefined) {
    throw new Error(
      `${IMAGE_DOCKERFILE} has no "ARG NODE_IMAGE=node:<major>..." line: the bench cannot tell which Node line the image runs`,
    );
  }
  return Number(tag);
}

/**
 * The node executable that runs the poller as the image does, and its version.
 *
 * @example
 * ```ts
 * const { path, version } = await imageNode(); // => { path: '/root/.cache/.../bin/node', version: 'v22.23.5' }
 * ```
 */
export interface ImageNode {
  readonly path: string;
  readonly version: string;
}

/**
 * The node of the image's line ({@link imageNodeMajor}): this process's own when it runs that line,
 * else the pinned release of that line from the npm registry (test/support/node22.ts installs it once
 * into the user's cache). A line the bench has no pinned release for fails with what to do; the bench
 * never falls back to another line, whose collector and Buffer code differ.
 *
 * @example
 * ```ts
 * spawn((await imageNode()).path, [script, JSON.stringify(spec)], { env: imageNodeEnv() });
 * ```
 */
export async function imageNode(
  major = imageNodeMajor(),
  own: ImageNode = { path: process.execPath, version: process.version },
  install: (major: number) => Promise<string> = installNode,
): Promise<ImageNode> {
  if (own.version.startsWith(`v${major}.`)) return own;
  const path = await install(major);
  const { stdout } = await promisify(execFile)(path, ['--version']);
  const version = stdout.trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${path} reports ${version}, not Node ${major}`);
  return { path, version };
}

let resolving: Promise<ImageNode> | undefined;
let resolved: ImageNode | undefined;

/**
 * {@link imageNode} once per process: every child of a run gets the same binary.
 *
 * @example
 * ```ts
 * await runChild((await benchNode()).path, [script, JSON.stringify(spec)], { timeoutMs, env: imageNodeEnv() });
 * ```
 */
export function benchNode(): Promise<ImageNode> {
  resolving ??= imageNode().then((node) => {
    resolved = node;
    return node;
  });
  return resolving;
}

/**
 * The node {@link benchNode} resolved, or undefined before (or without) that.
 *
 * @example
 * ```ts
 * resolvedBenchNode()?.version; // => 'v22.23.5' once benchNode() resolved
 * ```
 */
export function resolvedBenchNode(): ImageNode | undefined {
  return resolved;
}

async function installNode(major: number): Promise<string> {
  const pinned = Number(NODE22_VERSION.split('.')[0]);
  if (major !== pinned) {
    throw new Error(
      `the image runs Node ${major} (${IMAGE_DOCKERFILE}), this process runs ${process.version}, and the bench ` +
        `pins a release of Node ${pinned} only (test/support/node22.ts): run the bench under Node ${major}, or pin a ${major}.x release there`,
    );
  }
  return ensureNode22();
}

let cached: string | undefined;

function readDockerfile(): string {
  if (cached !== undefined) return cached;
  try {
    cached = readFileSync(IMAGE_DOCKERFILE, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the image's node flags from ${IMAGE_DOCKERFILE}`, { cause: error });
  }
  return cached;
}
