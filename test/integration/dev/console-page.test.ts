/**
 * The dev console's page (src/dev/console/assets) in a real headless Chromium (Debian's, through
 * playwright-core; test/support/chromium.ts), against a real `rocketmq-lambda dev` child on the shared test
 * broker. The service is the demo's (serverless.yml at the repository root: `orders`, concurrent with a tag
 * filter, and `ledger`, orderly) with its own topics and handlers in a temp directory, so the test can fix
 * a handler as an author would; `orders` dead-letters on the first failure (maxReconsumeTimes 0) so a dead
 * letter exists without waiting for the broker's retry delays. One session serves every case (in order):
 * the mappings appear, a message sent through the form appears as an invocation with its decoded records
 * and response, a replay of an edited event shows the new response, and a dead letter is redriven from
 * the page and handled once the handler is fixed. Each step's screenshot is kept in test-artifacts/console/
 * (git-ignored).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { launchChromium } from '../../support/chromium.js';
import { waitFor } from '../../support/wait-for.js';
import { createTopic, newClient } from '../consumer/helpers.js';
import { type DevProcess, REPO, STEP_TIMEOUT_MS, spawnDev } from './dev-process.js';
import { printedConsoleUrl, writeTempService } from './temp-service.js';

/** Where each step's screenshot goes (git-ignored). */
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'console');
/** The line `dev` prints with the console's address. */
/** dev's start: loading its modules through tsx takes long on a busy machine. */
const START_TIMEOUT_MS = 120_000;

/** The demo's orders handler, as plain TypeScript: rejects an order without a non-negative total. */
const ordersHandler = (acceptNegative: boolean): string => `
interface Record { messageId: string; body: string; bodyEncoding?: string; tags?: string }

export const handler = async (event: { Records: Record[] }) => {
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const text = record.bodyEncoding === 'utf8' ? record.body : Buffer.from(record.body, 'base64').toString('utf8');
    const order = JSON.parse(text) as { orderId?: unknown; total?: unknown };
    if (typeof order.total !== 'number' || (${!acceptNegative} && order.total < 0)) {
      console.log(JSON.stringify({ handler: 'orders', rejected: record.messageId, total: order.total }));
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    console.log(JSON.stringify({ handler: 'orders', messageId: record.messageId, orderId: order.orderId }));
  }
  return { batchItemFailures };
};
`;

const LEDGER_HANDLER = `
export const handler = async (event: { Records: { messageId: string }[] }) => {
  for (const record of event.Records) console.log(JSON.stringify({ handler: 'ledger', messageId: record.messageId }));
};
`;

describe('the dev console page in a headless browser', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let dev: DevProcess;
  let ordersFile: string;
  let ordersTopic: string;
  let ledgerTopic: string;
  let consoleUrl: string;
  let browser: Browser;
  let page: Page;
  let step = 0;

  /** Saves the page as the next numbered screenshot. */
  const shot = async (name: string): Promise<void> => {
    step += 1;
    await page.screenshot({
      path: path.join(ARTIFACTS, `${String(step).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
  };

  /** The text of the first element `selector` matches, once it exists. */
  const text = async (selector: string): Promise<string> => {
    const locator = page.locator(selector).first();
    await locator.waitFor({ timeout: STEP_TIMEOUT_MS });
    return (await locator.textContent()) ?? '';
  };

  beforeAll(async () => {
    // This run's screenshots only.
    await rm(ARTIFACTS, { recursive: true, force: true });
    await mkdir(ARTIFACTS, { recursive: true });
    const { namesrvAddr } = testBroker();
    ordersTopic = uniqueTopic('ConsoleOrders');
    ledgerTopic = uniqueTopic('ConsoleLedger');
    const client = newClient();
    cleanups.push(() => client.close());
    await createTopic(client, ordersTopic, 4);
    await createTopic(client, ledgerTopic, 2);

    const service = await writeTempService(
      'console',
      { 'src/orders.ts': ordersHandler(false), 'src/ledger.ts': LEDGER_HANDLER },
      [
        'service: console-test',
        'functions:',
        '  orders:',
        '    handler: dist/orders.handler',
        '    events:',
        '      - rocketmq:',
        `          topic: ${ordersTopic}`,
        `          consumerGroup: ${ordersTopic}_orders`,
        '          filter: "order || refund"',
        '          batchSize: 10',
        '          startingPosition: TRIM_HORIZON',
        '          maxReconsumeTimes: 0',
        '  ledger:',
        '    handler: dist/ledger.handler',
        '    events:',
        '      - rocketmq:',
        `          topic: ${ledgerTopic}`,
        `          consumerGroup: ${ledgerTopic}_ledger`,
        '          orderly: true',
        '          batchSize: 10',
        '          startingPosition: TRIM_HORIZON',
      ],
    );
    cleanups.push(() => service.remove());
    ordersFile = service.file('src/orders.ts');

    dev = spawnDev([
      '--config',
      service.configFile,
      '--name-server',
      namesrvAddr,
      '--state-dir',
      path.join(service.dir, '.state'),
      '--console-port',
      '0',
    ]);
    cleanups.push(() => dev.kill());
    const printed = (): string => `stdout:\n${dev.watch.raw.slice(-15).join('\n')}\nstderr:\n${dev.stderr()}`;
    consoleUrl = await waitFor('dev to print the console address', START_TIMEOUT_MS, () => {
      if (dev.child.exitCode !== null) throw new Error(`dev exited (${dev.child.exitCode}): ${printed()}`);
      return printedConsoleUrl(dev);
    }).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; ${printed()}`);
    });
    await dev.watch.waitFor(
      'dev to start',
      (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops',
      START_TIMEOUT_MS,
    );

    browser = await launchChromium();
    cleanups.push(() => browser.close());
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    cleanups.push(async () => expect(pageErrors, 'errors thrown in the page').toEqual([]));
  }, 300_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('shows the mappings live: topic, group, mode, queues, health', async () => {
    await page.goto(consoleUrl);
    const orders = page.locator('article[data-mapping="orders"]');
    const ledger = page.locator('article[data-mapping="ledger"]');
    await orders.waitFor({ timeout: STEP_TIMEOUT_MS });
    await ledger.waitFor({ timeout: STEP_TIMEOUT_MS });
    // Live: the queues show up as the poller takes them (state events every second).
    await orders.locator('.queues tbody tr td:nth-child(2)').nth(3).waitFor({ timeout: STEP_TIMEOUT_MS });
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: STEP_TIMEOUT_MS });
    const ordersText = (await orders.textContent()) ?? '';
    expect(ordersText).toContain(ordersTopic);
    expect(ordersText).toContain(`${ordersTopic}_orders`);
    expect(await orders.locator('dd[data-field="mode"]').textContent()).toBe('concurrent');
    expect(await orders.locator('.health').textContent()).toBe('healthy');
    expect(await ledger.textContent()).toContain('orderly');
    // Keyboard: the first Tab reaches the skip link, the next ones the views.
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('aria-current')).toBe('page');
    await shot('mappings');
  });

  /** Sends a message through the page's form and returns the message id it shows. */
  const sendThroughForm = async (fields: {
    tags: string;
    keys: string;
    properties: string;
    body: string;
  }): Promise<string> => {
    await page.getByRole('link', { name: 'Send', exact: true }).click();
    const form = page.locator('#send-form');
    await form.getByLabel('Topic').fill(ordersTopic);
    await form.getByLabel('Tags').fill(fields.tags);
    await form.getByLabel(/^Keys/).fill(fields.keys);
    await form.getByLabel(/^Properties/).fill(fields.properties);
    await form.getByLabel('Body').fill(fields.body);
    await form.getByRole('button', { name: 'Send', exact: true }).click();
    return text('#send-result a');
  };

  /** Filters the invocations list by message id until the invocation that carried it is listed. */
  const openInvocationOf = async (messageId: string): Promise<void> => {
    await page.getByRole('link', { name: 'Invocations', exact: true }).click();
    await page.locator('#invocation-filters').getByLabel('Message id').fill(messageId);
    const row = page.locator('#invocations tr').first();
    await waitFor(
      `an invocation of ${messageId} in the list`,
      STEP_TIMEOUT_MS,
      async () => {
        // Filtering again fetches the list again: the invocation may have finished while it loaded.
        await page.getByRole('button', { name: 'Filter' }).click();
        return (await row.isVisible()) ? true : undefined;
      },
      { intervalMs: 1000 },
    );
    await row.locator('a').first().click();
    await page.locator('#invocation .record').first().waitFor({ timeout: STEP_TIMEOUT_MS });
  };

  let sentId: string;

  it('lists a message sent through the form as an invocation, with its decoded record and response', async () => {
    const hostile = '<img src=x onerror="window.__injected=1">';
    sentId = await sendThroughForm({
      tags: 'order',
      keys: 'order-console-1',
      properties: 'source=console',
      body: JSON.stringify({ orderId: 'console-1', total: 12.5, note: hostile }),
    });
    expect(sentId).toMatch(/^[0-9A-F]{32}$/);
    await shot('sent');

    await openInvocationOf(sentId);
    const record = page.locator(`#invocation .record[data-message-id="${sentId}"]`);
    expect(await record.locator('.badge').textContent()).toBe('succeeded');
    const recordText = (await record.textContent()) ?? '';
    expect(recordText).toContain('order-console-1');
    expect(recordText).toContain(ordersTopic);
    // The body decoded and pretty-printed, its HTML shown as text and never run.
    expect(await record.locator('.body pre').textContent()).toBe(
      JSON.stringify({ orderId: 'console-1', total: 12.5, note: hostile }, null, 2),
    );
    expect(await record.locator('.body figcaption').textContent()).toBe('Body (JSON)');
    expect(await page.evaluate('typeof window.__injected')).toBe('undefined');
    expect(await text('#invocation .response pre')).toBe(JSON.stringify({ batchItemFailures: [] }, null, 2));
    expect(await text('#invocation .logs')).toContain('"orderId":"console-1"');
    await shot('invocation');
  });

  it('replays an edited event and shows the new response', async () => {
    const editor = page.getByLabel('Event (JSON)');
    const original = JSON.parse(await editor.inputValue()) as {
      Records: { messageId: string; body: string; bodyEncoding?: string }[];
    };
    expect(original.Records.map((r) => r.messageId)).toContain(sentId);

    await editor.fill('{"Records": [');
    expect(await text('#replay-event-error')).toMatch(/^the event is not valid JSON/);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');

    // The edit: the same record with a negative total, which the handler rejects.
    const edited = structuredClone(original);
    for (const record of edited.Records) {
      if (record.messageId !== sentId) continue;
      record.body = Buffer.from(JSON.stringify({ orderId: 'console-1', total: -1 })).toString('base64');
      delete record.bodyEncoding;
    }
    await editor.fill(JSON.stringify(edited, null, 2));
    expect(await page.locator('#replay-event-error').textContent()).toBe('');
    await page.getByRole('button', { name: 'Replay edited event' }).click();
    const response = await text('#replay-result .response pre');
    expect(JSON.parse(response)).toEqual({ batchItemFailures: [{ itemIdentifier: sentId }] });
    expect(await text('#replay-result .logs')).toContain(`"rejected":"${sentId}"`);
    await shot('replay-edited');

    // The replay is an invocation of its own, linked to the one it replayed.
    await page.locator('#replay-result a').first().click();
    await page.locator('#invocation .record').first().waitFor({ timeout: STEP_TIMEOUT_MS });
    expect(await text('#invocation .facts')).toContain('Replay of');
  });

  it('redrives a dead letter from the page, and the fixed handler handles it', async () => {
    const badId = await sendThroughForm({
      tags: 'order',
      keys: 'order-console-bad',
      properties: '',
      body: JSON.stringify({ orderId: 'console-bad', total: -3 }),
    });
    // Its way: rejected once, then (maxReconsumeTimes 0) dead-lettered.
    await page.locator('#send-result a').first().click();
    await waitFor(
      `${badId} to be dead-lettered`,
      STEP_TIMEOUT_MS,
      async () => {
        await page.getByRole('button', { name: 'Follow' }).click();
        const ended = await page
          .locator('#message .ended')
          .textContent({ timeout: 5000 })
          .catch(() => '');
        return ended?.startsWith('dead-lettered') ? true : undefined;
      },
      { intervalMs: 1000 },
    );
    await shot('dead-lettered-way');

    await page.getByRole('link', { name: 'Dead letters', exact: true }).click();
    await page.getByLabel('Consumer group').selectOption(`${ordersTopic}_orders`);
    const row = page.locator('#dead-letters tr', { hasText: 'order-console-bad' });
    await waitFor(
      'the dead letter in the list',
      STEP_TIMEOUT_MS,
      async () => {
        await page.getByRole('button', { name: 'Show' }).click();
        return (await row.isVisible()) ? true : undefined;
      },
      { intervalMs: 1000 },
    );
    expect(await row.textContent()).toContain('"total":-3');
    expect(await page.getByRole('button', { name: /^Redrive/ }).isDisabled()).toBe(true);
    await row.getByRole('checkbox').check();
    await shot('dead-letters');

    // The author fixes the handler (dev reloads it), then redrives.
    await writeFile(ordersFile, ordersHandler(true));
    await dev.watch.waitFor(
      'the reload',
      (l) => l.msg === 'source changed: reloading the handlers on their next batch',
    );
    await page.getByRole('button', { name: 'Redrive 1 selected message' }).click();
    const newId = await text('#dlq-result .redriven a:last-child');
    await shot('redriven');

    await page.locator('#dlq-result .redriven a:last-child').click();
    await waitFor(
      `the redriven ${newId} to be handled`,
      STEP_TIMEOUT_MS,
      async () => {
        await page.getByRole('button', { name: 'Follow' }).click();
        const ended = await page
          .locator('#message .ended')
          .textContent({ timeout: 5000 })
          .catch(() => '');
        return ended?.startsWith('handled') ? true : undefined;
      },
      { intervalMs: 1000 },
    );
    await page.locator('#message .way a').first().click();
    const record = page.locator('#invocation .record', { hasText: 'order-console-bad' });
    await record.waitFor({ timeout: STEP_TIMEOUT_MS });
    expect(await record.locator('.badge').textContent()).toBe('succeeded');
    await shot('redriven-handled');
  }, 180_000);
});
