/**
 * `rocketmq-lambda dev` where the dev loop's optional packages are not installed (a user who installed
 * the package for the poller only): the session's start fails with OptionalModuleMissingError, and the
 * command prints that one line, naming the install, and exits 1 (no stack, no log line). The error's
 * own shape, as Node's resolver meets a missing package, is test/unit/util/optional-module.test.ts's.
 */
import { describe, expect, it, vi } from 'vitest';
import { devCommand } from '../../../src/cli/dev-command.js';
import { EXIT_FAILURE } from '../../../src/cli/exit-codes.js';
import { DEV_LOOP_PACKAGES, OptionalModuleMissingError } from '../../../src/util/optional-module.js';
import { runCaptured } from '../../support/fake-cli-io.js';

const startDevSession = vi.hoisted(() => vi.fn());
vi.mock('../../../src/dev/dev-session.js', () => ({ startDevSession }));

describe('dev without its optional packages', () => {
  it('exits 1 with one line that names the packages and the install', async () => {
    const cause = Object.assign(new Error("Cannot find package 'tsx'"), { code: 'ERR_MODULE_NOT_FOUND' });
    startDevSession.mockRejectedValueOnce(new OptionalModuleMissingError('tsx', DEV_LOOP_PACKAGES, cause));

    const { code, out, err } = await runCaptured((io) => devCommand(['--name-server', '127.0.0.1:9876'], io));

    expect(startDevSession).toHaveBeenCalledTimes(1);
    expect(code).toBe(EXIT_FAILURE);
    expect(out).toBe('');
    const lines = err.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^rocketmq-lambda dev: rocketmq-lambda dev needs tsx and dynalite, .*\(tsx is missing\): npm install --save-dev tsx@\S+ dynalite@\S+$/,
    );
    expect(err).not.toContain('Cannot find package');
  });
});
