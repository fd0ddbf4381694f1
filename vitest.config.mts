import { defineConfig } from 'vitest/config';
import { NODE_RUNTIME_FLAGS } from './shared/lifecycle/node-runtime-flags.js';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'devhost/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['test/setup/validate-log-sinks.ts', 'test/setup/validate-api-responses.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The tests run on the Node flags the app runs with everywhere (AsyncLocalStorage's implementation among them).
    execArgv: [...NODE_RUNTIME_FLAGS],
    maxWorkers: 2,
  },
});
