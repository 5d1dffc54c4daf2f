// The Settings page (issue 26) in Chromium against a real server: application and mail settings saved
// (a bad URL refused next to its field), a test e-mail, and the outbox listing a verification mail
// with its link on the application URL, as a local developer without a mail server uses it; the
// trusted proxy and rate-limit rules set from the page and taking effect; the OAuth2 redirect's pages.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserSuite, shot, signInThroughForm, type TestApp } from './helpers.js';
import type { Seeder } from './api-seed.js';

const suite = browserSuite({ shots: 'failed-settings' });
let app: TestApp;
let seeder: Seeder;
let page: Page;
let verifyLink = '';

beforeAll(async () => {
  ({ app, seeder } = suite);
  expect((await seeder.send('POST', '/collections/users/records', { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' })).status).toBe(200);
  page = await suite.newPage({ width: 1280, height: 900 }, { signedIn: false });
});

describe('the Settings page', () => {
  it('signs in and opens Settings from the sidebar', async () => {
    await signInThroughForm(page, app);
    await page.locator('.sidebar-footer a[href="#/settings"]').click();
    await page.getByRole('heading', { name: 'Application' }).waitFor();
    expect(await page.inputValue('#settings-meta-appName')).toBe('Acme');
  });

  it('refuses a bad application URL next to its field, then saves a good one', async () => {
    await page.fill('#settings-meta-appURL', 'not a url');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('.form-field.has-error', { hasText: 'Must be a valid URL.' }).waitFor();
    await page.fill('#settings-meta-appName', 'Notes');
    await page.fill('#settings-meta-appURL', 'https://notes.example.com');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const stored = (await seeder.send('GET', '/settings')).body as { meta: { appName: string; appURL: string } };
    expect(stored.meta).toMatchObject({ appName: 'Notes', appURL: 'https://notes.example.com' });
  });

  it('lists a verification mail in the outbox with its link on the application URL', async () => {
    const r = await fetch(`${app.url}/api/collections/users/request-verification`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ann@example.com' }) });
    expect(r.status).toBe(204);
    await expect.poll(async () => ((await seeder.send('GET', '/mails')).body as { items: unknown[] }).items.length).toBe(1);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.locator('.outbox-table tbody tr', { hasText: 'ann@example.com' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Verify your Notes email');
    const href = await row.locator('a').first().getAttribute('href');
    expect(href).toMatch(/^https:\/\/notes\.example\.com\/_\/#\/auth\/confirm-verification\/[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+\.[A-Za-z0-9_-]{9}$/);
    await shot(page, 'settings-outbox');
    verifyLink = href as string;
  });

  it('the mailed link opens a page that verifies the account, without signing in', async () => {
    const guest = await suite.browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      await guest.goto(verifyLink.replace('https://notes.example.com', app.url));
      await guest.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
      await guest.getByRole('button', { name: 'Verify' }).click();
      await guest.getByText('Your e-mail is verified.').waitFor();
      const ann = (await seeder.send('GET', '/collections/users/records?filter=' + encodeURIComponent("email='ann@example.com'"))).body as { items: { verified: boolean }[] };
      expect(ann.items[0].verified).toBe(true);
      // a second use of the same link says so
      await guest.reload();
      await guest.getByRole('button', { name: 'Verify' }).click();
      await guest.getByText('This link is invalid or has expired.').waitFor();
    } finally {
      await guest.close();
    }
  });

  it('a password reset link asks for the new password twice and changes it', async () => {
    await fetch(`${app.url}/api/collections/users/request-password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ann@example.com' }) });
    let link = '';
    await expect.poll(async () => {
      const items = ((await seeder.send('GET', '/mails')).body as { items: { subject: string; html: string }[] }).items;
      link = /href="([^"]+confirm-password-reset[^"]+)"/.exec(items.find((m) => m.subject.startsWith('Reset'))?.html ?? '')?.[1] ?? '';
      return link;
    }).not.toBe('');
    const guest = await suite.browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      await guest.goto(link.replace('https://notes.example.com', app.url));
      await guest.fill('#confirm-password', 'a brand new password');
      await guest.fill('#confirm-password-again', 'a brand new password');
      await guest.getByRole('button', { name: 'Confirm' }).click();
      await guest.getByText('Your password was changed.').waitFor();
    } finally {
      await guest.close();
    }
    const signIn = await fetch(`${app.url}/api/collections/users/auth-with-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'ann@example.com', password: 'a brand new password' }) });
    expect(signIn.status).toBe(200);
  });

  it('sends a test e-mail, kept in the outbox while SMTP is off', async () => {
    await page.fill('#settings-test-to', 'tester@example.com');
    await page.selectOption('#settings-test-template', 'password-reset');
    await page.getByRole('button', { name: 'Send test e-mail' }).click();
    await page.getByText('Test e-mail kept in the outbox.').waitFor();
    await page.locator('.outbox-table tbody tr', { hasText: 'tester@example.com' }).waitFor();
    await expect.poll(async () => page.locator('.outbox-table tbody tr').first().textContent()).toContain('tester@example.com');
    expect(await page.locator('.outbox-table tbody tr').first().textContent()).toContain('Reset your Notes password');
  });
});

describe('the trusted proxy and rate limits on the Settings page', () => {
  it('shows PocketBase\'s default rules, refuses a bad label next to it, saves, and the rules then limit a client', async () => {
    await page.getByRole('heading', { name: 'Rate limits' }).waitFor();
    // PocketBase's default rules are there, off
    expect(await page.inputValue('[aria-label="Rule 1 label"]')).toBe('*:auth');
    expect(await page.isChecked('#settings-rate-enabled')).toBe(false);
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.fill('[aria-label="Rule 5 label"]', 'not a label!');
    await page.check('#settings-rate-enabled');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('.rate-limits-table .error-text', { hasText: 'Must be in a valid format.' }).waitFor();
    expect(((await seeder.send('GET', '/settings')).body as { rateLimits: { enabled: boolean } }).rateLimits.enabled).toBe(false);

    await page.fill('[aria-label="Rule 5 label"]', 'GET /api/health');
    await page.fill('[aria-label="Rule 5 max requests"]', '2');
    await page.fill('[aria-label="Rule 5 duration"]', '60');
    await page.fill('#settings-proxy-headers', 'X-Forwarded-For');
    await page.getByRole('button', { name: 'Save settings' }).click();
    type Stored = { rateLimits: { enabled: boolean; rules: { label: string }[] }; trustedProxy: { headers: string[] } };
    await expect.poll(async () => ((await seeder.send('GET', '/settings')).body as Stored).rateLimits.enabled).toBe(true);
    await shot(page, 'settings-rate-limits');
    const stored = (await seeder.send('GET', '/settings')).body as Stored;
    expect(stored.rateLimits.rules.map((r) => r.label)).toEqual(['*:auth', '*:create', '/api/batch', '/api/', 'GET /api/health']);
    expect(stored.trustedProxy.headers).toEqual(['X-Forwarded-For']);

    // in effect: the third health check of one forwarded client is a 429, another client goes on
    const health = (client: string) => fetch(`${app.url}/api/health`, { headers: { 'x-forwarded-for': client } }).then((r) => r.status);
    expect([await health('203.0.113.5'), await health('203.0.113.5'), await health('203.0.113.5'), await health('203.0.113.6')]).toEqual([200, 200, 429, 200]);

    // turned off again from the page
    await page.uncheck('#settings-rate-enabled');
    await page.fill('#settings-proxy-headers', '');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => ((await seeder.send('GET', '/settings')).body as { rateLimits: { enabled: boolean } }).rateLimits.enabled).toBe(false);
    expect(await health('203.0.113.5')).toBe(200);
  });
});

describe('the OAuth2 redirect pages', () => {
  it('/api/oauth2-redirect lands the window on the admin UI\'s page saying it failed (no waiting client)', async () => {
    const guest = await suite.browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      await guest.goto(`${app.url}/api/oauth2-redirect?state=nobody&code=abc`);
      await guest.getByRole('heading', { name: 'Failed to authenticate' }).waitFor();
      expect(new URL(guest.url()).hash).toBe('#/auth/oauth2-redirect-failure');
      await guest.goto(`${app.url}/_/#/auth/oauth2-redirect-success`);
      await guest.getByRole('heading', { name: 'Auth completed' }).waitFor();
      await shot(guest, 'oauth2-redirect-success');
    } finally {
      await guest.close();
    }
  });
});
