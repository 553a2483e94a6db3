import { describe, expect, it } from 'vitest';
import { runChild } from '../../../bench/child-run.js';

/** A node child writing its lines in pieces that split them across writes. */
const SCRIPT = `
const write = (text) => new Promise((resolve) => process.stdout.write(text, resolve));
(async () => {
  await write('BENCH_STA');
  await new Promise((resolve) => setTimeout(resolve, 20));
  await write('RTED\\nnoise\\nBENCH_RESULT {"received":3}');
  await write('\\n');
})();
`;

describe('runChild', () => {
  it('hands every stdout line to onLine as it comes, pieces joined', async () => {
    const lines: string[] = [];
    const { result } = await runChild(process.execPath, ['-e', SCRIPT], {
      timeoutMs: 60_000,
      onLine: (line) => lines.push(line),
    });
    expect(lines).toEqual(['BENCH_STARTED', 'noise', 'BENCH_RESULT {"received":3}']);
    expect(result).toEqual({ received: 3 });
  });

  it('fails the run when onLine throws', async () => {
    await expect(
      runChild(process.execPath, ['-e', SCRIPT], {
        timeoutMs: 60_000,
        onLine: (line) => {
          if (line === 'noise') throw new Error('cannot read /proc/1/stat');
        },
      }),
    ).rejects.toThrow(/reading its output failed: cannot read \/proc\/1\/stat/);
  });
});
