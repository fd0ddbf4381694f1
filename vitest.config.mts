import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'devhost/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['test/setup/validate-log-sinks.ts', 'test/setup/validate-api-responses.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
