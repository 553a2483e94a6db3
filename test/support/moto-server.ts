/**
 * A real CloudWatch API for tests: moto's server (`moto_server`, from PyPI, installed once into a cached
 * virtualenv by {@link ensurePythonTool}) on a free loopback port. It implements PutMetricData and the
 * read APIs (GetMetricStatistics, ListMetrics), so tests read back what the poller published.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { ensurePythonTool, type PythonTool } from './python-tool.js';

/** The moto release the tests pin. */
export const MOTO_VERSION = '5.2.5';

const MOTO: PythonTool = {
  name: 'moto',
  version: MOTO_VERSION,
  requirement: `moto[server]==${MOTO_VERSION}`,
  executable: 'moto_server',
};

/** How long moto may take to answer after its start (Python imports are slow on a busy machine). */
const START_TIMEOUT_MS = 60_000;
/** A Python warning line: `<file>:<line>: UserWarning: <message>`. */
const PYTHON_WARNING = /^\S+:\d+: \w*Warning: (.*)$/;

/**
 * A running moto server.
 *
 * @example
 * ```ts
 * const moto = await startMotoServer();
 * const cloudwatch = new CloudWatchClient({ ...MOTO_CLIENT_CONFIG, endpoint: moto.endpoint });
 * await moto.close();
 * ```
 */
export interface MotoServerHandle {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint`. */
  readonly endpoint: string;
  /**
   * The Python warnings the server printed so far, messages only, in order (moto warns, for one, when a
   * CloudFormation template has a resource type it does not implement: it skips that resource).
   */
  warnings(): readonly string[];
  /** Stops the server; its data is gone. */
  close(): Promise<void>;
}

/** Credentials and region moto accepts (it checks neither). */
export const MOTO_CLIENT_CONFIG = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
} as const;

/**
 * Installs moto's server unless it is in the cache; resolves with its executable.
 *
 * @example
 * ```ts
 * await ensureMotoServer(); // in the global setup, next to the broker's start
 * ```
 */
export function ensureMotoServer(): Promise<string> {
  return ensurePythonTool(MOTO);
}

/**
 * Installs moto on first use and starts its server; resolves once it answers HTTP.
 *
 * @example
 * ```ts
 * const moto = await startMotoServer();
 * ```
 */
export async function startMotoServer(): Promise<MotoServerHandle> {
  const binary = await ensureMotoServer();
  const port = await freePort();
  const child = spawn(binary, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let partialLine = '';
  const warnings: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) {
      const message = PYTHON_WARNING.exec(line)?.[1];
      if (message !== undefined) warnings.push(message);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const answered = await fetch(`${endpoint}/moto-api/`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    const code = await Promise.race([exited, delay(250).then(() => 'running' as const)]);
    if (code !== 'running') {
      throw new Error(`moto_server exited with code ${String(code)} before answering: ${stderr}`);
    }
    if (Date.now() > deadline) {
      await stop(child, exited);
      throw new Error(`moto_server did not answer on ${endpoint} within ${START_TIMEOUT_MS} ms: ${stderr}`);
    }
  }
  return { endpoint, warnings: () => [...warnings], close: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
