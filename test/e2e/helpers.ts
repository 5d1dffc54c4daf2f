// Shared plumbing for the browser tests: the admin UI built once per run, start a server on a temp folder,
// drive Debian's Chromium through playwright-core, and save screenshots to look at.
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { createSeeder, EMAIL, PASSWORD, type Seeder } from './api-seed.js';
import { TEST_SCRYPT_N } from '../support/test-store.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, launchBrowser } from '../support/chromium.js';

export { CHROMIUM_ARGS, CHROMIUM_PATH, launchBrowser };

export const ROOT = resolve(import.meta.dirname, '../..');
export const SHOTS = join(ROOT, 'test-results/screenshots');

/**
 * The admin UI, built once per run by the e2e project's global setup (test/support/build-ui.ts), to be
 * served with startServer's `uiDir`.
 */
export async function buildRenderer(): Promise<string> {
  return inject('uiDir');
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
  const server = await startServer({ dir, port: 0, uiDir, log: () => undefined, scryptN: TEST_SCRYPT_N });
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
  // The resting state: toasts' and panels' animations are taken at their end (fast-forwarded by the
  // screenshot, not waited for with a fixed sleep), a spinner at its start.
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false, animations: 'disabled' });
}

type Viewport = { width: number; height: number };

/** Signs the first superuser in through the login form, as a person does; resolves once the app shows. */
export async function signInThroughForm(page: Page, app: TestApp): Promise<void> {
  await page.goto(`${app.url}/_/#/login`);
  await page.fill('#login-email', EMAIL);
  await page.fill('#login-password', PASSWORD);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.getByText('New collection').first().waitFor();
}

/** What a browser test file runs against: filled in before its own beforeAll hooks run. */
export interface BrowserSuite {
  app: TestApp;
  browser: Browser;
  /** The first superuser, signed in: API seeding and signed-in pages (api-seed.ts). */
  seeder: Seeder;
  /** The page a failed test is pictured from (with `pagePerTest`, the one closed after it). */
  page: Page | undefined;
  /** The file's one page (kept across its tests), signed in as the superuser unless `signedIn: false`. */
  newPage(viewport: Viewport, options?: { signedIn?: boolean }): Promise<Page>;
  /** A signed-in page of a fresh context at `hash`, as `page`. */
  open(hash: string, viewport?: Viewport, token?: string): Promise<Page>;
}

/**
 * The set-up every browser test file shares, as its first hooks: the real server on a fresh folder
 * serving the run's UI build, Chromium, and (unless `superuser: false`, for a test of setup itself) the
 * first superuser through the API. After each failed test its page is pictured as `<shots>-<test>`;
 * with `pagePerTest` (each test opens its own page), that page's context is closed after each test;
 * everything is closed after the file.
 */
export function browserSuite(options: { shots: string; superuser?: boolean; pagePerTest?: boolean }): BrowserSuite {
  const suite: BrowserSuite = {
    app: undefined as unknown as TestApp,
    browser: undefined as unknown as Browser,
    seeder: undefined as unknown as Seeder,
    page: undefined,
    async newPage(viewport, { signedIn = true } = {}) {
      const page = await suite.browser.newPage({ viewport });
      page.setDefaultTimeout(8000);
      if (signedIn) await page.addInitScript((t) => localStorage.setItem('deskbase.token', t), suite.seeder.token);
      suite.page = page;
      return page;
    },
    async open(hash, viewport, token) {
      suite.page = await suite.seeder.open(suite.browser, hash, viewport, token);
      return suite.page;
    },
  };
  beforeAll(async () => {
    suite.app = await startApp(await buildRenderer());
    suite.browser = await launchBrowser();
    if (options.superuser !== false) suite.seeder = await createSeeder(suite.app);
  });
  afterEach(async (ctx) => {
    const page = suite.page;
    if (page && ctx.task.result?.state === 'fail') await shot(page, `${options.shots}-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
    if (options.pagePerTest) {
      await page?.context().close();
      suite.page = undefined;
    }
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.app?.close();
  });
  return suite;
}
