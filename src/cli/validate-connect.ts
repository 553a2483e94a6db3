/**
 * The checks of `rocketmq-lambda validate --connect`: what a poller needs from the world outside its
 * config, each asked the way the poller will ask it and none changing anything. Per mapping, its topic's
 * route on the name servers and its SQL92 filter on a broker (mapping-broker-checks.ts); the offsets
 * store (a DynamoDB table that exists and can be read with the credentials at hand, offset-table-probe.ts;
 * a directory the file store may write to, offset-directory-probe.ts); and per mapping its function (a
 * Lambda function that exists and may be invoked, by a DryRun invoke that runs nothing, lambda-dry-run.ts;
 * a `local:` handler module, imported by the checks before these). Each check is one line, passed or not.
 */
import { classifyFunctionRef } from '../config/function-ref.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import { dryRunInvoke } from '../invoke/lambda-dry-run.js';
import { offsetDirectoryProblem } from '../offsets/offset-directory-probe.js';
import { probeOffsetTable } from '../offsets/offset-table-probe.js';
import { mappingBrokerProblems } from '../poller/mapping-broker-checks.js';
import { offsetStoreKindOf } from '../poller/offset-stores.js';
import { rocketMQClientOf } from '../poller/rocketmq-client-of-config.js';
import { describeError } from '../util/describe-error.js';
import { echoedText } from '../util/echoed-value.js';
import type { Logger } from '../util/logger.js';

/** The most characters of a check's reason printed: an AWS or broker message, not a dump. */
const MAX_DETAIL_CHARS = 1_000;

/** One check of `validate --connect`. */
export interface ConnectCheck {
  /** The config key the check is about: `mappings.orders.topic`, `offsets`, `mappings.orders.function`. */
  readonly check: string;
  readonly ok: boolean;
  /** What was found (passed) or why it failed, one line. */
  readonly detail: string;
}

/** What the checks of one config may look at. */
export interface ConnectCheckOptions {
  /** Where broker and name server clients log (warnings of retries). */
  readonly logger: Logger;
  /**
   * Check the offsets store. Off for a serverless.yml: its store is dev's embedded DynamoDB, which only
   * runs while dev does. @default true
   */
  readonly offsets?: boolean;
}

/**
 * Every check of `config`, in the order: each mapping's topic (and filter), the offsets store, each
 * mapping's function. Never throws for what a peer answers: each answer becomes a check.
 */
export async function connectChecks(
  config: RunConfig,
  options: ConnectCheckOptions,
): Promise<ConnectCheck[]> {
  const checks: ConnectCheck[] = [];
  checks.push(...(await brokerChecks(config, options.logger)));
  if (options.offsets !== false) checks.push(...(await offsetStoreChecks(config)));
  checks.push(...(await functionChecks(config)));
  return checks;
}

/** The line of a check, as `validate` prints it. */
export function checkLine(check: ConnectCheck): string {
  return `${check.ok ? 'ok  ' : 'FAIL'} ${check.check}: ${check.detail}`;
}

async function brokerChecks(config: RunConfig, logger: Logger): Promise<ConnectCheck[]> {
  const client = rocketMQClientOf(config, { logger });
  const checks: ConnectCheck[] = [];
  try {
    for (const mapping of config.mappings) {
      const problems = await mappingBrokerProblems([mapping], client);
      for (const problem of problems) checks.push(failedCheck(problem));
      const where = `mappings.${mapping.name}`;
      if (!problems.some((problem) => problem.startsWith(`${where}.topic:`))) {
        checks.push({
          check: `${where}.topic`,
          ok: true,
          detail: `${mapping.topic}: route on the name servers`,
        });
      }
      if (mapping.filter.type === 'SQL92' && problems.length === 0) {
        checks.push({
          check: `${where}.filter`,
          ok: true,
          detail: 'a broker of the topic compiles the SQL92 filter',
        });
      }
    }
  } finally {
    await client.close();
  }
  return checks;
}

/** A problem line of mapping-broker-checks.ts (`<key>: <why>`) as a failed check. */
function failedCheck(problem: string): ConnectCheck {
  const colon = problem.indexOf(': ');
  return colon < 0
    ? { check: 'mappings', ok: false, detail: bounded(problem) }
    : { check: problem.slice(0, colon), ok: false, detail: bounded(problem.slice(colon + 2)) };
}

/** One check per store the mappings use (DynamoDB for CLUSTERING ones, files for BROADCASTING ones). */
async function offsetStoreChecks(config: RunConfig): Promise<ConnectCheck[]> {
  const offsets = config.offsets;
  const kinds = new Set(config.mappings.map((mapping) => offsetStoreKindOf(offsets, mapping)));
  const checks: ConnectCheck[] = [];
  const clustering = config.mappings.find((mapping) => mapping.messageModel === 'CLUSTERING');
  if (kinds.has('dynamodb') && offsets.store === 'dynamodb' && clustering !== undefined) {
    const where = offsets.endpoint === undefined ? '' : ` at ${endpointHost(offsets.endpoint)}`;
    const table = `DynamoDB table ${offsets.table}${where}`;
    try {
      const found = await probeOffsetTable({
        table: offsets.table,
        group: clustering.consumerGroup,
        region: offsets.region,
        endpoint: offsets.endpoint,
        createTableIfMissing: offsets.createTable,
      });
      checks.push({
        check: 'offsets',
        ok: true,
        detail:
          found === 'readable'
            ? `${table}: exists, readable`
            : `${table}: does not exist yet; run creates it (offsets.createTable)`,
      });
    } catch (error) {
      checks.push({ check: 'offsets', ok: false, detail: bounded(describeError(error)) });
    }
  }
  if (kinds.has('file')) {
    const problem = await offsetDirectoryProblem(offsets.path);
    checks.push(
      problem === undefined
        ? { check: 'offsets.path', ok: true, detail: `${offsets.path}: writable` }
        : { check: 'offsets.path', ok: false, detail: bounded(problem) },
    );
  }
  return checks;
}

/** One check per mapping; a function several mappings share is asked once. */
async function functionChecks(config: RunConfig): Promise<ConnectCheck[]> {
  const asked = new Map<string, Promise<string | undefined>>();
  const checks: ConnectCheck[] = [];
  for (const mapping of config.mappings) {
    checks.push(await functionCheck(mapping, config, asked));
  }
  return checks;
}

async function functionCheck(
  mapping: MappingConfig,
  config: RunConfig,
  asked: Map<string, Promise<string | undefined>>,
): Promise<ConnectCheck> {
  const check = `mappings.${mapping.name}.function`;
  const ref = classifyFunctionRef(mapping.functionRef);
  switch (ref.kind) {
    case 'local':
      // validate imported it before connecting (start-checks.ts): it would not get here otherwise.
      return {
        check,
        ok: true,
        detail: `${ref.ref}: the handler module loads and exports ${ref.exportName}`,
      };
    case 'invalid':
      return { check, ok: false, detail: bounded(ref.reason) };
    case 'lambda': {
      let problem = asked.get(ref.ref);
      if (problem === undefined) {
        problem = dryRunInvoke(ref.ref, {
          region: config.lambda.region,
          endpoint: config.lambda.endpoint,
        }).then(
          () => undefined,
          (error: unknown) => describeError(error),
        );
        asked.set(ref.ref, problem);
      }
      const why = await problem;
      const where = config.lambda.endpoint === undefined ? '' : ` at ${endpointHost(config.lambda.endpoint)}`;
      return why === undefined
        ? { check, ok: true, detail: `Lambda function ${ref.ref}${where}: exists, invocable (DryRun)` }
        : { check, ok: false, detail: bounded(why) };
    }
  }
}

/** The host of an endpoint URL: never its user info, path or query. */
function endpointHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return '(an endpoint that is not a URL)';
  }
}

function bounded(text: string): string {
  return echoedText(text, MAX_DETAIL_CHARS);
}
