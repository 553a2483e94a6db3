/**
 * Reading a run config: file → YAML or JSON → environment variables → schema and cross-key rules (every
 * problem collected) → {@link RunConfig}. Any problem throws one {@link ConfigError} listing them all.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { echoedText } from '../util/echoed-value.js';
import { applyEnvironment, CONFIG_ENV, environmentProblems } from './config-env.js';
import { ConfigError } from './config-error.js';
import { checkConfigTextSize, MAX_CONFIG_BYTES, readConfigFileText } from './config-file-text.js';
import { problemsOfIssues } from './config-issues.js';
import { knownKeysAt } from './config-keys.js';
import { type ConfigProblem, type KeyPath, problemLine } from './config-problem.js';
import { crossKeyProblems } from './config-rules.js';
import { runConfigSchema } from './config-schema.js';
import { parseJsonConfigText, parseYamlConfigText } from './config-syntax.js';
import { classifyFunctionRef } from './function-ref.js';
import { type RunConfig, resolveConfig } from './run-config.js';

/** The most bytes a config file or `ROCKETMQ_LAMBDA_CONFIG` may have (see config-file-text.ts). */
export { MAX_CONFIG_BYTES };

/** How a config text is read. */
export type ConfigFormat = 'yaml' | 'json';

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** Relative paths are resolved against it. @default process.cwd() */
  baseDir?: string | undefined;
  /** Environment variables that fill absent keys. @default process.env */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Named in errors. */
  source?: string | undefined;
  /** Also check that `local:` handler modules exist. @default false */
  checkModules?: boolean | undefined;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Environment variables that fill absent keys. @default process.env */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * Reads, validates and resolves a config file: YAML for `.yaml`/`.yml`, JSON for `.json`, otherwise
 * sniffed (`{` first means JSON). `local:` module paths and `offsets.path` are relative to the file's
 * directory, and `local:` modules must exist. A file over {@link MAX_CONFIG_BYTES} is refused before it is
 * read. Throws {@link ConfigError} with every problem.
 *
 * @example
 * ```ts
 * try {
 *   const config = await loadConfig('poller.yaml');
 *   console.log(config.mappings.map((m) => m.name));
 * } catch (err) {
 *   if (err instanceof ConfigError) console.error(err.problems.join('\n'));
 * }
 * ```
 */
export async function loadConfig(file: string, options: LoadConfigOptions = {}): Promise<RunConfig> {
  const absolute = path.resolve(file);
  const text = await readConfigFileText(file, { source: file });
  const raw = parseConfigText(text, configFormatOf(file, text), file);
  return parseConfig(raw, {
    baseDir: path.dirname(absolute),
    env: options.env,
    source: file,
    checkModules: true,
  });
}

/**
 * The environment variable that holds a whole config as JSON (containers without a config file).
 */
export const CONFIG_ENV_VARIABLE = CONFIG_ENV.config[0];

/** Options of {@link loadConfigFromEnv}. */
export interface LoadConfigFromEnvOptions {
  /** The environment: the config variable and the variables that fill absent keys. @default process.env */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** `local:` module paths and `offsets.path` are relative to it. @default process.cwd() */
  baseDir?: string | undefined;
}

/**
 * Reads the config from the `ROCKETMQ_LAMBDA_CONFIG` environment variable (JSON), for containers that
 * get their config without a file (an ECS task definition's environment). `local:` module paths and
 * `offsets.path` are relative to the working directory; problems name the variable as their source.
 * Throws {@link ConfigError} when the variable is unset, over {@link MAX_CONFIG_BYTES}, not JSON, or the
 * config is invalid.
 */
export function loadConfigFromEnv(options: LoadConfigFromEnvOptions = {}): RunConfig {
  const env = options.env ?? process.env;
  const source = CONFIG_ENV_VARIABLE;
  const text = env[source];
  if (text === undefined || text.trim() === '') {
    throw new ConfigError([`(config): ${source} is not set`], { source });
  }
  checkConfigTextSize(text, source);
  const raw = parseJsonConfigText(text, { source, what: 'variable' });
  return parseConfig(raw, { baseDir: options.baseDir ?? process.cwd(), env, source, checkModules: true });
}

/**
 * The format of a config file: by extension, else by content.
 */
export function configFormatOf(file: string, text: string): ConfigFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.yaml' || extension === '.yml') return 'yaml';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

/**
 * Parses config text; syntax errors throw {@link ConfigError} with their line and column and never quote
 * the text (see config-syntax.ts).
 */
export function parseConfigText(text: string, format: ConfigFormat, source?: string): unknown {
  return format === 'json' ? parseJsonConfigText(text, { source }) : parseYamlConfigText(text, { source });
}

/**
 * Validates and resolves a config object (already parsed from YAML or JSON). Throws {@link ConfigError}
 * with one line per problem.
 *
 * @example
 * ```ts
 * const config = parseConfig({
 *   nameServer: '127.0.0.1:9876',
 *   offsets: { store: 'memory' },
 *   mappings: [{ topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./handler.js#handler' }],
 * }, { baseDir: '/app' });
 * ```
 */
export function parseConfig(raw: unknown, options: ParseConfigOptions = {}): RunConfig {
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  const filled = applyEnvironment(raw, options.env ?? process.env);
  const result = runConfigSchema.safeParse(filled, { reportInput: true });
  const problems: ConfigProblem[] = [
    ...environmentProblems(raw, options.env ?? process.env),
    ...(result.success ? [] : problemsOfIssues(result.error.issues)),
    ...crossKeyProblems(filled),
    ...(options.checkModules === true ? missingModuleProblems(filled, baseDir) : []),
  ];
  if (problems.length > 0 || !result.success) {
    const lines = sortProblems(problems).map(problemLine);
    throw new ConfigError([...new Set(lines)], { source: options.source });
  }
  return resolveConfig(result.data, { baseDir, source: options.source, env: options.env ?? process.env });
}

/** Problems in reading order: by key path, keys in schema order, indexes ascending; stable otherwise. */
function sortProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return [...problems].sort((a, b) => compareKeyPaths(a.path, b.path));
}

function compareKeyPaths(a: KeyPath, b: KeyPath): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    const known = knownKeysAt(a.slice(0, i));
    const rank = (part: string | number | undefined): number => {
      const index = typeof part === 'string' ? known.indexOf(part) : -1;
      return index === -1 ? known.length : index;
    };
    return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** Extensions tsx (and vitest) load in place of a `.js` import. */
const SOURCE_TWINS: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts', '.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};

function missingModuleProblems(raw: unknown, baseDir: string): ConfigProblem[] {
  const mappings = (raw as { mappings?: unknown } | undefined)?.mappings;
  if (!Array.isArray(mappings)) return [];
  return mappings.flatMap((mapping: unknown, index): ConfigProblem[] => {
    const ref = (mapping as { function?: unknown } | null)?.function;
    if (typeof ref !== 'string') return [];
    const parsed = classifyFunctionRef(ref);
    if (parsed.kind !== 'local') return [];
    const file = path.resolve(baseDir, parsed.modulePath);
    if (moduleExists(file)) return [];
    return [
      {
        path: ['mappings', index, 'function'],
        message: `module ${echoedText(parsed.modulePath)} not found (looked for ${echoedText(file)})`,
      },
    ];
  });
}

function moduleExists(file: string): boolean {
  if (existsSync(file)) return true;
  const extension = path.extname(file);
  const stem = file.slice(0, file.length - extension.length);
  return (SOURCE_TWINS[extension] ?? []).some((twin) => existsSync(`${stem}${twin}`));
}
