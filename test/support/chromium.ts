/**
 * A real headless Chromium for the browser tests (the dev console page), driven by playwright-core: the
 * browser is the machine's (Debian's `chromium` package, which .ci/run installs when missing), never one
 * downloaded by Playwright. `CHROMIUM_PATH` points at another binary.
 */
import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** The Chromium binary the tests use: `CHROMIUM_PATH`, else {@link DEFAULT_CHROMIUM_PATH}. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CHROMIUM_PATH?.trim();
  return configured === undefined || configured === '' ? DEFAULT_CHROMIUM_PATH : configured;
}

/**
 * Launches headless Chromium. Rejects with an error naming the missing binary and how to install it when
 * there is none (a browser test must fail, never skip).
 *
 * @example
 * ```ts
 * const browser = await launchChromium();
 * onTestFinished(() => browser.close());
 * const page = await browser.newPage();
 * ```
 */
export async function launchChromium(env: NodeJS.ProcessEnv = process.env): Promise<Browser> {
  const executablePath = chromiumPath(env);
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    throw new Error(
      `no Chromium at ${executablePath} for the browser tests: install Debian's package ` +
        '(`sudo apt-get install -y chromium`; .ci/run does it when missing) or set CHROMIUM_PATH to a Chromium binary',
    );
  }
  // --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
}
