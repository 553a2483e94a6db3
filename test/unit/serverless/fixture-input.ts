/**
 * Compiler input from a fixture service's serverless.yml, the way the plugin's hook gathers it (logical
 * ids as the framework names them for the fixtures' simple function keys).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { CompileRocketMQInput } from '../../../src/serverless/index.js';

/** The fixture services of the plugin's tests. */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, '../../fixtures/serverless');

interface ServiceFile {
  provider?: { timeout?: number };
  functions?: Record<string, { events?: unknown[]; timeout?: number }>;
  custom?: { rocketmq?: unknown };
}

/** The stage the integration tests package the fixtures for (`serverless package --stage test`). */
export const FIXTURE_STAGE = 'test';

/**
 * The compiler input of fixture `name`, for stage {@link FIXTURE_STAGE}.
 *
 * @example
 * ```ts
 * const input = fixtureInput('minimal');
 * ```
 */
export function fixtureInput(name: string): CompileRocketMQInput {
  const file = readFileSync(path.join(FIXTURES_DIR, name, 'serverless.yml'), 'utf8');
  const service = parse(file) as ServiceFile;
  return {
    custom: service.custom?.rocketmq,
    stage: FIXTURE_STAGE,
    functions: Object.entries(service.functions ?? {}).map(([key, fn]) => ({
      key,
      logicalId: `${key.charAt(0).toUpperCase()}${key.slice(1)}LambdaFunction`,
      events: fn.events ?? [],
      timeoutSeconds: fn.timeout ?? service.provider?.timeout,
    })),
  };
}
