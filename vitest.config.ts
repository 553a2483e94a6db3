import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report feeds the `N passed, N failed` line that .ci/run prints last.
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Starts one real RocketMQ for the run and builds the Java interop peer.
          globalSetup: ['test/setup/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
