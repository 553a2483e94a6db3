/**
 * `npm run pack:handler [-- --pack-destination <dir>]`: packs the `rocketmq-lambda-handler` package (see
 * handler-package.ts) into `<dir>` (default: the current directory, as `npm pack` does) and prints the
 * tarball's path. Publish it with `npm publish <tarball>`.
 */
import { parseArgs } from 'node:util';
import { packHandlerPackage } from './handler-package.js';

const { values } = parseArgs({
  options: { 'pack-destination': { type: 'string', default: process.cwd() } },
  strict: true,
});
const tarball = await packHandlerPackage(values['pack-destination']);
process.stdout.write(`${tarball}\n`);
