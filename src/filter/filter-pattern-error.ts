import { RocketMQError } from '../errors.js';

/**
 * A filter pattern that cannot be compiled: not JSON, an unknown operator, a bad operand or a bound
 * exceeded. Permanent (only a change of configuration fixes it); `path` names the bad part, as in
 * `filters[1].body.status[0].numeric`, and starts the message.
 */
export class FilterPatternError extends RocketMQError {
  /** Where in the patterns the problem is (`filters[0].body.amount[1].numeric`). */
  readonly path: string;
  /** What is wrong there: the message after its path. */
  readonly problem: string;

  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`, { permanent: true });
    this.path = path;
    this.problem = problem;
  }
}
