/**
 * Env stubs end with their test. vitest's `unstubEnvs` undoes them only before the next test, and the
 * integration files share one worker (`isolate: false`), so a file's last stub reached the next file's
 * `beforeAll`: a PATH emptied by the last test of local-broker-kept.test.ts left demo-start.test.ts's
 * demo without Java (CI, 2026-12-07).
 */
import { afterEach, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
});
