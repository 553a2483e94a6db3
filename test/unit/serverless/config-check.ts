/**
 * Checks a generated poller config with the poller's own parser (`src/config`), after standing in for
 * the deploy-time values. Problems the parser reports only because this build's config does not know a
 * mapping option yet are listed apart (see {@link PENDING_CONFIG_KEYS}), so the assertion is exact about
 * everything else.
 */
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { type PollerConfigSub, renderPollerConfig } from '../../../src/serverless/index.js';

/** Mapping keys the plugin takes that the poller's config may not accept yet (bisect, age, onFailure). */
export const PENDING_CONFIG_KEYS = ['bisectBatchOnError', 'maxRecordAgeSeconds', 'onFailure'] as const;

/**
 * Deploy-time stand-ins: function `i` is `arn:aws:lambda:eu-west-1:123456789012:function:fn<i>`.
 *
 * @example
 * ```ts
 * deployValues(sub)['Function0']; // => 'arn:aws:lambda:eu-west-1:123456789012:function:fn0'
 * ```
 */
export function deployValues(sub: PollerConfigSub): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of Object.keys(sub['Fn::Sub'][1])) {
    if (name === 'OffsetsTable') values[name] = 'rmq-offsets-table';
    else if (name === 'NameServers') values[name] = '10.0.0.10:9876';
    else if (name.startsWith('Function'))
      values[name] = `arn:aws:lambda:eu-west-1:123456789012:function:fn${name.slice(8)}`;
    else if (name.startsWith('OnFailure'))
      values[name] = `arn:aws:sqs:eu-west-1:123456789012:failures${name.slice(9)}`;
    else throw new Error(`no stand-in for variable ${name}`);
  }
  return values;
}

/**
 * Parses the rendered config; returns the config (when it parsed), and the problems split into pending
 * ones (a Lambda ARN, or a {@link PENDING_CONFIG_KEYS} key, not yet accepted) and the rest.
 *
 * @example
 * ```ts
 * const { unexpected } = checkPollerConfig(compiled.pollerConfig);
 * expect(unexpected).toEqual([]);
 * ```
 */
export function checkPollerConfig(sub: PollerConfigSub): {
  config: RunConfig | undefined;
  raw: Record<string, unknown>;
  pending: string[];
  unexpected: string[];
} {
  const raw = JSON.parse(renderPollerConfig(sub, deployValues(sub))) as Record<string, unknown>;
  try {
    return { config: parseConfig(raw, { baseDir: '/app', env: {} }), raw, pending: [], unexpected: [] };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const isPending = (line: string) =>
      /^mappings\[\d+\]\.function: Lambda functions are not supported by this build yet/.test(line) ||
      PENDING_CONFIG_KEYS.some((key) => new RegExp(`^mappings\\[\\d+\\]\\.${key}: unknown key`).test(line));
    return {
      config: undefined,
      raw,
      pending: error.problems.filter(isPending),
      unexpected: error.problems.filter((line) => !isPending(line)),
    };
  }
}
