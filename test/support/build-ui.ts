// Vitest global setup of the e2e project: the admin UI is built once per run, into a temporary folder
// (not dist/, which other suites and `npm run build` own), and its path is handed to every browser test
// file through `inject('uiDir')` (test/e2e/helpers.ts, buildRenderer). Debian's Chromium is started once
// per run too, as a Playwright browser server whose endpoint each file gets through
// `inject('chromiumEndpoint')` (helpers.ts, launchBrowser): a file connects in a few milliseconds and
// works in browser contexts of its own (its pages, cookies and storage apart from every other file's),
// where a launch per file cost each of the thirteen about 0.7 s of CPU in the run's sequential stretch.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    uiDir: string;
    chromiumEndpoint: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');

export default async function buildUi(project: TestProject): Promise<() => Promise<void>> {
  const outDir = await mkdtemp(join(tmpdir(), 'deskbase-ui-'));
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  project.provide('uiDir', outDir);
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return async () => {
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  };
}
