// View collections in the admin UI (issue 20, section 2), in Chromium against a real server: creating
// one with the query editor (a bad query shows the server's reason next to it, nothing is created),
// its inferred fields shown read-only in its settings, its records browsed read-only (no "New record",
// a read-only record panel), and an edit of the query rebuilding the fields.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildRenderer, launchBrowser, shot, startApp, type TestApp } from './helpers.js';

const EMAIL = 'admin@example.com';
const PASSWORD = 'correct-horse-battery';

let app: TestApp;
let browser: Browser;
let page: Page;
let token = '';

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${app.url}/api${path}`, { method, headers: { 'content-type': 'application/json', authorization: token }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
};

beforeAll(async () => {
  app = await startApp(await buildRenderer());
  await fetch(`${app.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: (await app.setupToken()), email: EMAIL, password: PASSWORD }) });
  token = ((await (await fetch(`${app.url}/api/collections/_superusers/auth-with-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: EMAIL, password: PASSWORD }) })).json()) as { token: string }).token;
  expect((await api('POST', '/collections', { name: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'score', type: 'number' }], listRule: '', viewRule: '' })).status).toBe(200);
  for (const [title, score] of [['alpha', 1], ['beta', 2], ['gamma', 3]] as const) expect((await api('POST', '/collections/posts/records', { title, score })).status).toBe(200);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(8000);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') await shot(page, `failed-views-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const rows = (p: Page) => p.locator('.records tbody tr[data-id]');

describe('view collections in the admin UI', () => {
  it('signs in', async () => {
    await page.goto(`${app.url}/_/#/login`);
    await page.fill('#login-email', EMAIL);
    await page.fill('#login-password', PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.getByText('New collection').first().waitFor();
  });

  it('creates a view with the query editor; a bad query is refused next to the editor', async () => {
    await page.goto(`${app.url}/_/#/new-collection`);
    await page.fill('#col-name', 'post_scores');
    await page.getByRole('radio', { name: 'View' }).click();
    // a view has no field list, no indexes and only the list and view rules
    await page.locator('#col-view-query').waitFor();
    expect(await page.getByRole('heading', { name: 'Indexes' }).count()).toBe(0);
    expect(await page.locator('#rule-createRule').count()).toBe(0);
    await page.fill('#col-view-query', 'SELECT title FROM posts');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.locator('.has-error', { hasText: 'missing required id column' }).waitFor();
    expect((await api('GET', '/collections/post_scores')).status).toBe(404);
    await page.fill('#col-view-query', 'SELECT p.id, p.title, CAST(p.score * 2 AS REAL) AS doubled FROM posts p');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.locator('.toast', { hasText: 'Collection “post_scores” created.' }).waitFor();
    const stored = await api('GET', '/collections/post_scores');
    expect(stored.body).toMatchObject({ type: 'view', viewQuery: 'SELECT p.id, p.title, CAST(p.score * 2 AS REAL) AS doubled FROM posts p' });
  });

  it('browses its records read-only', async () => {
    await page.goto(`${app.url}/_/#/collections/post_scores?sort=title`);
    await page.waitForFunction(() => document.querySelectorAll('.records tbody tr[data-id]').length === 3);
    expect(await rows(page).first().textContent()).toContain('alpha');
    expect(await page.getByRole('button', { name: 'New record' }).count()).toBe(0);
    await shot(page, 'view-collection-records');
    await rows(page).nth(2).click();
    const panel = page.getByRole('dialog', { name: 'post_scores record (read-only)' });
    await panel.waitFor();
    expect(await panel.textContent()).toContain('gamma');
    expect(await panel.textContent()).toContain('View records are read-only.');
    expect(await panel.getByRole('button', { name: /save|delete/i }).count()).toBe(0);
    await shot(page, 'view-collection-record-panel');
    await panel.getByRole('button', { name: 'Close' }).first().click();
    // records can be exported, not imported; the API preview shows the two reads only
    await page.getByRole('button', { name: 'Export / import' }).click();
    await page.getByRole('menuitem', { name: /Export all as CSV/ }).waitFor();
    expect(await page.getByRole('menuitem', { name: /Import/ }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.goto(`${app.url}/_/#/collections/post_scores/api`);
    const ops = page.getByRole('navigation', { name: 'Operations' });
    await ops.waitFor();
    expect((await ops.getByRole('button').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(['GETList / search', 'GETView']);
  });

  it('shows the inferred fields in its settings, and rebuilds them when the query changes', async () => {
    await page.goto(`${app.url}/_/#/collections/post_scores/settings`);
    const fields = page.getByLabel('Inferred fields');
    await fields.waitFor();
    expect((await fields.locator('li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(['id text', 'title text', 'doubled number']);
    await shot(page, 'view-collection-settings');
    await page.fill('#col-view-query', 'SELECT p.id, p.title AS headline FROM posts p WHERE p.score > 1');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.toast', { hasText: 'Changes saved.' }).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('[aria-label="Inferred fields"] li')].map((li) => li.textContent?.replace(/\s+/g, ' ').trim()).join('|') === 'id text|headline text');
    const list = await api('GET', '/collections/post_scores/records?sort=headline');
    expect((list.body.items as { headline: string }[]).map((r) => r.headline)).toEqual(['beta', 'gamma']);
  });
});
