/**
 * `rocketmq-lambda validate`: the checks `run`, `dev` and the Serverless plugin make before they start,
 * without starting anything. A poller config gets `run`'s (loadConfig); a serverless.yml, resolved as
 * `serverless print` resolves it, gets the plugin's and dev's. `--connect` adds what a poller needs from
 * outside (validate-connect.ts): topic routes and SQL92 filters, the offsets store, the functions.
 */

import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { CONFIG_ENV_VARIABLE, loadConfig, loadConfigFromEnv } from '../config/load-config.js';
import type { RunConfig } from '../config/run-config.js';
import { startProblems } from '../poller/start-checks.js';
import { DEV_STATE_DIR } from '../serverless-service/dev-state-file.js';
import { loadServerlessService } from '../serverless-service/load-serverless-service.js';
import { ServerlessPrintError } from '../serverless-service/serverless-print.js';
import { checkServerlessService } from '../serverless-service/serverless-service-checks.js';
import { isServiceFile } from '../serverless-service/service-file.js';
import { echoedText } from '../util/echoed-value.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { stderrLogger } from './cli-logger.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { keyValues } from './option-parsers.js';
import { type ConnectCheck, checkLine, connectChecks } from './validate-connect.js';

/** The serverless.yml `validate` reads when given no file, looked for in the working directory. */
const DEFAULT_SERVICE_FILES = ['serverless.yml', 'serverless.yaml'] as const;

/** What `validate --help` says beyond its options. */
export const VALIDATE_HELP: CommandHelp = {
  name: 'validate',
  description: `Checks a poller config (what rocketmq-lambda run reads) or a serverless.yml (what dev
and the Serverless plugin read) without starting anything, and prints "ok: N mappings" or one line
per problem.

A poller config also gets run's checks at start: its TLS key material must be usable (the passphrase
decrypts the key, the key is the certificate's), and every local: handler module is imported (its
top-level code runs) and must export the named function.

A file named serverless.* is a service: resolved as \`serverless print\` resolves it (by dev's own
resolver when its variables read only env, opt:stage, opt:region, sls:stage and self; else by the
Framework, with --stage, --region and --param), then checked as the plugin checks it at deploy and
as dev does (handler modules exist). Anything else is a poller config. Without --config:
./serverless.yml, else ${CONFIG_ENV_VARIABLE}.

--connect also checks, one line each ("ok" or "FAIL" and why), without changing anything:
each mapping's topic route on the name servers and its SQL92 filter on a broker; the offsets
store (a DynamoDB table exists and can be read with the credentials at hand; the directory of
file offsets can be written); each mapping's function (a Lambda function exists and may be
invoked: an Invoke of type DryRun, which runs nothing; a local: handler module loads). A
DynamoDB or Lambda endpoint on loopback (127.0.0.1, ::1, localhost) needs no AWS credentials.
The offsets store of a serverless.yml is dev's own and is not checked.

--json prints one document: ok, source, kind, mappings, problems, warnings, and with --connect
checks (each {check, ok, detail}) and connectProblems (the failed checks' lines).`,
  examples: [
    'rocketmq-lambda validate',
    'rocketmq-lambda validate --config poller.yaml --connect',
    'rocketmq-lambda validate --config serverless.yml --stage prod --json',
  ],
  exitCodes: {
    [EXIT_OK]: 'valid (warnings, if any, on stderr)',
    1: 'valid, but a --connect check failed (topic, filter, offsets store or function)',
    [EXIT_USAGE]: "bad arguments, or the config has problems (one line each; run's start checks included)",
  },
  environment: {
    [CONFIG_ENV_VARIABLE]:
      'a poller config as JSON, checked when no file is given and there is no serverless.yml',
    'ROCKETMQ_NAME_SERVER, NAMESRV_ADDR, ...': 'fill keys the file leaves out, as for run and dev',
  },
};

/** The options of `validate`, as commander parses them. */
interface ValidateOptions {
  readonly config?: string;
  readonly stage?: string;
  readonly region?: string;
  readonly param: string[];
  readonly connect?: boolean;
  readonly json?: boolean;
}

/**
 * What was checked and found.
 */
export interface ValidationReport {
  readonly ok: boolean;
  readonly source: string;
  readonly kind: 'poller-config' | 'serverless';
  readonly mappings: number;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /** `--connect` only: every check, passed or not, in order. */
  readonly checks: readonly ConnectCheck[];
  /** `--connect` only: the failed checks, one line each (`<key>: <why>`). */
  readonly connectProblems: readonly string[];
}

/**
 * Runs `validate`; resolves with the exit code.
 */
export const validateCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  const command = declareCommand(VALIDATE_HELP, io)
    .option('-c, --config <file>', 'a poller config or a serverless.yml (default ./serverless.yml)')
    .option('--stage <stage>', 'serverless.yml: the stage, as serverless --stage')
    .option('--region <region>', 'serverless.yml: the region, as serverless --region')
    .option(
      '--param <key=value>',
      `serverless.yml: a \${param:key} value (repeatable)`,
      keyValues('--param'),
      [],
    )
    .option('--connect', 'also check topics, filters, the offsets store and the functions (one line each)')
    .option('--json', 'print the report as JSON on stdout');
  const { options } = parseArgs<ValidateOptions>(command, args);
  const file = options.config ?? DEFAULT_SERVICE_FILES.find((name) => existsSync(name));
  const fromEnv = file === undefined && (io.env[CONFIG_ENV_VARIABLE]?.trim() ?? '') !== '';
  if (file === undefined && !fromEnv) {
    throw usageExit(
      command,
      `nothing to validate: give a poller config or serverless.yml (no ./serverless.yml here, no ${CONFIG_ENV_VARIABLE})`,
    );
  }
  const source = file ?? CONFIG_ENV_VARIABLE;
  const kind = file !== undefined && isServiceFile(file) ? 'serverless' : 'poller-config';

  const checked =
    kind === 'serverless'
      ? await checkService(file as string, options, io)
      : await checkPollerConfig(file, io);
  let checks: ConnectCheck[] = [];
  if (options.connect === true && checked.problems.length === 0) {
    if (checked.config === undefined) {
      checks = [
        {
          check: 'nameServers',
          ok: false,
          detail: 'the service names no name server (custom.rocketmq.nameServers)',
        },
      ];
    } else {
      checks = await connectChecks(checked.config, {
        logger: stderrLogger(io, 'error'),
        offsets: kind === 'poller-config',
      });
    }
  }
  const connectProblems = checks
    .filter((check) => !check.ok)
    .map((check) => `${check.check}: ${check.detail}`);
  const report: ValidationReport = {
    ok: checked.problems.length === 0 && connectProblems.length === 0,
    source,
    kind,
    mappings: checked.mappings,
    problems: checked.problems,
    warnings: checked.warnings,
    checks,
    connectProblems,
  };
  printReport(report, io, options.json === true);
  if (checked.problems.length > 0) return EXIT_USAGE;
  return connectProblems.length > 0 ? 1 : EXIT_OK;
});

interface Checked {
  readonly mappings: number;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  readonly config: RunConfig | undefined;
}

async function checkPollerConfig(file: string | undefined, io: CliIo): Promise<Checked> {
  let config: RunConfig;
  try {
    config =
      file === undefined ? loadConfigFromEnv({ env: io.env }) : await loadConfig(file, { env: io.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { mappings: 0, problems: error.problems, warnings: [], config: undefined };
  }
  // What run refuses at start before connecting: TLS key material, handlers that do not load.
  const problems = await startProblems(config);
  return { mappings: problems.length > 0 ? 0 : config.mappings.length, problems, warnings: [], config };
}

async function checkService(file: string, options: ValidateOptions, io: CliIo): Promise<Checked> {
  const configFile = path.resolve(file);
  const serviceDir = path.dirname(configFile);
  let document: unknown;
  try {
    ({ document } = await loadServerlessService(configFile, {
      env: io.env,
      stage: options.stage,
      region: options.region,
      params: options.param,
      stateDir: path.join(serviceDir, DEV_STATE_DIR),
      source: file,
    }));
  } catch (error) {
    if (error instanceof ConfigError) {
      return { mappings: 0, problems: error.problems, warnings: [], config: undefined };
    }
    // The Framework did not run to the end (timed out, could not start, printed no JSON): the service
    // could not be checked, a problem like any other, on one line. The message quotes no more of the
    // Framework's output than its last lines, each cut (src/serverless-service/serverless-print.ts).
    if (error instanceof ServerlessPrintError) {
      return { mappings: 0, problems: [printFailureLine(error)], warnings: [], config: undefined };
    }
    throw error;
  }
  return checkServerlessService(document, { serviceDir, env: io.env, stage: options.stage, source: file });
}

/**
 * The most characters of a Framework failure told on its line. Its message quotes at most the last 20
 * lines of the Framework's output, 300 characters each (src/serverless-service/serverless-print.ts), which fit; a
 * Framework killed by a signal comes with Node's own message, which holds all it wrote to stderr.
 */
const MAX_PRINT_FAILURE_CHARS = 8000;

/** One problem line for a Framework that could not print the service: its message's lines joined. */
function printFailureLine(error: ServerlessPrintError): string {
  const text = error.message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' | ');
  return `(serverless.yml): cannot resolve the service: ${echoedText(text, MAX_PRINT_FAILURE_CHARS)}`;
}

function printReport(report: ValidationReport, io: CliIo, json: boolean): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  for (const warning of report.warnings) io.stderr.write(`${report.source}: warning: ${warning}\n`);
  for (const problem of report.problems) io.stderr.write(`${report.source}: ${problem}\n`);
  if (report.problems.length > 0) return;
  for (const check of report.checks) io.stdout.write(`${checkLine(check)}\n`);
  const mappings = `${report.mappings} mapping${report.mappings === 1 ? '' : 's'}`;
  if (report.connectProblems.length > 0) {
    const failed = report.connectProblems.length;
    io.stdout.write(`valid: ${mappings}, but ${failed} --connect check${failed === 1 ? '' : 's'} failed\n`);
  } else {
    io.stdout.write(`ok: ${mappings}\n`);
  }
}
