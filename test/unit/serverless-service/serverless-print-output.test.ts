/**
 * What `serverless print` wrote is the service with its variables resolved, secrets included: when it is
 * not valid JSON, the error names the place and the kind of error, never the text; and a failed run's
 * quoted lines are each cut.
 */
import { describe, expect, it } from 'vitest';
import {
  frameworkErrorText,
  parsePrintOutput,
  ServerlessPrintError,
} from '../../../src/serverless-service/serverless-print.js';
import { SECRETS, shownPart } from '../config/broken-configs.js';

const framework = { packageName: 'osls' };

describe('parsePrintOutput', () => {
  it.each(SECRETS)('broken JSON output shows no part of the secret %s', (secret) => {
    const stdout = `Running "serverless" from node_modules\n{\n  "custom": {"rocketmq": {"acl": {"secretKey": ${secret}}}}\n}\n`;
    let error: unknown;
    try {
      parsePrintOutput(stdout, framework);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ServerlessPrintError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^osls print --format json printed no valid JSON service \(a letter where a value should be/,
    );
    expect(shownPart(message, secret)).toBeUndefined();
    expect((error as Error).cause).toBeUndefined();
  });
});

describe('frameworkErrorText', () => {
  it('cuts each quoted line of an unrecognised failure', () => {
    const text = frameworkErrorText('', `${'z'.repeat(100_000)}\nSegmentation fault\n`);
    expect(text.length).toBeLessThan(400);
    expect(text).toContain('(100000 characters)');
    expect(text).toContain('Segmentation fault');
  });

  it.each(SECRETS)(
    'an unrecognised failure quotes no part of the service printed on stdout (%s)',
    (secret) => {
      const stdout = `{\n  "custom": {"rocketmq": {"acl": {"secretKey": "${secret}"}}}\n}\n`;
      const text = frameworkErrorText(stdout, 'Killed\n');
      expect(text).toBe('Killed');
      expect(shownPart(text, secret)).toBeUndefined();
    },
  );
});
