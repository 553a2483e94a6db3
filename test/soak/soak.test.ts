/**
 * The seeded soak run (test/support/soak/soak-runner.ts): a 2-group master/slave cluster, dynalite,
 * the Invoke API and several pollers with concurrent, orderly, POP and filtered mappings, under a
 * seeded random schedule of faults. Without settings it is the short soak CI runs (seed 172, 1 minute,
 * a fault every 10-20 s); `npm run soak -- --minutes N --seed S` runs it with SOAK_MINUTES and
 * SOAK_SEED (and the 30-90 s spacing), writing the verdict to SOAK_VERDICT_FILE
 * (and keeping the run's directory in SOAK_KEEP_DIR when `--keep DIR` is given).
 */
import { describe, expect, it } from 'vitest';
import { runSoak } from '../support/soak/soak-runner.js';

const minutes = Number(process.env.SOAK_MINUTES ?? '1');
const seed = Number(process.env.SOAK_SEED ?? '172');
/** The short CI soak packs its faults closer than the 30-90 s, so that a few happen. */
const gapMs: readonly [number, number] =
  process.env.SOAK_MINUTES === undefined ? [10_000, 20_000] : [30_000, 90_000];
/**
 * The short CI soak's retry delays: 1-3 s for the levels a retried message meets (3 + retry), so its
 * fail-always messages are dead-lettered within seconds of the run's end; `npm run soak` keeps the
 * broker's defaults (10 s, 30 s, 1 min, ...).
 */
const CI_DELAY_LEVELS = '1s 1s 1s 2s 2s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s 3s';
/** Setup (cluster, toxiproxy, pollers: up to 6 min on two loaded cores), the run, the drain. */
const TIMEOUT_MS = (6 + minutes + 6) * 60_000;

describe('soak', () => {
  it(
    `seed ${seed}, ${minutes} min: loses nothing, keeps order, dead-letters what always fails, and every poller stops cleanly`,
    async () => {
      const verdict = await runSoak({
        seed,
        minutes,
        gapMs,
        ...(process.env.SOAK_VERDICT_FILE ? { verdictFile: process.env.SOAK_VERDICT_FILE } : {}),
        ...(process.env.SOAK_KEEP_DIR ? { keepDir: process.env.SOAK_KEEP_DIR } : {}),
        ...(process.env.SOAK_MINUTES === undefined ? { messageDelayLevel: CI_DELAY_LEVELS } : {}),
      });
      expect(verdict.sent).toBeGreaterThan(0);
      expect(verdict.faultsApplied, 'faults were applied').toBeGreaterThan(0);
      expect(verdict.lost, `lost e.g. ${verdict.lostExamples.join('; ')}`).toBe(0);
      expect(verdict.orderViolations, verdict.orderViolationExamples.join('; ')).toBe(0);
      expect(verdict.pastRetryLimitOutsideDlq).toBe(0);
      expect(verdict.filterLeaks).toBe(0);
      for (const exit of verdict.exits.filter((e) => !e.cause.includes('SIGKILL')))
        expect(exit, `${exit.poller} stopped gracefully`).toMatchObject({ code: 0, signal: null });
    },
    TIMEOUT_MS,
  );
});
