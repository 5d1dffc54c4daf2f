// Shared plumbing for the browser tests: the admin UI built once per run, start a server on a temp folder,
// drive Debian's Chromium through playwright-core, and save screenshots to look at.
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../..');
export const SHOTS = join(ROOT, 'test-results/screenshots');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * The admin UI, built once per run by the e2e project's global setup (test/support/build-ui.ts), to be
 * served with startServer's `uiDir`.
 */
export async function buildRenderer(): Promise<string> {
  return inject('uiDir');
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface TestApp {
  url: string;
  setupToken(): Promise<string | null>;
  /** How many realtime clients subscribe to `topic` (a page's live view is ready once it is there). */
  subscribers(topic: string): number;
  close(): Promise<void>;
}

/** The real server on a fresh data folder (removed on close), serving the UI built in `uiDir` (the run's, kept). */
export async function startApp(uiDir: string): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-e2e-'));
  const { startServer } = await import('../../server/index.js');
  const server = await startServer({ dir, port: 0, uiDir, log: () => undefined });
  return {
    url: server.url,
    setupToken: () => server.setupToken(),
    subscribers: (topic) => server.core.realtime.broker.subscribers(topic)?.size ?? 0,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function shot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  // Let toasts and panel animations settle so the picture shows the resting state.
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}
