/**
 * The vitest configuration of a matrix run: the repository's own (vitest.config.ts), with the JSON
 * report written where the matrix runner says (`BROKER_MATRIX_REPORT`) instead of
 * `.vitest-report.json`, which other runs in the same tree write too. Reporter options in a config
 * win over `--outputFile` on the command line, hence a config.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

const reportFile = process.env.BROKER_MATRIX_REPORT;
if (reportFile === undefined || reportFile === '') {
  throw new Error('BROKER_MATRIX_REPORT is not set: run this configuration through npm run test:matrix');
}

export default defineConfig({
  ...base,
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { ...base.test, reporters: ['default', ['json', { outputFile: reportFile }]] },
});
