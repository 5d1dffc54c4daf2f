import { defineConfig } from 'vitest/config';
import solid from 'vite-plugin-solid';

// Two projects: vite-plugin-solid makes `sql.js` resolve to its browser build, so the server and
// main-process tests must run in a plain node project without it (docs/architecture.md, "Toolchain facts").
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/ui/**', 'test/e2e/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [solid()],
        resolve: { conditions: ['development', 'browser'] },
        test: {
          name: 'ui',
          environment: 'happy-dom',
          include: ['test/ui/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
