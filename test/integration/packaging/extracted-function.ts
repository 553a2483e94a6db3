/**
 * A function's zip, extracted, run as the Lambda Node.js runtime runs it from /var/task: a fresh Node
 * process whose module resolution sees only the extracted files (the directory lies under the OS temp
 * dir, with no node_modules above it), the handler module imported by its `file.export` name, called
 * with an event and a Lambda-shaped context.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** A cold start and one batch take well under a second; a hang must not stall the suite. */
const CHILD_TIMEOUT_MS = 30_000;

/** Runs in the child: imports the handler, calls it once, prints its result as JSON. */
const INVOKE_SCRIPT = `
import { pathToFileURL } from 'node:url';
const [taskDir, handlerName, eventJson] = process.argv.slice(1);
const dot = handlerName.lastIndexOf('.');
const module = await import(pathToFileURL(taskDir + '/' + handlerName.slice(0, dot) + '.js').href);
const handler = module[handlerName.slice(dot + 1)];
if (typeof handler !== 'function') throw new Error(handlerName + ' is not a function');
const deadline = Date.now() + 60_000;
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'packaged',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:packaged',
  memoryLimitInMB: '256',
  awsRequestId: 'request-1',
  logGroupName: '/aws/lambda/packaged',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => deadline - Date.now(),
};
const result = await handler(JSON.parse(eventJson), context);
process.stdout.write('\\nRESULT ' + JSON.stringify(result ?? null) + '\\n');
`;

/** Runs in the child: \`require\`s a package (CommonJS, as a CommonJS handler would), prints its exports. */
const REQUIRE_SCRIPT = `
const kit = require(process.argv[1]);
process.stdout.write('\\nEXPORTS ' + JSON.stringify(Object.keys(kit).sort()) + '\\n');
`;

/**
 * Calls handler `handlerName` (e.g. `handler.handler`, `dist/examples/orders.handler`) of the function
 * extracted at `taskDir` with `event`; resolves with what it returned.
 *
 * @example
 * ```ts
 * const response = await invokeExtracted(taskDir, 'handler.handler', event);
 * ```
 */
export async function invokeExtracted(
  taskDir: string,
  handlerName: string,
  event: unknown,
): Promise<unknown> {
  assertIsolated(taskDir);
  const stdout = await node(
    ['--input-type=module', '-e', INVOKE_SCRIPT, taskDir, handlerName, JSON.stringify(event)],
    taskDir,
  );
  return JSON.parse(lastLine(stdout, 'RESULT ')) as unknown;
}

/**
 * The export names of package `name` when a CommonJS module in `taskDir` `require`s it.
 *
 * @example
 * ```ts
 * const names = await requireExports(taskDir, 'rocketmq-lambda-handler');
 * ```
 */
export async function requireExports(taskDir: string, name: string): Promise<string[]> {
  assertIsolated(taskDir);
  const stdout = await node(['--input-type=commonjs', '-e', REQUIRE_SCRIPT, name], taskDir);
  return JSON.parse(lastLine(stdout, 'EXPORTS ')) as string[];
}

/** Module resolution climbs directories: a node_modules above the task would hide a missing package. */
function assertIsolated(taskDir: string): void {
  for (let dir = path.dirname(path.resolve(taskDir)); ; dir = path.dirname(dir)) {
    const modules = path.join(dir, 'node_modules');
    if (existsSync(modules)) throw new Error(`${modules} exists above ${taskDir}: resolution would reach it`);
    if (path.dirname(dir) === dir) return;
  }
}

function lastLine(stdout: string, marker: string): string {
  const line = stdout.split('\n').findLast((text) => text.startsWith(marker));
  if (line === undefined) throw new Error(`the child printed no ${marker.trim()} line:\n${stdout}`);
  return line.slice(marker.length);
}

/** `node <args>` in `cwd` with only PATH from this environment (as bare as a Lambda sandbox). */
function node(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd, env: { PATH: process.env.PATH, NODE_OPTIONS: '' }, timeout: CHILD_TIMEOUT_MS },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new Error(`node ${args[0]} in ${cwd} failed:\n${stdout}${stderr}`, { cause: error }));
      },
    );
  });
}
