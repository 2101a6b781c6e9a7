import { defineConfig } from 'vitest/config';

// One suite, two engines: DB_DIALECT=sqlite (default) or postgres.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files share each worker's module cache: the app's modules load once per worker, not once
    // per file (the suite's import time was a quarter of its run). Every file builds its own app,
    // database and clock, so nothing a test changes outlives its file.
    isolate: false,
    env: { LOG_LEVEL: 'silent' },
  },
});
