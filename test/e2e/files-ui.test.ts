// File fields in the admin UI, in Chromium against a real server: the field's options in the
// collection editor, uploading by picking and by dropping, previews and thumbnails in the record panel
// and the records table, reordering and removing files. Screenshots at 800×600 and 1920×1080.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
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

const pngOf = (color: string) => sharp({ create: { width: 240, height: 160, channels: 3, background: color } }).png().toBuffer();

beforeAll(async () => {
  app = await startApp(await buildRenderer());
  await fetch(`${app.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: (await app.setupToken()), email: EMAIL, password: PASSWORD }) });
  token = ((await (await fetch(`${app.url}/api/collections/_superusers/auth-with-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: EMAIL, password: PASSWORD }) })).json()) as { token: string }).token;
  expect((await api('POST', '/collections', { name: 'gallery', fields: [{ name: 'title', type: 'text' }], listRule: '', viewRule: '' })).status).toBe(200);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  page.setDefaultTimeout(8000);
});

/** Waits until `selector` matches `n` elements. */
async function count(selector: string, n: number): Promise<void> {
  await page.waitForFunction(([sel, want]) => document.querySelectorAll(sel as string).length === want, [selector, n] as const);
}

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') await shot(page, `failed-files-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('file fields in the admin UI', () => {
  it('signs in', async () => {
    await page.goto(`${app.url}/_/#/login`);
    await page.fill('#login-email', EMAIL);
    await page.fill('#login-password', PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.getByText('New collection').first().waitFor();
  });

  it('sets a file field\'s options in the collection editor', async () => {
    await page.goto(`${app.url}/_/#/collections/gallery/settings`);
    await page.getByRole('button', { name: 'New field' }).click();
    await page.getByRole('menuitem', { name: /^File:/ }).click();
    await page.locator('.field-name input:focus').fill('photos');
    const row = page.locator('.field-row[data-field="photos"]');
    await row.locator('input[id$="-maxSelect"]').fill('4');
    await row.locator('input[id$="-thumbs"]').fill('80x80, 0x120');
    await shot(page, 'files-01-field-options-1920');
    await page.getByRole('button', { name: /^Save/ }).click();
    // The page has taken the answer (its draft is no longer unsaved) once it says so: only then may
    // the next step navigate away without the unsaved-changes guard holding it.
    await page.getByRole('status').getByText('Changes saved.').waitFor();
    for (let i = 0; i < 50; i++) {
      const c = await api('GET', '/collections/gallery');
      const f = (c.body.fields as { name: string; type: string; maxSelect: number; thumbs: string[] }[]).find((x) => x.name === 'photos');
      if (f) {
        expect(f).toMatchObject({ type: 'file', maxSelect: 4, thumbs: ['80x80', '0x120'] });
        return;
      }
      await page.waitForTimeout(100);
    }
    throw new Error('the field was not saved');
  });

  it('uploads by picking and by dropping, shows previews, reorders and removes, and shows thumbnails in the table', async () => {
    await page.goto(`${app.url}/_/#/collections/gallery`);
    await page.getByText('No records yet.').waitFor();
    await page.getByRole('button', { name: 'New record' }).click();
    await page.locator('#rf-title').first().fill('Sunset');
    const picker = page.locator('.file-input input[type="file"]');
    await picker.setInputFiles([{ name: 'red.png', mimeType: 'image/png', buffer: await pngOf('#d33') }, { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') }]);
    // a drop: a DataTransfer with a file, dispatched on the drop zone
    const blue = (await pngOf('#36c')).toString('base64');
    const dt = await page.evaluateHandle((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'blue.png', { type: 'image/png' }));
      return transfer;
    }, blue);
    await page.locator('.file-input').dispatchEvent('drop', { dataTransfer: dt });
    await count('.file-item', 3);
    await page.getByRole('button', { name: 'Move down' }).first().click();
    expect(await page.locator('.file-item .file-name').first().textContent()).toContain('notes.txt');
    await page.getByRole('button', { name: 'Remove notes.txt' }).click();
    await count('.file-item', 2);
    await shot(page, 'files-02-new-record-1920');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('.panel').waitFor({ state: 'detached' });
    const list = await api('GET', '/collections/gallery/records');
    const rec = (list.body.items as { id: string; photos: string[] }[])[0];
    expect(rec.photos).toHaveLength(2);
    expect(rec.photos[0]).toMatch(/^red_[a-z0-9]{10}\.png$/);
    expect(rec.photos[1]).toMatch(/^blue_[a-z0-9]{10}\.png$/);
    await count('img.cell-thumb', 2);
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('img.cell-thumb')].every((i) => i.complete && i.naturalWidth === 100));
    await shot(page, 'files-03-table-1920');
    await page.getByRole('row', { name: `Record ${rec.id}` }).click();
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('img.file-thumb')].length === 2 && [...document.querySelectorAll<HTMLImageElement>('img.file-thumb')].every((i) => i.complete && i.naturalWidth > 0));
    await page.getByRole('button', { name: `Remove ${rec.photos[0]}` }).click();
    await page.getByRole('button', { name: 'Save changes', exact: true }).click();
    await page.locator('.panel').waitFor({ state: 'detached' });
    const after = await api('GET', `/collections/gallery/records/${rec.id}`);
    expect(after.body.photos).toEqual([rec.photos[1]]);
  });

  it('restores a backup zip picked on the Backup page, after a confirmation', async () => {
    const archive = Buffer.from(await (await fetch(`${app.url}/api/backup`, { headers: { authorization: token } })).arrayBuffer());
    const before = (await api('GET', '/collections/gallery/records')).body.items as { id: string }[];
    await api('DELETE', `/collections/gallery/records/${before[0].id}`);
    await page.goto(`${app.url}/_/#/data`);
    await page.locator('input[aria-label="Backup zip to restore"]').setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: archive });
    await page.getByRole('alertdialog', { name: 'Confirm restore' }).waitFor();
    await shot(page, 'files-06-restore-confirm-1920');
    await page.getByRole('button', { name: 'Replace all data' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored backup.zip' }).waitFor();
    await shot(page, 'files-07-restored-1920');
    // the archive's sessions are the superuser's of the time it was taken, this one included
    const after = (await api('GET', '/collections/gallery/records')).body.items as { id: string }[];
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
  });

  it('fits a small window', async () => {
    await page.setViewportSize({ width: 800, height: 600 });
    await page.goto(`${app.url}/_/#/collections/gallery`);
    await page.locator('img.cell-thumb').first().waitFor();
    await shot(page, 'files-04-table-800');
    await page.locator('tbody tr').first().click({ force: true });
    await page.locator('.file-input').waitFor();
    await shot(page, 'files-05-record-800');
    const box = await page.locator('.file-input').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(800);
    await page.goto(`${app.url}/_/#/data`);
    await page.getByText('Restore from a backup').waitFor();
    await shot(page, 'files-08-backup-800');
  });
});
