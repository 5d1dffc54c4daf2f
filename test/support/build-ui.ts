// Vitest global setup of the e2e project: the admin UI is built once per run, into a temporary folder
// (not dist/, which other suites and `npm run build` own), and its path is handed to every browser test
// file through `inject('uiDir')` (test/e2e/helpers.ts, buildRenderer).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    uiDir: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');

/** Builds the admin UI into a new temporary folder (the caller removes it); also the bench's (bench/ui.ts). */
export async function buildAdminUi(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'deskbase-ui-'));
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  return outDir;
}

export default async function buildUi(project: TestProject): Promise<() => Promise<void>> {
  const outDir = await buildAdminUi();
  project.provide('uiDir', outDir);
  return () => rm(outDir, { recursive: true, force: true });
}
