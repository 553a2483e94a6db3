import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report feeds the `N passed, N failed` line that .ci/run prints last. A vitest run inside
    // a test (test/integration/runtime/node22-protocol.test.ts) points it elsewhere.
    reporters: ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT ?? '.vitest-report.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Type tests (`*.test-d.ts`, expectTypeOf only) run through tsc and are reported as tests,
          // so the JSON report counts them with the runtime tests.
          typecheck: {
            enabled: true,
            include: ['test/unit/**/*.test-d.ts'],
            // Only the type tests and what they import: the whole project is checked by `npm run typecheck`.
            tsconfig: './tsconfig.test-d.json',
          },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Starts one real RocketMQ for the run and builds the Java interop peer.
          globalSetup: ['test/setup/global-setup.ts'],
          setupFiles: ['test/setup/unstub-envs.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // One worker runs every file with its module cache kept (the files run one at a time anyway):
          // a fresh worker per file re-imported the poller, the AWS SDK and the test support, 1-2 s a file.
          // Spies are restored before each test and env stubs undone after each (unstub-envs.ts), so no
          // file sees another's.
          isolate: false,
          unstubEnvs: true,
          restoreMocks: true,
        },
      },
      {
        test: {
          // The seeded soak (`npm run soak`; short and seeded in CI): a cluster of its own, no shared broker.
          name: 'soak',
          include: ['test/soak/**/*.test.ts'],
          // After the unit and integration projects (group 0): its five JVMs and pollers would starve
          // theirs on two cores.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
