import { describe, expect, it } from 'vitest';
import {
  isAwsSdkNodeVersionWarning,
  suppressAwsSdkNodeVersionWarning,
} from '../../../src/util/aws-sdk-node-warning.js';
import { waitFor } from '../../support/wait-for.js';

const CURRENT = `NodeVersionSupportWarning: The AWS SDK for JavaScript (v3)
versions published after the first week of January 2027
will require node >=22. You are running node v20.20.2.`;
const OLDER =
  'NodeDeprecationWarning: The AWS SDK for JavaScript (v3) will no longer support Node.js 20.x on 2026-04-30.';

describe('the AWS SDK Node.js version warning', () => {
  it('is recognised in its current and older wordings, and nothing else is', () => {
    expect(isAwsSdkNodeVersionWarning(CURRENT)).toBe(true);
    expect(isAwsSdkNodeVersionWarning(OLDER)).toBe(true);
    expect(isAwsSdkNodeVersionWarning(new Error(CURRENT))).toBe(true);
    expect(isAwsSdkNodeVersionWarning('ExperimentalWarning: VM Modules')).toBe(false);
    expect(isAwsSdkNodeVersionWarning('Warning: The AWS SDK for JavaScript (v3) said something else')).toBe(
      false,
    );
  });

  it('is dropped once suppressed, while other warnings still reach the listeners', async () => {
    suppressAwsSdkNodeVersionWarning();
    suppressAwsSdkNodeVersionWarning(); // idempotent
    const seen: string[] = [];
    const listener = (warning: Error): void => {
      seen.push(warning.message);
    };
    process.on('warning', listener);
    try {
      process.emitWarning(CURRENT);
      process.emitWarning('something the user should read', 'UserWarning');
      // Warnings reach the listeners in the order they were emitted: once the second is seen, the
      // first was dropped or would be in `seen` already.
      await waitFor('the user warning', 2_000, () =>
        seen.includes('something the user should read') ? true : undefined,
      );
    } finally {
      process.off('warning', listener);
    }
    expect(seen).toEqual(['something the user should read']);
  });
});
