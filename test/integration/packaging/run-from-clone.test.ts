/**
 * The README's way to run the poller from a clone ("Running the poller"), read from the README and run
 * in a clone-like copy of the checkout: its build command, then its run command with a config file of the
 * name it gives, consuming a topic of the test broker into a `local:` handler. Every message arrives and
 * SIGTERM stops the poller with exit 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { readLedger } from '../cli/poller-process.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { type CloneCheckout, cloneCheckout, REPO_ROOT } from './clone-checkout.js';

const QUEUES = 2;
const MESSAGES = 40;
/** The ledger handler of the CLI tests, by its path in the clone (config-relative, as users write it). */
const LEDGER_HANDLER = 'local:./test/fixtures/config/handlers/ledger.mjs#handler';

let clone: CloneCheckout;
let work: string;

beforeAll(async () => {
  clone = await cloneCheckout();
  work = await mkdtemp(path.join(tmpdir(), 'rl-run-from-clone-'));
});

afterAll(async () => {
  await clone?.remove();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/**
 * The commands of the README's sh block that runs the poller from a clone (the one with
 * `node dist/cli/main.js`), each as argv; `a && b` is two commands.
 */
async function readmeCloneCommands(): Promise<string[][]> {
  const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Running the poller\n'));
  if (section === undefined) throw new Error('README.md has no "## Running the poller" section');
  const block = [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
    .map((match) => match[1] ?? '')
    .find((text) => text.includes('dist/cli/main.js'));
  if (block === undefined) throw new Error('"Running the poller" has no sh block running dist/cli/main.js');
  return block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '')
    .flatMap((line) => line.split('&&').map((command) => command.trim().split(/\s+/)));
}

/** Runs a build step in the clone, its output shown on failure. */
function runStep(argv: readonly string[]): Promise<void> {
  const [command = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: clone.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${argv.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** The poller's JSON log lines so far. */
function logLines(stdout: string): { msg?: unknown; level?: unknown }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { msg?: unknown; level?: unknown }];
      } catch {
        return []; // a line still being written
      }
    });
}

describe("the README's poller command from a clone", () => {
  it('builds, runs, consumes every message and stops on SIGTERM with exit 0', async () => {
    const commands = await readmeCloneCommands();
    const run = commands.at(-1) ?? [];
    expect(run.slice(0, 3)).toEqual(['node', 'dist/cli/main.js', 'run']);
    const configFlag = run.indexOf('--config');
    const configName = run[configFlag + 1];
    if (configFlag === -1 || configName === undefined) throw new Error(`no --config in ${run.join(' ')}`);
    for (const step of commands.slice(0, -1)) {
      // The copy's node_modules is the checkout's installed tree: it stands for `npm ci`.
      if (step.join(' ') === 'npm ci') continue;
      await runStep(step);
    }

    const topic = uniqueTopic('clone');
    const group = uniqueGroup('clone');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    // JSON is YAML: the README's config name, whatever its extension.
    const config = {
      nameServer: testBroker().namesrvAddr,
      shutdownTimeoutMs: 10_000,
      offsets: { store: 'file', path: path.join(work, 'offsets') },
      mappings: [
        {
          topic,
          consumerGroup: group,
          function: LEDGER_HANDLER,
          startingPosition: 'TRIM_HORIZON',
          maximumBatchingWindowMs: 20,
        },
      ],
    };
    await writeFile(path.join(clone.dir, configName), JSON.stringify(config, null, 2));

    const ledger = path.join(work, 'ledger.txt');
    const poller: ChildProcess = spawn(process.execPath, run.slice(1), {
      cwd: clone.dir,
      env: {
        ...process.env,
        VITEST: '',
        LOG_LEVEL: 'info',
        LEDGER_FILE: ledger,
        ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(work, 'health'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    poller.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    poller.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      poller.once('exit', (code, signal) => resolve({ code, signal }));
    });
    onTestFinished(async () => {
      if (poller.exitCode === null && poller.signalCode === null) {
        poller.kill('SIGKILL');
        await exited;
      }
    });

    await waitFor('the poller to start', 30_000, async () => {
      if (poller.exitCode !== null) throw new Error(`the poller exited early:\n${stderr}\n${stdout}`);
      return logLines(stdout).some((line) => line.msg === 'poller started') ? true : undefined;
    });
    const producer = await newProducer(client);
    const sent = await produce(producer, topic, MESSAGES, { queues: QUEUES });
    await waitFor('every message in the ledger', 30_000, async () => {
      const seen = new Set(readLedger(ledger).map((entry) => entry.messageId));
      return sent.every((id) => seen.has(id)) ? true : undefined;
    });

    poller.kill('SIGTERM');
    expect(await exited, stderr).toEqual({ code: 0, signal: null });
    expect(logLines(stdout).filter((line) => line.level === 'error' || line.level === 50)).toEqual([]);
  });
});
