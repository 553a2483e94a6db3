/**
 * The mapping's `filters` (filter criteria in Lambda's pattern language, src/filter): every pattern is
 * compiled as the poller will compile it, and a refused one is reported at the key path of its bad part
 * (`mappings[0].filters[1].body.status[0].numeric: ...`). Shared by the run config and the Serverless
 * `rocketmq` event (and through it the CDK event source), so every surface refuses the same patterns in
 * the same words.
 */

import { FilterPatternError } from '../filter/filter-pattern-error.js';
import { compileFilter } from '../filter/message-filter.js';
import { asPlainRecord } from '../util/plain-record.js';
import type { ConfigProblem, KeyPath } from './config-problem.js';

/** The root of the paths compileFilter writes; replaced by the key's own path. */
const ROOT = 'filters';
/** One step of a filter path: `.key`, `[index]` or `["quoted key"]` (src/filter/pattern-path.ts). */
const STEP = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/**
 * The problem of `filters` at `path`, if any. Values of the wrong type are left to the schema's lines.
 */
export function filterCriteriaProblems(filters: unknown, path: KeyPath): ConfigProblem[] {
  if (!Array.isArray(filters)) return [];
  if (!filters.every((pattern) => typeof pattern === 'string' || asPlainRecord(pattern) !== undefined))
    return [];
  try {
    compileFilter(filters, { path: ROOT });
    return [];
  } catch (error) {
    if (!(error instanceof FilterPatternError)) throw error;
    return [{ path: [...path, ...patternKeyPath(error.path)], message: error.problem }];
  }
}

/**
 * The steps of a filter path below its root as a key path (`filters[1].body` → `[1, 'body']`); a path
 * that does not parse (never made by src/filter) stays one step of text.
 */
export function patternKeyPath(filterPath: string): KeyPath {
  if (!filterPath.startsWith(ROOT)) return [filterPath];
  const steps: (string | number)[] = [];
  STEP.lastIndex = ROOT.length;
  while (STEP.lastIndex < filterPath.length) {
    const at = STEP.lastIndex;
    const match = STEP.exec(filterPath);
    if (match === null) {
      steps.push(filterPath.slice(at).trim());
      break;
    }
    const [, key, index, quoted] = match;
    if (key !== undefined) steps.push(key);
    else if (index !== undefined) steps.push(Number(index));
    else steps.push(JSON.parse(quoted as string) as string);
  }
  return steps;
}
