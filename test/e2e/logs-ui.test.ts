// The Logs page in Chromium against a real server: the requests the server logged, charted per hour and
// listed newest first, superusers' requests left out until asked for, a filter, a bad filter's error,
// one log's details, and the logs settings saved; pictured wide and narrow.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserSuite, shot, type TestApp } from './helpers.js';
import type { Seeder } from './api-seed.js';

const suite = browserSuite({ shots: 'failed-logs' });
let app: TestApp;
let seeder: Seeder;
let page: Page;

/** Clicks Refresh until `row` shows (the server writes its logs in batches, about once a second). */
async function refreshUntil(p: Page, text: string): Promise<void> {
  await expect.poll(async () => {
    await p.getByRole('button', { name: 'Refresh logs' }).click();
    await p.waitForTimeout(300);
    return p.locator('.logs-table tbody tr', { hasText: text }).count();
  }, { timeout: 15_000, interval: 500 }).toBeGreaterThan(0);
}

beforeAll(async () => {
  ({ app, seeder } = suite);
  await seeder.call('POST', '/collections', { name: 'notes', type: 'base', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }] });
  await fetch(`${app.url}/api/collections/notes/records?filter=${encodeURIComponent("title = 'marker-ok'")}`, { headers: { 'user-agent': 'e2e-guest/1.0' } });
  await fetch(`${app.url}/api/collections/notes/records/marker-missing`, { headers: { 'user-agent': 'e2e-guest/1.0' } });
  page = await suite.newPage({ width: 1280, height: 900 });
});

describe('the Logs page', () => {
  it('opens from the sidebar and lists the requests, newest first, with the chart', async () => {
    await page.goto(`${app.url}/_/#/collections/notes`);
    await page.locator('.sidebar-footer a[href="#/logs"]').click();
    await page.getByRole('heading', { name: 'Logs' }).waitFor();
    await refreshUntil(page, 'marker-missing');
    const missing = page.locator('.logs-table tbody tr', { hasText: '/api/collections/notes/records/marker-missing' });
    expect(await missing.locator('.badge').allTextContents()).toEqual(['ERROR', '404']);
    const ok = page.locator('.logs-table tbody tr', { hasText: "title = 'marker-ok'" });
    expect(await ok.locator('.badge').allTextContents()).toEqual(['INFO', '200']);
    // newest first: the 404 came after the list
    const messages = await page.locator('.logs-table tbody tr .logs-message-text').allTextContents();
    expect(messages.findIndex((m) => m.includes('marker-missing'))).toBeLessThan(messages.findIndex((m) => m.includes('marker-ok')));
    expect(await page.locator('.logs-chart rect.logs-bar').count()).toBeGreaterThan(0);
    expect(await page.locator('.logs-chart rect.logs-bar').count()).toBeGreaterThanOrEqual(24); // a day at least
    expect(await page.locator('.logs-chart').getAttribute('aria-label')).toMatch(/^Logs per hour: \d+ from /);
    await shot(page, 'logs-wide');
  });

  it("leaves superusers' requests out until asked for", async () => {
    // the seeder's POST /api/collections was a superuser's
    const created = page.locator('.logs-table tbody tr .logs-message-text', { hasText: /^POST \/api\/collections$/ });
    expect(await created.count()).toBe(0);
    await page.getByLabel('Include requests by superusers').check();
    await created.first().waitFor();
    await page.getByLabel('Include requests by superusers').uncheck();
    await expect.poll(() => created.count()).toBe(0);
  });

  it('filters with an expression, and shows a bad one as an error', async () => {
    const box = page.getByLabel('Search or filter logs');
    await box.fill('data.status = 404');
    await box.press('Enter');
    await expect.poll(() => page.locator('.logs-table tbody tr').count()).toBe(1);
    expect(await page.locator('.logs-count').textContent()).toBe('1 log');
    await box.fill('data.status >');
    await box.press('Enter');
    await page.locator('.alert-error', { hasText: /invalid|filter|character/i }).waitFor();
    // the chart's request and the list's fail alike, the alert showing the first: the box marks the list's
    await expect.poll(() => page.locator('form.filter-box').getAttribute('class')).toContain('has-error');
    // a plain word searches the message, url, error and user agent
    await box.fill('marker-ok');
    await box.press('Enter');
    await expect.poll(() => page.locator('.logs-table tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await expect.poll(() => page.locator('.logs-table tbody tr').count()).toBeGreaterThan(1);
  });

  it('pages with Load more, 50 at a time', async () => {
    for (let i = 0; i < 60; i++) await fetch(`${app.url}/api/health?bulk=${i}`);
    const box = page.getByLabel('Search or filter logs');
    await box.fill("data.url ~ 'bulk='");
    await box.press('Enter');
    await expect.poll(async () => {
      await page.getByRole('button', { name: 'Refresh logs' }).click();
      await page.waitForTimeout(300);
      return page.locator('.logs-count').textContent();
    }, { timeout: 15_000, interval: 500 }).toBe('60 logs');
    expect(await page.locator('.logs-table tbody tr').count()).toBe(50);
    await page.getByRole('button', { name: 'Load more (10 left)' }).click();
    await expect.poll(() => page.locator('.logs-table tbody tr').count()).toBe(60);
    const last = await page.locator('.logs-table tbody tr .logs-message-text').last().textContent();
    expect(last).toBe('GET /api/health?bulk=0'); // newest first: the first request is the last row
    expect(await page.getByRole('button', { name: /Load more/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Clear filter' }).click();
  });

  it("shows one log's details in a panel", async () => {
    const box = page.getByLabel('Search or filter logs');
    await box.fill('marker-missing');
    await box.press('Enter');
    await expect.poll(() => page.locator('.logs-table tbody tr').count()).toBe(1);
    await page.locator('.logs-table tbody tr', { hasText: 'marker-missing' }).click();
    const panel = page.getByRole('dialog', { name: 'Log details' });
    await panel.waitFor();
    const row = (key: string) => panel.locator('tr', { has: page.locator(`th:text-is("${key}")`) }).locator('td');
    expect(await row('data.status').textContent()).toBe('404');
    expect(await row('data.url').textContent()).toBe('/api/collections/notes/records/marker-missing');
    expect(await row('data.userAgent').textContent()).toBe('e2e-guest/1.0');
    expect(await row('level').textContent()).toBe('ERROR (8)');
    await shot(page, 'logs-details');
    await panel.getByRole('button', { name: 'Close' }).click();
    await panel.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Clear filter' }).click();
  });

  it('saves the logs settings', async () => {
    await page.getByRole('button', { name: 'Logs settings' }).click();
    const panel = page.getByRole('dialog', { name: 'Logs settings' });
    await panel.locator('#logs-maxDays').waitFor();
    expect(await panel.locator('#logs-maxDays').inputValue()).toBe('5');
    await panel.locator('#logs-maxDays').fill('9');
    await panel.locator('#logs-minLevel').selectOption('4');
    await panel.locator('#logs-logAuthId').check();
    await panel.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Logs settings saved.').waitFor();
    const stored = (await seeder.call<{ logs: unknown }>('GET', '/settings')).logs;
    expect(stored).toEqual({ maxDays: 9, minLevel: 4, logIP: true, logAuthId: true });
    // a negative number of days is refused at the field (the server refuses it too: test/logs/logs-api.test.ts)
    await page.getByRole('button', { name: 'Logs settings' }).click();
    await panel.locator('#logs-maxDays').fill('-3');
    await panel.getByRole('button', { name: 'Save' }).click();
    expect(await panel.locator('#logs-maxDays').evaluate((el) => (el as HTMLInputElement).validity.valid)).toBe(false);
    await shot(page, 'logs-settings');
    await panel.getByRole('button', { name: 'Cancel' }).click();
    expect((await seeder.call<{ logs: { maxDays: number } }>('GET', '/settings')).logs.maxDays).toBe(9);
    await seeder.call('PATCH', '/settings', { logs: { maxDays: 5, minLevel: 0, logAuthId: false } });
  });

  it('fits a phone-sized window', async () => {
    const narrow = await suite.open('#/logs', { width: 390, height: 844 });
    await narrow.getByRole('heading', { name: 'Logs' }).waitFor();
    await narrow.locator('.logs-table tbody tr').first().waitFor();
    const overflow = await narrow.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(narrow, 'logs-narrow');
    await narrow.context().close();
  });
});
