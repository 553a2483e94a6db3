/**
 * The poller's container image (infra/docker/Dockerfile) runs `rocketmq-lambda run` under bare `node`
 * with the environment its `ENV` lines set: `NODE_ENV` and, where the image sets V8 flags, `NODE_OPTIONS`.
 * The bench runs every node child that stands for the poller (our drain contenders, the scenarios'
 * drain and latency children) with that same environment, read from the Dockerfile itself, so that a
 * flag adopted in the image is measured by the next run and a figure never comes from flags the image
 * does not set (issue 34: "the bench must run the poller as the image runs it").
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
 * await runChild(process.execPath, [script, JSON.stringify(spec)], { timeoutMs, env: imageNodeEnv() });
 * ```
 */
export function imageNodeEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, ...rest } = base;
  return { ...rest, LOG_LEVEL: base.LOG_LEVEL ?? 'warn', ...imageNodeVariables() };
}

/**
 * The image's node variables in words, for workload texts and reports.
 *
 * @example
 * ```ts
 * imageNodeDescription(); // => 'as the image runs the poller (infra/docker/Dockerfile): NODE_ENV=production, no NODE_OPTIONS'
 * ```
 */
export function imageNodeDescription(variables = imageNodeVariables()): string {
  const options = variables.NODE_OPTIONS;
  const set = Object.entries(variables)
    .filter(([key]) => key !== 'NODE_OPTIONS')
    .map(([key, value]) => `${key}=${value}`);
  set.push(options === undefined || options === '' ? 'no NODE_OPTIONS' : `NODE_OPTIONS="${options}"`);
  return `as the image runs the poller (infra/docker/Dockerfile): ${set.join(', ')}`;
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
