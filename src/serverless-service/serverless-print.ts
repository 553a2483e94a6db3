/**
 * The service as the Serverless Framework resolves it: the Framework installed in the service (serverless
 * v3 or osls) run as `serverless print --format json` in the service directory, with dev's stage, region
 * and params. Every variable source the Framework and the service's plugins support works as it does for
 * `serverless deploy`, `.env` files included.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findJsonSyntaxProblem } from '../config/json-syntax.js';
import { RocketMQError } from '../errors.js';
import { echoedText } from '../util/echoed-value.js';

/** The packages that install the Framework's v3 line, in the order a service's node_modules is searched. */
export const FRAMEWORK_PACKAGES = ['serverless', 'osls'] as const;
/** What to install when a service has none (named in errors). */
export const FRAMEWORK_INSTALL_HINT = 'npm install --save-dev serverless@3 (or osls)';
/**
 * The AWS credentials `rocketmq-lambda dev` (and `npm run demo`) put in its own environment when it has
 * none, for its embedded DynamoDB. Given to the Framework they would turn "no credentials" into an
 * authentication failure at AWS, so the Framework does not get them.
 */
export const DEV_PLACEHOLDER_CREDENTIAL = 'local';
/** How long `serverless print` may take (AWS sources retry on network errors). */
export const PRINT_TIMEOUT_MS = 90_000;
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
/** How many lines of an unrecognised Framework failure are quoted. */
const QUOTED_LINES = 20;
/** How much of each quoted line is kept (a minified stack or a JSON dump is one huge line). */
const MAX_QUOTED_LINE_CHARS = 300;

/**
 * A Serverless Framework installed in a service.
 */
export interface ServerlessFramework {
  /** The package's own name (`serverless`, or `osls` also when installed under the name serverless). */
  readonly packageName: string;
  readonly version: string;
  /** Its CLI script, run with this Node. */
  readonly bin: string;
}

/**
 * `serverless print` could not run (not found, killed, timed out, or printed something that is not JSON).
 * A Framework that ran and refused the service is not this error: see {@link PrintOutcome}.
 */
export class ServerlessPrintError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause, retriable: false });
    this.name = 'ServerlessPrintError';
  }
}

/**
 * The Framework installed for `serviceDir`: the first of {@link FRAMEWORK_PACKAGES} in a `node_modules`
 * of the directory or one above it (as Node resolves packages), or undefined.
 */
export function findServerlessFramework(serviceDir: string): ServerlessFramework | undefined {
  for (const name of FRAMEWORK_PACKAGES) {
    for (let dir = path.resolve(serviceDir); ; dir = path.dirname(dir)) {
      const packageDir = path.join(dir, 'node_modules', name);
      const framework = frameworkAt(packageDir);
      if (framework !== undefined) return framework;
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function frameworkAt(packageDir: string): ServerlessFramework | undefined {
  const manifestFile = path.join(packageDir, 'package.json');
  if (!existsSync(manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    name?: unknown;
    version?: unknown;
    bin?: unknown;
  };
  const bins =
    typeof manifest.bin === 'string'
      ? { serverless: manifest.bin }
      : typeof manifest.bin === 'object' && manifest.bin !== null
        ? (manifest.bin as Record<string, unknown>)
        : {};
  const bin = [bins.serverless, bins.sls, bins.osls].find((entry) => typeof entry === 'string');
  if (typeof bin !== 'string') return undefined;
  return {
    packageName: typeof manifest.name === 'string' ? manifest.name : path.basename(packageDir),
    version: typeof manifest.version === 'string' ? manifest.version : 'unknown',
    bin: path.join(packageDir, bin),
  };
}

/**
 * Inputs of {@link printResolvedService}.
 */
export interface PrintOptions {
  /** The service's config file; the Framework runs in its directory. */
  readonly configFile: string;
  /** `--stage`: `${opt:stage}`, `${sls:stage}`; unset leaves the Framework's default (provider.stage, else dev). */
  readonly stage?: string | undefined;
  /** `--region`: `${opt:region}`, and the region AWS sources read. */
  readonly region?: string | undefined;
  /** `--param key=value`, each: `${param:key}`. */
  readonly params?: readonly string[] | undefined;
  /** The environment of `${env:...}`, `.env` loading and AWS credentials. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A directory added to the Framework's NODE_PATH (where it looks for plugins the service does not hold). */
  readonly pluginPath?: string | undefined;
  /** @default PRINT_TIMEOUT_MS */
  readonly timeoutMs?: number | undefined;
}

/**
 * What `serverless print` gave: the resolved service, or the Framework's own error message (the service
 * could not be resolved: a variable, a plugin, the configuration schema).
 */
export type PrintOutcome =
  | { readonly ok: true; readonly service: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * Runs the Framework's `print --format json` for the service and parses what it prints.
 */
export async function printResolvedService(
  framework: ServerlessFramework,
  options: PrintOptions,
): Promise<PrintOutcome> {
  const args = [framework.bin, 'print', '--format', 'json', '--config', path.basename(options.configFile)];
  if (options.stage !== undefined) args.push('--stage', options.stage);
  if (options.region !== undefined) args.push('--region', options.region);
  for (const param of options.params ?? []) args.push('--param', param);
  const timeoutMs = options.timeoutMs ?? PRINT_TIMEOUT_MS;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      execFile(
        process.execPath,
        args,
        {
          cwd: path.dirname(path.resolve(options.configFile)),
          env: frameworkEnv(options),
          timeout: timeoutMs,
          maxBuffer: MAX_OUTPUT_BYTES,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve({ code: 0, stdout, stderr });
          } else if (typeof error.code === 'number') {
            resolve({ code: error.code, stdout, stderr });
          } else if (error.killed === true) {
            reject(
              new ServerlessPrintError(
                `${framework.packageName} print did not finish in ${timeoutMs / 1000} s (an AWS variable source that cannot reach AWS?)${quote(stderr)}`,
                { cause: error },
              ),
            );
          } else {
            reject(
              // Not error.message: execFile puts all of stderr in it (up to the 32 MiB buffer).
              new ServerlessPrintError(
                `cannot run ${framework.bin}: ${error.signal === null || error.signal === undefined ? String(error.code ?? 'failed') : `killed by ${error.signal}`}${quote(stderr)}`,
              ),
            );
          }
        },
      );
    },
  );
  if (run.code !== 0) return { ok: false, message: frameworkErrorText(run.stdout, run.stderr) };
  return { ok: true, service: parsePrintOutput(run.stdout, framework) };
}

/** The caller's environment for the Framework, without dev's placeholder credentials, quiet and colourless. */
function frameworkEnv(options: PrintOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...options.env };
  if (
    env.AWS_ACCESS_KEY_ID === DEV_PLACEHOLDER_CREDENTIAL &&
    env.AWS_SECRET_ACCESS_KEY === DEV_PLACEHOLDER_CREDENTIAL
  ) {
    delete env.AWS_ACCESS_KEY_ID;
    delete env.AWS_SECRET_ACCESS_KEY;
  }
  env.SLS_TELEMETRY_DISABLED = '1';
  env.SLS_NOTIFICATIONS_MODE = 'off';
  env.NO_COLOR = '1';
  env.FORCE_COLOR = '0';
  if (options.pluginPath !== undefined) {
    env.NODE_PATH = [options.pluginPath, env.NODE_PATH]
      .filter((p) => p !== undefined && p !== '')
      .join(path.delimiter);
  }
  return env;
}

/**
 * The service in what `print --format json` wrote to stdout (anything the Framework logged before the
 * JSON is skipped).
 */
export function parsePrintOutput(
  stdout: string,
  framework: Pick<ServerlessFramework, 'packageName'>,
): unknown {
  const start = stdout.search(/^\{/m);
  const end = stdout.lastIndexOf('}');
  if (start !== -1 && end > start) {
    const json = stdout.slice(start, end + 1);
    // The output is the resolved service, secrets included: a problem names its place, never its text.
    const problem = findJsonSyntaxProblem(json, Number.POSITIVE_INFINITY);
    if (problem === undefined) {
      try {
        return JSON.parse(json) as unknown;
      } catch {
        // Told below without V8's words, which quote the text.
      }
    }
    const where =
      problem === undefined ? '' : ` (${problem.description} at offset ${start + problem.offset})`;
    throw new ServerlessPrintError(
      `${framework.packageName} print --format json printed no valid JSON service${where}`,
    );
  }
  throw new ServerlessPrintError(
    `${framework.packageName} print --format json printed no JSON service (${stdout.length} characters of output, none of them a JSON object)`,
  );
}

/**
 * The Framework's error message in a failed run's output: the text after its `Error:` line (osls writes it
 * to stdout, its environment details to stderr), else the last lines of stderr (never of stdout, which may
 * hold the resolved service and its secrets).
 */
export function frameworkErrorText(stdout: string, stderr: string): string {
  for (const output of [stdout, stderr]) {
    const text = stripAnsi(output);
    const marker = /^(?:\S+ )?Error:[ \t]*/m.exec(text);
    if (marker === null) continue;
    const after = text.slice(marker.index + marker[0].length);
    const message = after
      .split('\n')
      .filter((line) => !/^(Environment|Docs|Support|Bugs|Your Environment Information):/.test(line.trim()))
      .join('\n')
      .trim();
    if (message !== '') return message;
  }
  // Without an `Error:` line, only stderr is quoted: stdout may hold the resolved service.
  const lines = stripAnsi(stderr)
    .split('\n')
    .filter((line) => line.trim() !== '');
  return (
    lines
      .slice(-QUOTED_LINES)
      .map((line) => echoedText(line, MAX_QUOTED_LINE_CHARS))
      .join('\n') || 'it failed without a message'
  );
}

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
}

/**
 * The last lines of the Framework's stderr, each cut. Never stdout: what `print` writes there is the
 * resolved service, secrets included, and a run killed or timed out may have written some of it.
 */
function quote(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const quoted = lines.slice(-QUOTED_LINES).map((line) => echoedText(line, MAX_QUOTED_LINE_CHARS));
  return quoted.length === 0 ? '' : `:\n${quoted.join('\n')}`;
}
