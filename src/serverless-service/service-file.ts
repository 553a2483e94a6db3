/**
 * Which files are a Serverless service (serverless.yml and its variants) rather than a poller config:
 * the commands that accept either (`validate`, `status`, `offsets`, `dlq`) decide by the file's name.
 */
import path from 'node:path';

/**
 * True for `serverless.yml`, `serverless.<stage>.yaml`, `serverless.ts`, ... (the names the Framework
 * reads with `--config`).
 */
export function isServiceFile(file: string): boolean {
  return /^serverless(\.[\w-]+)?\.(ya?ml|json|js|cjs|mjs|ts)$/i.test(path.basename(file));
}
