// The admin UI end to end, in Chromium against a real server: first-run setup, sign-in, collections with
// several field types and a relation, records (add, edit, filter, delete), a rule that does not compile,
// and revoking a session. Steps run in order and share one browser page, as a person would.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import QRCode from 'qrcode';
import PocketBase from 'pocketbase';
import { browserSuite, shot, type TestApp } from './helpers.js';
import { installDeskbaseStub } from './desktop-stub.js';

// The address the server prints for first-run setup.
const UI_PATH = '/_/';
const EMAIL = 'admin@example.com';
const PASSWORD = 'correct-horse-battery';

const suite = browserSuite({ shots: 'failed', superuser: false }); // the tests sign up the first superuser in the UI
let app: TestApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ app, browser } = suite);
  page = await suite.newPage({ width: 1280, height: 820 }, { signedIn: false });
});

// Several toasts can be on screen at once: the newest is the one the last action raised.
const toast = (text: string | RegExp) => page.locator('.toast', { hasText: text }).last();
/** Closes every notice, so waiting for a repeated text ("Changes saved.") waits for the new one. */
async function dismissToasts(): Promise<void> {
  const close = page.locator('.toast-close');
  // One at a time: each click removes a notice, and the rest may time out on their own meanwhile.
  while ((await close.count()) > 0) await close.first().click({ timeout: 1000 }).catch(() => undefined);
}
const row = (name: string) => page.locator(`.field-row[data-field="${name}"]`);

/** Signs the superuser in from another client (curl), returning its token. */
async function signInElsewhere(): Promise<string> {
  const res = await fetch(`${app.url}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
    body: JSON.stringify({ identity: EMAIL, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function addField(type: string, name: string): Promise<void> {
  await page.getByRole('button', { name: 'New field' }).click();
  await page.getByRole('menuitem', { name: new RegExp(`^${type}:`) }).click();
  const input = page.locator('.field-name input:focus');
  await input.fill(name);
}

async function createRecord(values: (p: Page) => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'New record' }).click();
  await values(page);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await toast('Record created.').waitFor();
  await page.locator('.panel').waitFor({ state: 'detached' });
}

describe('admin UI', () => {
  it('completes first-run setup with the token from the server, then lands signed in', async () => {
    const token = (await app.setupToken());
    expect(token).toBeTruthy();
    await page.goto(`${app.url}${UI_PATH}#/setup?token=${token}`);
    await expect(page.locator('#setup-token').inputValue()).resolves.toBe(token);
    await page.fill('#setup-email', EMAIL);
    await page.fill('#setup-password', 'short');
    await page.fill('#setup-confirm', 'short');
    await page.getByRole('button', { name: 'Create superuser and sign in' }).click();
    // The server's field error is shown on the password field.
    await page.locator('.form-field.has-error #setup-password').waitFor();
    await shot(page, '01-setup-error');
    await page.fill('#setup-password', PASSWORD);
    await page.fill('#setup-confirm', PASSWORD);
    await page.getByRole('button', { name: 'Create superuser and sign in' }).click();
    // Signed in: the shell opens on the first collection (the default `users`).
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.locator('.records').waitFor();
    await shot(page, '02-signed-in');
  });

  it('keeps the session across a reload, signs out and signs back in', async () => {
    await page.reload();
    await page.locator('.records').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Superuser sign in' }).waitFor();
    await page.fill('#login-email', EMAIL);
    await page.fill('#login-password', 'wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.alert-error').waitFor();
    await shot(page, '03-login-error');
    await page.fill('#login-password', PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.records').waitFor();
  });

  it('creates an authors collection with a presentable name', async () => {
    await page.getByRole('link', { name: 'New collection' }).click();
    await page.getByRole('heading', { name: 'New collection' }).waitFor();
    await shot(page, '03b-new-collection');
    await page.fill('#col-name', 'authors');
    await addField('Plain text', 'name');
    await row('name').getByLabel('Presentable').check();
    await row('name').getByLabel('Required', { exact: true }).check();
    await page.getByRole('button', { name: 'Create collection' }).click();
    await toast('Collection “authors” created.').waitFor();
    await page.getByRole('heading', { name: 'authors' }).waitFor();
  });

  it('creates a posts collection with several field types and a relation', async () => {
    await page.getByRole('link', { name: 'New collection' }).click();
    await page.fill('#col-name', 'posts');
    await addField('Plain text', 'title');
    await row('title').getByLabel('Required', { exact: true }).check();
    await addField('Number', 'views');
    await addField('Bool', 'published');
    await addField('Select', 'status');
    await row('status').getByLabel('Choices').fill('draft, published, archived');
    await row('status').getByLabel('Choices').blur();
    await addField('Relation', 'author');
    await row('author').getByLabel('Related collection').selectOption({ label: 'authors' });
    await addField('JSON', 'meta');
    await addField('Date', 'publishedAt');
    await shot(page, '04-new-collection-fields');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await toast('Collection “posts” created.').waitFor();
    await page.getByRole('heading', { name: 'posts' }).waitFor();
    await shot(page, '05-posts-empty');
  });

  it('adds, edits, filters and deletes records', async () => {
    await page.getByRole('link', { name: 'authors' }).click();
    await page.getByRole('heading', { name: 'authors' }).waitFor();
    for (const name of ['Ada Lovelace', 'Alan Turing']) await createRecord(async (p) => p.fill('#rf-name', name));

    await page.getByRole('link', { name: 'posts' }).click();
    await page.getByRole('heading', { name: 'posts' }).waitFor();
    // A required field left empty: the server's error lands under the field.
    await page.getByRole('button', { name: 'New record' }).click();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('.form-field.has-error #rf-title').waitFor();
    await page.fill('#rf-title', 'Hello world');
    await page.fill('#rf-views', '10');
    await page.locator('label.switch', { has: page.locator('#rf-published') }).click();
    await page.selectOption('#rf-status', 'published');
    await page.locator('#rf-author').click();
    await page.locator('.picker-list').getByText('Ada Lovelace').click();
    await page.fill('#rf-meta', '{"tags": ["intro", "news"]}');
    await page.fill('#rf-publishedAt', '2025-03-04T05:06:07');
    await shot(page, '06-record-form');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await toast('Record created.').waitFor();
    await createRecord(async (p) => {
      await p.fill('#rf-title', 'Second post');
      await p.fill('#rf-views', '3');
    });
    await createRecord(async (p) => p.fill('#rf-title', 'Draft to delete'));

    const rows = page.locator('.records tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    // The relation shows the related record's presentable field, not its id.
    await expect(page.locator('.records tbody tr', { hasText: 'Hello world' }).textContent()).resolves.toContain('Ada Lovelace');
    await shot(page, '07-records');

    // Edit.
    await page.locator('.records tbody tr', { hasText: 'Second post' }).click();
    await page.fill('#rf-views', '42');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await toast('Record saved.').waitFor();
    await expect.poll(() => page.locator('.records tbody tr', { hasText: 'Second post' }).textContent()).toContain('42');

    // Filter (from the help's examples, then typed), then a filter the server rejects.
    await page.getByRole('button', { name: 'Filter help' }).click();
    await page.locator('.filter-help').getByRole('button', { name: 'published = true' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await shot(page, '07b-filter-help');
    await page.getByRole('button', { name: 'Filter help' }).click();
    await page.getByLabel('Filter records').fill('views > 20');
    await page.keyboard.press('Enter');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Filter records').fill('nope = 1');
    await page.keyboard.press('Enter');
    await page.locator('.filter-error').waitFor();
    await shot(page, '08-filter-error');
    await page.getByRole('button', { name: 'Clear filter' }).first().click();
    await expect.poll(() => rows.count()).toBe(3);

    // Delete with confirmation.
    await page.locator('.records tbody tr', { hasText: 'Draft to delete' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await shot(page, '09-delete-confirm');
    await page.getByRole('button', { name: 'Delete record' }).click();
    await toast('Record deleted.').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
  });

  it('updates the records table and the collections list live when another client writes', async () => {
    await page.getByRole('link', { name: 'posts' }).click();
    await page.getByRole('heading', { name: 'posts' }).waitFor();
    const rows = page.locator('.records tbody tr');
    const before = await rows.count();
    const other = new PocketBase(app.url);
    await other.collection('_superusers').authWithPassword(EMAIL, PASSWORD);
    await expect.poll(() => app.subscribers('posts/*')).toBeGreaterThan(0);
    const made = await other.collection('posts').create({ title: 'Written elsewhere', views: 7 });
    await expect.poll(() => rows.count()).toBe(before + 1);
    await page.locator('.records tbody tr', { hasText: 'Written elsewhere' }).waitFor();
    // a change rebuilds its row (cells are built once per record object)
    await other.collection('posts').update(made.id, { title: 'Changed elsewhere' });
    await page.locator('.records tbody tr', { hasText: 'Changed elsewhere' }).waitFor();
    await other.collection('posts').delete(made.id);
    await expect.poll(() => rows.count()).toBe(before);
    await expect.poll(() => app.subscribers('_collections/*')).toBeGreaterThan(0);
    await other.collections.create({ name: 'live_notes', type: 'base', fields: [{ name: 'text', type: 'text' }] });
    await page.getByRole('link', { name: 'live_notes' }).waitFor();
    await shot(page, '09b-live-collection');
    await other.collections.delete('live_notes');
    await page.getByRole('link', { name: 'live_notes' }).waitFor({ state: 'detached' });
    await other.send('/api/session', { method: 'DELETE' }); // the sessions step counts the superuser's sessions
  });

  it('runs the PocketBase SDK browser build: isValid and a filtered subscription in Chromium', async () => {
    const sdkPage = await browser.newPage();
    try {
      await sdkPage.goto(`${app.url}/api/health`);
      await sdkPage.addScriptTag({ content: await readFile('node_modules/pocketbase/dist/pocketbase.umd.js', 'utf8') });
      const valid = await sdkPage.evaluate(async ([email, password]) => {
        type Sdk = { authStore: { isValid: boolean }; collection(n: string): { authWithPassword(e: string, p: string): Promise<unknown>; subscribe(t: string, cb: (e: { action: string; record: { title: string } }) => void, o: object): Promise<unknown> } };
        const w = window as unknown as { PocketBase: new (url: string) => Sdk; pb: Sdk; events: string[] };
        w.pb = new w.PocketBase(location.origin);
        w.events = [];
        await w.pb.collection('_superusers').authWithPassword(email, password);
        await w.pb.collection('posts').subscribe('*', (e) => w.events.push(`${e.action}:${e.record.title}`), { filter: 'views > 100' });
        return w.pb.authStore.isValid;
      }, [EMAIL, PASSWORD]);
      expect(valid).toBe(true);
      const other = new PocketBase(app.url);
      await other.collection('_superusers').authWithPassword(EMAIL, PASSWORD);
      await other.collection('posts').create({ title: 'small', views: 1 });
      await other.collection('posts').create({ title: 'big', views: 500 });
      await expect.poll(() => sdkPage.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual(['create:big']);
      await other.send('/api/session', { method: 'DELETE' });
      await sdkPage.evaluate(() => (window as unknown as { pb: { send(p: string, o: object): Promise<unknown> } }).pb.send('/api/session', { method: 'DELETE' }));
    } finally {
      await sdkPage.close();
    }
  });

  it('shows a rule that does not compile under the rule, then saves a valid one', async () => {
    await page.getByRole('navigation', { name: 'Collection views' }).getByRole('link', { name: 'Settings' }).click();
    const list = page.locator('.rule', { has: page.locator('label', { hasText: 'List / search' }) });
    await list.getByRole('button', { name: 'Locked' }).click();
    await page.fill('#rule-listRule', 'nope = 1');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await list.locator('.rule-error').waitFor();
    await list.scrollIntoViewIfNeeded();
    await shot(page, '10-rule-error');
    await page.fill('#rule-listRule', 'published = true');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await toast('Changes saved.').waitFor();
    await expect(list.locator('.rule-error').count()).resolves.toBe(0);
  });

  it('renames a field (data kept), removes one after a warning, and adds a unique index', async () => {
    await dismissToasts();
    await row('views').getByLabel('Field name').fill('view_count');
    await row('meta').getByRole('button', { name: 'Remove meta' }).click();
    await row('meta').locator('.field-warning').waitFor();
    await page.getByRole('button', { name: 'Add index' }).click();
    const index = page.locator('.index-row').last();
    await index.getByRole('button', { name: 'title', exact: true }).click();
    await index.getByLabel('Unique').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain('meta');
    await shot(page, '11-drop-field-warning');
    await page.getByRole('button', { name: 'Save and delete data' }).click();
    await toast('Changes saved.').waitFor();
    await page.getByRole('link', { name: 'Records' }).click();
    await expect.poll(() => page.locator('.records thead').textContent()).toContain('view_count');
    await expect(page.locator('.records thead').textContent()).resolves.not.toContain('meta');
    await expect(page.locator('.records tbody tr', { hasText: 'Second post' }).textContent()).resolves.toContain('42');
    await page.getByRole('navigation', { name: 'Collection views' }).getByRole('link', { name: 'Settings' }).click();
  });

  it('creates an auth record with email, password and verified', async () => {
    await page.getByRole('link', { name: 'users', exact: true }).click();
    await page.getByRole('button', { name: 'New record' }).click();
    await page.fill('#rf-email', 'ada@example.com');
    await page.fill('#rf-password', 'analytical-engine');
    await page.fill('#rf-password-confirm', 'analytical-engine');
    await page.locator('label.switch', { has: page.locator('#rf-verified') }).click();
    await page.fill('#rf-name', 'Ada');
    await shot(page, '12-auth-record');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await toast('Record created.').waitFor();
    await expect.poll(() => page.locator('.records tbody').textContent()).toContain('ada@example.com');
    // The password set in the form works for signing in.
    const res = await fetch(`${app.url}/api/collections/users/auth-with-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: 'ada@example.com', password: 'analytical-engine' }),
    });
    expect(res.status).toBe(200);
    // Auth settings: system fields locked, sign-in rules present.
    await page.getByRole('navigation', { name: 'Collection views' }).getByRole('link', { name: 'Settings' }).click();
    await expect(row('email').getByLabel('Field name').isDisabled()).resolves.toBe(true);
    await page.locator('#rule-authRule').waitFor();
    await shot(page, '12b-auth-settings');
    await page.locator('.rule', { has: page.locator('#rule-authRule') }).scrollIntoViewIfNeeded();
    await shot(page, '12c-auth-rules');
    await page.getByRole('link', { name: 'posts' }).click();
  });

  it('shows the API preview with this server address', async () => {
    await page.getByRole('link', { name: 'API preview' }).click();
    await page.locator('pre.code').waitFor();
    await expect(page.locator('pre.code').textContent()).resolves.toContain(`${app.url}/api/collections/posts/records`);
    await page.getByRole('tab', { name: 'PocketBase JS SDK' }).click();
    await expect(page.locator('pre.code').textContent()).resolves.toContain("pb.collection('posts').getList");
    await shot(page, '13-api-preview');
  });

  it('lists sessions and revokes another one', async () => {
    // A second sign-in from another client.
    const other = await signInElsewhere();
    await page.getByRole('link', { name: 'Sessions' }).click();
    const rows = page.locator('.sessions-table tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await shot(page, '14-sessions');
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await toast('Session revoked.').waitFor();
    await expect.poll(() => rows.count()).toBe(1);
    const after = await fetch(`${app.url}/api/session`, { headers: { authorization: `Bearer ${other}` } });
    expect(await after.json()).toBeNull();

    // Two more clients, then "sign out everywhere else" keeps only this browser.
    for (let i = 0; i < 2; i++) await signInElsewhere();
    await page.reload();
    await expect.poll(() => rows.count()).toBe(3);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByRole('button', { name: 'Revoke 2 sessions' }).click();
    await toast('Signed out everywhere else.').waitFor();
    await expect.poll(() => rows.count()).toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('This device');
  });

  it('asks before leaving a collection editor with unsaved changes', async () => {
    await page.getByRole('link', { name: 'posts' }).click();
    await page.getByRole('navigation', { name: 'Collection views' }).getByRole('link', { name: 'Settings' }).click();
    await row('title').getByLabel('Field name').fill('headline');
    // In-app navigation: our dialog; Cancel keeps the edit.
    await page.getByRole('link', { name: 'Records' }).click();
    const dialog = page.getByRole('alertdialog');
    await expect(dialog.textContent()).resolves.toContain('Leave “posts” without saving?');
    await shot(page, '16-leave-unsaved');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(row('headline').getByLabel('Field name').inputValue()).resolves.toBe('headline');
    // Closing or reloading the tab: the browser's own prompt; dismissing it stays.
    const prompt = page.waitForEvent('dialog');
    // Not awaited on its own: the evaluation settles only once the prompt is answered.
    const reloading = page.evaluate(() => location.reload()).catch(() => undefined);
    const beforeUnload = await prompt;
    expect(beforeUnload.type()).toBe('beforeunload');
    await beforeUnload.dismiss();
    await reloading;
    await expect(row('headline').getByLabel('Field name').inputValue()).resolves.toBe('headline');
    await page.getByRole('link', { name: 'Records' }).click();
    await dialog.getByRole('button', { name: 'Leave without saving' }).click();
    await page.locator('.records').waitFor();
    await expect(page.locator('.records thead').textContent()).resolves.toContain('title');
  });

  it('downloads a backup: a zip holding the SQLite file', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('heading', { name: 'Data', level: 1 }).waitFor();
    // No desktop bridge in a browser tab: no sharing switch.
    await expect(page.getByRole('switch').count()).resolves.toBe(0);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download backup' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^deskbase-.*\.zip$/);
    const { unzip } = await import('../files/zip-read.js');
    const bytes = (await unzip(await readFile(await file.path()))).get('data.db')!;
    expect(bytes.subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    await toast(/Backup ready \(.+\)\./).waitFor();
    await expect(page.locator('.backup-last').textContent()).resolves.toMatch(
      new RegExp(`^Last backup: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC, ${file.suggestedFilename().replace(/\./g, '\\.')} \\([\\d.]+ KB\\)$`),
    );
    // Remembered: a reload still says when the last copy was taken.
    await page.reload();
    await expect(page.locator('.backup-last').textContent()).resolves.toContain(file.suggestedFilename());
    // the last backup's time and the restore control side by side, narrow and wide
    await page.getByText('Restore from a backup…').waitFor();
    await shot(page, '17-backup');
    for (const [width, height] of [[800, 600], [1920, 1080]]) {
      await page.setViewportSize({ width, height });
      await shot(page, `17-backup-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 820 });
  });

  it('shares on the local network from the desktop window (preload bridge stubbed in the page)', async () => {
    const port = new URL(app.url).port;
    const urls = [`http://192.168.1.20:${port}`, `http://10.0.0.7:${port}`];
    const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
    try {
      await context.addInitScript(installDeskbaseStub, {
        on: { enabled: true, urls, qr: await QRCode.toDataURL(urls[0], { margin: 1, width: 256 }) },
        failFirstOn: `Port ${port} is already in use on all interfaces.`,
      });
      // The desktop window signs in like a tab does: the token in localStorage.
      const token = await signInElsewhere();
      await context.addInitScript((t) => localStorage.setItem('deskbase.token', t), token);
      const desk = await context.newPage();
      desk.setDefaultTimeout(8000);
      await desk.goto(`${app.url}${UI_PATH}#/data`);
      const lan = desk.getByRole('switch', { name: 'Share on local network' });
      await expect(lan.isChecked()).resolves.toBe(false);
      await expect(desk.locator('.lan-banner').count()).resolves.toBe(0);

      // The first try fails (port taken): the reason shows, the switch stays off.
      await desk.locator('label.switch', { has: lan }).click();
      await desk.getByText(`Could not change sharing: Port ${port} is already in use on all interfaces.`).waitFor();
      await expect(lan.isChecked()).resolves.toBe(false);
      await shot(desk, '18a-lan-error');

      await desk.locator('label.switch', { has: lan }).click();
      await expect.poll(() => lan.isChecked()).toBe(true);
      await expect(desk.locator('.lan-banner').textContent()).resolves.toContain(
        `Deskbase is reachable from your local network at ${urls[0]} and ${urls[1]}: anyone on this network can call the API; rules still apply.`,
      );
      const qr = desk.locator('.lan-qr img');
      await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
      await desk.getByRole('button', { name: 'Copy API URL' }).click();
      await desk.locator('.toast', { hasText: `Copied ${urls[0]}/api/` }).waitFor();
      await desk.getByRole('button', { name: 'Open data folder' }).click();
      await expect.poll(() => desk.evaluate(() => (window as unknown as { openedDataFolder: number }).openedDataFolder)).toBe(1);
      await shot(desk, '18-lan-sharing-on');

      // The warning follows to every page, and narrow windows too.
      await desk.getByRole('link', { name: 'posts' }).click();
      // Examples use the address other devices reach while sharing.
      await desk.getByRole('link', { name: 'API preview' }).click();
      await expect(desk.locator('pre.code').textContent()).resolves.toContain(`${urls[0]}/api/collections/posts/records`);
      await desk.getByRole('link', { name: 'Records' }).click();
      await desk.locator('.records').waitFor();
      await desk.setViewportSize({ width: 400, height: 760 });
      await shot(desk, '18b-lan-banner-narrow');
      await desk.locator('.lan-banner').getByRole('link', { name: 'Details' }).click();
      await desk.locator('.lan-qr').evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(desk, '18c-lan-details-narrow');
      await desk.getByRole('button', { name: 'Stop sharing' }).click();
      await desk.locator('.lan-banner').waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });

  it('works in a narrow window', async () => {
    await page.setViewportSize({ width: 400, height: 760 });
    await page.getByRole('button', { name: 'Open menu' }).click();
    await shot(page, '15a-narrow-menu');
    await page.getByRole('link', { name: 'posts' }).click();
    await page.locator('.records tbody tr').first().waitFor();
    await shot(page, '15-narrow-records');
  });
});
