/** The problems a config text that must be refused names, for the tests of reading config text. */
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfigText } from '../../../src/config/load-config.js';

/** The problems of `text` read as `format`, which must be refused; throws when it is accepted. */
export function textProblems(text: string, format: 'json' | 'yaml'): readonly string[] {
  try {
    parseConfigText(text, format);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('accepted');
}
