/**
 * `npm run soak -- --minutes N [--seed S] [--out FILE] [--keep DIR]`: runs the soak (test/soak/soak.test.ts, the
 * `soak` vitest project) for N minutes with seed S (random when absent, printed), the issue's 30-90 s
 * fault spacing, and writes the verdict JSON to FILE (default `soak-verdict.json`). With `--keep DIR` the run's directory (poller
 * configs, health files and logs, dynalite's store) is left in DIR for a post-mortem. Exits with vitest's
 * code: non-zero when the verdict fails.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string', default: 'soak-verdict.json' },
    keep: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
if (values.minutes === undefined || !Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60)
  fail(`--minutes must be a number of minutes from 0 to 1440, not ${String(values.minutes)}`);
const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
if (!Number.isSafeInteger(seed) || seed < 0)
  fail(`--seed must be a non-negative integer, not ${String(values.seed)}`);
const out = path.resolve(values.out);
console.info(`soak: seed ${seed}, ${minutes} min, verdict -> ${out}`);
const child = spawn('npx', ['vitest', 'run', '--project', 'soak'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    SOAK_MINUTES: String(minutes),
    SOAK_SEED: String(seed),
    SOAK_VERDICT_FILE: out,
    ...(values.keep === undefined ? {} : { SOAK_KEEP_DIR: path.resolve(values.keep) }),
  },
});
child.on('exit', (code, signal) => {
  console.info(`soak: seed ${seed} done (${signal ?? `exit ${String(code)}`}); verdict in ${out}`);
  process.exit(code ?? 1);
});

function fail(message: string): never {
  console.error(`soak: ${message}`);
  process.exit(2);
}
