// The admin UI's dark theme in Chromium against a real server: it follows the system's appearance
// (prefers-color-scheme), the switch overrides it and is remembered, and the main pages read well dark
// at 800 and 1920 pixels wide (screenshots in test-results/screenshots/dark-*).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Seeder } from './api-seed.js';
import { browserSuite, shot, type TestApp } from './helpers.js';
import { installDeskbaseStub } from './desktop-stub.js';
import { THEME_BACKGROUND } from '../../main/theme.js';

const suite = browserSuite({ shots: 'dark-failed' });
let app: TestApp;
let browser: Browser;
let seeder: Seeder;

beforeAll(async () => {
  ({ app, browser, seeder } = suite);
  await seeder.call('POST', '/collections', {
    name: 'posts',
    type: 'base',
    listRule: '',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'published', type: 'bool' },
      { name: 'views', type: 'number' },
      { name: 'status', type: 'select', values: ['draft', 'live'], maxSelect: 1 },
    ],
  });
  await seeder.seed('posts', 40, (i) => ({ title: `Post number ${i + 1}`, published: i % 3 === 0, views: i * 17, status: i % 2 ? 'live' : 'draft' }));
}, 120_000);

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const textColor = (page: Page) => page.evaluate(() => getComputedStyle(document.body).color);

async function darkPage(hash: string, viewport: { width: number; height: number }): Promise<Page> {
  const page = await seeder.open(browser, hash, viewport);
  await page.emulateMedia({ colorScheme: 'dark' });
  return page;
}

describe('dark theme', () => {
  it('follows the system: dark when the OS is dark, light again when it turns light', async () => {
    const page = await darkPage('#/collections/posts', { width: 1280, height: 820 });
    await page.locator('.records tbody tr').first().waitFor();
    expect(await theme(page)).toBe('dark');
    // the page's background is the one the desktop window paints before loading (main/theme.ts)
    expect(await background(page)).toBe(rgb(THEME_BACKGROUND.dark));
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => theme(page)).toBe('light');
    expect(await background(page)).toBe(rgb(THEME_BACKGROUND.light));
    await page.context().close();
  });

  it('the switch overrides the system and is remembered across a reload', async () => {
    const page = await darkPage('#/collections/posts', { width: 1280, height: 820 });
    await page.locator('.records tbody tr').first().waitFor();
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    expect(await theme(page)).toBe('light');
    await page.reload();
    await page.locator('.records tbody tr').first().waitFor();
    expect(await theme(page)).toBe('light');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
    expect(await theme(page)).toBe('dark');
    await page.context().close();
  });

  for (const viewport of [{ width: 1920, height: 1080 }, { width: 800, height: 900 }]) {
    it(`reads well at ${viewport.width} wide: records, a record, the schema, the data page`, async () => {
      const page = await darkPage('#/collections/posts', viewport);
      await page.locator('.records tbody tr').first().waitFor();
      expect(await theme(page)).toBe('dark');
      // light text on the dark background
      const [r] = (await textColor(page)).match(/\d+/g)!.map(Number);
      expect(r).toBeGreaterThan(200);
      await shot(page, `dark-${viewport.width}-records`);
      await page.locator('.records tbody tr').first().click();
      await page.locator('.panel').waitFor();
      await shot(page, `dark-${viewport.width}-record`);
      await page.keyboard.press('Escape');
      await page.locator('.panel').waitFor({ state: 'detached' });
      await page.goto(`${page.url().split('#')[0]}#/collections/posts/settings`);
      await page.locator('.field-row').first().waitFor();
      await shot(page, `dark-${viewport.width}-schema`);
      await page.context().close();

      // the desktop window's data page, with its preferences card (the preload bridge stubbed)
      const context = await browser.newContext({ viewport, colorScheme: 'dark' });
      await context.addInitScript((tk) => localStorage.setItem('deskbase.token', tk), seeder.token);
      await context.addInitScript(installDeskbaseStub, { on: { enabled: false, urls: [], qr: null }, failFirstOn: 'unused' });
      const desk = await context.newPage();
      await desk.goto(`${app.url}/_/#/data`);
      await desk.getByRole('heading', { name: 'This app' }).waitFor();
      expect(await theme(desk)).toBe('dark');
      await shot(desk, `dark-${viewport.width}-data`);
      await context.close();

      // signed out: the sign-in page
      const guest = await browser.newContext({ viewport, colorScheme: 'dark' });
      const login = await guest.newPage();
      await login.goto(`${app.url}/_/`);
      await login.getByRole('heading', { name: 'Superuser sign in' }).waitFor();
      expect(await theme(login)).toBe('dark');
      await shot(login, `dark-${viewport.width}-sign-in`);
      await guest.close();
    });
  }
});
