/**
 * A serverless service (what `rocketmq-lambda dev` runs, `validate` checks and the operator commands
 * target), read as the Serverless Framework resolves it: serverless.yml as it is when it holds no
 * variable or only variables dev resolves itself the Framework's way (env, opt:stage/region, sls:stage,
 * self: simple-variables.ts), else what the Framework installed in the service prints (`serverless print --format json`),
 * with the Framework's resolution errors turned into problems that name each variable and its key.
 * Nothing here loads a TypeScript loader or dynalite: a `serverless.ts` is the Framework's to read.
 */
import path from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { readConfigFileText } from '../config/config-file-text.js';
import { parseJsonConfigText, parseYamlConfigText } from '../config/config-syntax.js';
import { writePluginFallback } from './serverless-plugin-fallback.js';
import {
  FRAMEWORK_INSTALL_HINT,
  findServerlessFramework,
  printResolvedService,
  type ServerlessFramework,
} from './serverless-print.js';
import { findVariables, resolutionProblems } from './serverless-variables.js';
import { resolveSimpleVariables } from './simple-variables.js';

/** Starts the problem lines about the service file itself. */
const SERVICE_LABEL = '(serverless.yml)';

/**
 * Reads serverless.yml (or serverless.json) as the poller's config is read: within the config size cap,
 * one document, aliases and nesting bounded, and syntax errors that give a line and column but never
 * quote the file (a serverless.yml can hold secrets). Every failure is a {@link ConfigError}.
 */
export async function readServerlessYaml(file: string): Promise<unknown> {
  const options = { source: file, label: SERVICE_LABEL };
  const text = await readConfigFileText(file, options);
  return /\.json$/i.test(file) ? parseJsonConfigText(text, options) : parseYamlConfigText(text, options);
}

/**
 * Inputs of {@link loadServerlessService}.
 */
export interface LoadServiceOptions {
  /** The environment of `${env:...}` (and of AWS credentials for `${ssm:...}`, `${cf:...}`, ...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--stage`; unset, the Framework's default applies (provider.stage, else dev). */
  readonly stage?: string | undefined;
  /** `--region`. */
  readonly region?: string | undefined;
  /** `--param key=value`, each. */
  readonly params?: readonly string[] | undefined;
  /** dev's state directory: the plugin fallback for the Framework goes under it. */
  readonly stateDir: string;
  /** Named in errors. @default the config file as given */
  readonly source?: string | undefined;
  /** The Framework to run; null for none. @default the one installed in the service directory */
  readonly framework?: ServerlessFramework | null | undefined;
  /** How long `serverless print` may take. */
  readonly timeoutMs?: number | undefined;
}

/**
 * A service as dev reads it.
 */
export interface LoadedService {
  /** The service with every variable resolved. */
  readonly document: unknown;
  /**
   * What resolved it: the Framework (`osls 4.3.1`), `rocketmq-lambda (env, self)` when dev did (the
   * sources it read), or undefined when the file had no variables.
   */
  readonly resolvedBy: string | undefined;
}

/**
 * Reads the service as the Serverless Framework resolves it: a YAML/JSON file without variables as it
 * is; one whose variables all read env, opt:stage, opt:region, sls:stage or self (with literal fallbacks)
 * resolved here by the Framework's rules (simple-variables.ts), without starting it; anything else through the Framework installed in the service (`serverless print --format json` with
 * the stage, region and params), so every variable source (self, sls, opt, env, file, param, strToBool,
 * ssm, cf, s3, aws, and those of the service's plugins) means what it means for `serverless deploy`.
 * Throws {@link ConfigError} naming each variable that cannot be resolved and its key, or naming the
 * package to install when the service has no Framework.
 */
export async function loadServerlessService(
  configFile: string,
  options: LoadServiceOptions,
): Promise<LoadedService> {
  const file = path.resolve(configFile);
  const serviceDir = path.dirname(file);
  const source = options.source ?? configFile;
  const raw = /\.(ya?ml|json)$/i.test(file) ? await readServerlessYaml(file) : undefined;
  const uses = raw === undefined ? [] : findVariables(raw);
  if (raw !== undefined && uses.length === 0) return { document: raw, resolvedBy: undefined };
  if (raw !== undefined) {
    const simple = resolveSimpleVariables(raw, options);
    if (simple.resolved) {
      return { document: simple.document, resolvedBy: `rocketmq-lambda (${simple.sources.join(', ')})` };
    }
  }

  const framework =
    options.framework === undefined ? findServerlessFramework(serviceDir) : (options.framework ?? undefined);
  if (framework === undefined) {
    const needs = (() => {
      const [first] = uses;
      if (first === undefined)
        return `(${path.basename(file)}): only the Serverless Framework reads this format`;
      const more = uses.length > 1 ? ` (and ${uses.length - 1} more)` : '';
      return `${first.key}: ${first.variable}${more}: dev resolves variables as \`serverless print\` does`;
    })();
    throw new ConfigError(
      [
        `${needs}, with the Serverless Framework installed in the service, and ${serviceDir} has none: ${FRAMEWORK_INSTALL_HINT}`,
      ],
      { source },
    );
  }
  const outcome = await printResolvedService(framework, {
    configFile: file,
    stage: options.stage,
    region: options.region,
    params: options.params,
    env: options.env,
    pluginPath: await writePluginFallback(path.join(options.stateDir, 'framework-plugins')),
    timeoutMs: options.timeoutMs,
  });
  const resolvedBy = `${framework.packageName} ${framework.version}`;
  if (outcome.ok) return { document: outcome.service, resolvedBy };
  const problems = raw === undefined ? [] : resolutionProblems(outcome.message, raw);
  if (problems.length > 0) throw new ConfigError(problems, { source });
  const hint = /unsupported function event/.test(outcome.message)
    ? " (is rocketmq-lambda/serverless in the service's plugins?)"
    : '';
  throw new ConfigError([`(${resolvedBy} print): ${outcome.message}${hint}`], { source });
}
