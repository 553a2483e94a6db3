/**
 * `npm run console:screenshot [-- <out.png>]`: the README's picture of the dev console
 * (docs/images/console.png by default). Runs the real `npm run demo` (a local RocketMQ, the example
 * handlers, sample messages), waits until both example functions have been invoked, opens the console
 * in headless Chromium (test/support/chromium.ts) on the newest `orders` invocation, saves the
 * screenshot and stops the demo with Ctrl-C (SIGINT).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_OUT = path.join(REPO, 'docs', 'images', 'console.png');
/** The demo's start (the broker's jars may be downloaded on a first run) and its first invocations. */
const READY_TIMEOUT_MS = 180_000;
const CONSOLE_LINE = /console: (http:\/\/127\.0\.0\.1:\d+\/)/;

interface Mapping {
  id: string;
  invocations: number;
}

/** Resolves with the console's address once the demo prints it; rejects when the demo exits first. */
function consoleAddress(demo: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    if (demo.stdout === null) throw new Error('the demo has no stdout');
    const lines: string[] = [];
    createInterface({ input: demo.stdout }).on('line', (line) => {
      lines.push(line);
      const url = CONSOLE_LINE.exec(line)?.[1];
      if (url !== undefined) resolve(url);
    });
    demo.once('exit', (code) =>
      reject(
        new Error(
          `the demo exited (${code}) before printing its console address:\n${lines.slice(-20).join('\n')}`,
        ),
      ),
    );
  });
}

/** Polls the console's state until every mapping has at least `count` invocations. */
async function untilInvoked(base: string, count: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const answer = await fetch(new URL('api/state', base));
    // 503 while the session starts (docs/console-api.md).
    const mappings = answer.ok ? ((await answer.json()) as { mappings: Mapping[] }).mappings : [];
    if (mappings.length > 0 && mappings.every((m) => m.invocations >= count)) return;
    if (Date.now() > deadline) {
      throw new Error(`the demo's functions were not invoked ${count} times within ${READY_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? DEFAULT_OUT);
  const demo = spawn(process.execPath, ['src/cli/demo-launch.mjs', '--keep-broker', '0'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => demo.once('exit', resolve));
  try {
    const base = await consoleAddress(demo);
    await untilInvoked(base, 5);
    const { invocations } = (await (
      await fetch(new URL('api/invocations?mapping=orders&limit=1', base))
    ).json()) as {
      invocations: { id: string }[];
    };
    const newest = invocations[0];
    if (newest === undefined) throw new Error('no orders invocation to show');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(new URL(`#/invocations/${encodeURIComponent(newest.id)}`, base).href);
      await page.locator('#invocation .record').first().waitFor();
      await page.locator('#connection[data-state="live"]').waitFor();
      await mkdir(path.dirname(out), { recursive: true });
      await page.screenshot({ path: out });
      console.log(`console screenshot: ${out}`);
    } finally {
      await browser.close();
    }
  } finally {
    demo.kill('SIGINT');
    await exited;
  }
}

main().catch((error: unknown) => {
  console.error(`console:screenshot: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
