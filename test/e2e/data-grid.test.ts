// The records grid and the defects of issue 16, in Chromium against a real server: each test opens its
// own signed-in page (a fresh context) on data seeded through the API, and takes screenshots narrow
// (800×600) and wide (1920×1080).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { parseCsv } from '../../server/core/transfer/csv.js';
import { browserSuite, shot } from './helpers.js';
import { EMAIL, PASSWORD, type Seeder } from './api-seed.js';

const NARROW = { width: 800, height: 600 };
const WIDE = { width: 1920, height: 1080 };

const suite = browserSuite({ shots: 'grid-failed', pagePerTest: true });
let seeder: Seeder;
let authorIds: string[] = [];

interface Row {
  id: string;
  [k: string]: unknown;
}

beforeAll(async () => {
  ({ seeder } = suite);
  const authors = await seeder.call<{ id: string }>('POST', '/collections', {
    name: 'authors',
    fields: [{ name: 'name', type: 'text', presentable: true }],
    listRule: '',
  });
  await seeder.call('POST', '/collections', {
    name: 'posts',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'views', type: 'number' },
      { name: 'published', type: 'bool' },
      { name: 'tags', type: 'select', values: ['eco', 'tech', 'art', 'food'], maxSelect: 3 },
      { name: 'author', type: 'relation', collectionId: authors.id, maxSelect: 1 },
      { name: 'when', type: 'date' },
      { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
    ],
  });
  authorIds = (await seeder.seed('authors', 3, (i) => ({ name: ['Zed', 'Ada', 'Mia'][i] }))).map((a) => a.id);
  await seeder.seed('posts', 45, (i) => ({
    title: `Post ${String(i).padStart(2, '0')}`,
    views: i * 10,
    published: i % 2 === 0,
    tags: i % 3 === 0 ? ['eco'] : [],
    author: authorIds[i % 3],
    when: '2025-03-04T23:30:00.000Z',
  }));
});

const open = (hash: string, viewport = WIDE, token?: string) => suite.open(hash, viewport, token);
const rows = (p: Page) => p.locator('.records tbody tr[data-id]');
const hash = (p: Page) => p.evaluate(() => decodeURIComponent(location.hash.replace(/\+/g, ' ')));
const toast = (p: Page, text: string | RegExp) => p.locator('.toast', { hasText: text }).last();
const total = async (collection: string) => (await seeder.call<{ totalItems: number }>('GET', `/collections/${collection}/records?perPage=1`)).totalItems;

describe('records grid', () => {
  it('asks before discarding record edits (Esc, backdrop, Cancel) and keeps them on Cancel', async () => {
    const p = await open('#/collections/posts?sort=title', NARROW);
    await rows(p).first().click();
    const title = p.locator('#rf-title');
    await expect(title.inputValue()).resolves.toBe('Post 00');
    await title.fill('Changed title');
    const dialog = p.getByRole('alertdialog');
    for (const close of [() => p.keyboard.press('Escape'), () => p.mouse.click(20, 300), () => p.getByRole('button', { name: 'Cancel', exact: true }).first().click()]) {
      await close();
      await expect(dialog.textContent()).resolves.toContain('Discard your changes?');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(title.inputValue()).resolves.toBe('Changed title');
    }
    await p.keyboard.press('Escape');
    await shot(p, 'grid-01-discard-narrow');
    await dialog.getByRole('button', { name: 'Discard changes' }).click();
    await p.locator('.panel').waitFor({ state: 'detached' });
    const stored = await seeder.call<{ items: Row[] }>('GET', '/collections/posts/records?filter=title="Post 00"');
    expect(stored.items).toHaveLength(1);
    // An untouched panel closes at once.
    await rows(p).first().click();
    await p.keyboard.press('Escape');
    await p.locator('.panel').waitFor({ state: 'detached' });
  });

  it('moves focus into the panel, keeps it there, and gives it back to the row; arrows and Enter drive the grid', async () => {
    const p = await open('#/collections/posts?sort=title');
    await rows(p).first().waitFor();
    await rows(p).first().focus();
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('ArrowDown');
    const third = await rows(p).nth(2).getAttribute('data-id');
    await expect(p.evaluate(() => document.activeElement?.getAttribute('data-id'))).resolves.toBe(third);
    await p.keyboard.press('Enter');
    await p.locator('.panel').waitFor();
    const inPanel = () => p.evaluate(() => !!document.activeElement?.closest('.panel'));
    await expect(inPanel()).resolves.toBe(true);
    for (let i = 0; i < 25; i++) {
      await p.keyboard.press(i % 7 === 6 ? 'Shift+Tab' : 'Tab');
      expect(await inPanel()).toBe(true);
    }
    await shot(p, 'grid-02-panel-focus-wide');
    await p.keyboard.press('Escape');
    await p.locator('.panel').waitFor({ state: 'detached' });
    await expect(p.evaluate(() => document.activeElement?.getAttribute('data-id'))).resolves.toBe(third);
    // Confirm dialogs trap too, and hand focus back to the panel.
    await p.keyboard.press('Enter');
    await p.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(p.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel');
    for (let i = 0; i < 4; i++) await p.keyboard.press('Tab');
    await expect(p.evaluate(() => !!document.activeElement?.closest('.dialog'))).resolves.toBe(true);
    await p.keyboard.press('Escape');
    await expect(inPanel()).resolves.toBe(true);
  });

  it('keeps filter, sort, page and the open record in the URL, across tabs and reloads', async () => {
    const p = await open('#/collections/posts');
    await rows(p).first().waitFor();
    await p.getByLabel('Filter records').fill('views >= 100');
    await p.keyboard.press('Enter');
    await p.getByRole('button', { name: 'views', exact: true }).click();
    await p.getByLabel('Page number').fill('2');
    await p.keyboard.press('Enter');
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe('31–35 of 35');
    await rows(p).first().click();
    await p.locator('.panel').waitFor();
    const url = await hash(p);
    expect(url).toMatch(/filter=views >= 100/);
    expect(url).toMatch(/sort=views/);
    expect(url).toMatch(/page=2/);
    expect(url).toMatch(/record=\w{15}/);
    await p.keyboard.press('Escape');
    // the collection's tabs carry the list's URL along (the sidebar does not: the next test)
    await p.getByRole('navigation', { name: 'Collection views' }).getByRole('link', { name: 'Settings' }).click();
    await p.getByRole('link', { name: 'Records' }).click();
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe('31–35 of 35');
    await expect(p.getByLabel('Filter records').inputValue()).resolves.toBe('views >= 100');
    // A reload keeps everything, the open record included.
    await rows(p).nth(2).click();
    await p.locator('.panel').waitFor();
    const id = await p.locator('.panel .meta code').first().textContent();
    await p.reload();
    await expect.poll(() => p.locator('.panel .meta code').first().textContent()).toBe(id);
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe('31–35 of 35');
    // Back closes the panel it opened.
    await p.goBack();
    await p.locator('.panel').waitFor({ state: 'detached' });
  });

  it('the sidebar opens a collection unfiltered; a filter lives in the URL only (reload, back and forward keep it)', async () => {
    const filtered = (await seeder.call<{ totalItems: number }>('GET', `/collections/posts/records?perPage=1&filter=${encodeURIComponent('views >= 100')}`)).totalItems;
    const all = await total('posts');
    expect(filtered).toBeLessThan(all);
    const range = (n: number) => `1–${Math.min(30, n)} of ${n}`;
    const sidebar = (p: Page, name: string) => p.locator('a.nav-item', { hasText: new RegExp(`^\\s*${name}\\s*$`) });
    const p = await open('#/collections/posts');
    await rows(p).first().waitFor();
    await p.getByLabel('Filter records').fill('views >= 100');
    await p.keyboard.press('Enter');
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe(range(filtered));
    // another collection, then posts again from the sidebar: all of its records, no filter anywhere
    await sidebar(p, 'authors').click();
    await expect.poll(() => hash(p)).toBe('#/collections/authors');
    await sidebar(p, 'posts').click();
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe(range(all));
    expect(await hash(p)).toBe('#/collections/posts');
    await expect(p.getByLabel('Filter records').inputValue()).resolves.toBe('');
    // Back twice: the filtered list, as its URL says; a reload keeps it; Forward twice: unfiltered again
    await p.goBack();
    await expect.poll(() => hash(p)).toBe('#/collections/authors');
    await p.goBack();
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe(range(filtered));
    expect(await hash(p)).toBe('#/collections/posts?filter=views >= 100');
    await expect(p.getByLabel('Filter records').inputValue()).resolves.toBe('views >= 100');
    await p.reload();
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe(range(filtered));
    await expect(p.getByLabel('Filter records').inputValue()).resolves.toBe('views >= 100');
    await p.goForward();
    await p.goForward();
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe(range(all));
    await expect(p.getByLabel('Filter records').inputValue()).resolves.toBe('');
  });

  it('sends a page whose session was revoked elsewhere to sign-in, then back to the same page', async () => {
    const token = await seeder.signIn();
    const p = await open('#/collections/posts?filter=views+%3E+400', WIDE, token);
    await expect.poll(() => rows(p).count()).toBe(4);
    const mine = (await seeder.call<{ id: string }>('GET', '/session', undefined, token)).id;
    await seeder.call('DELETE', `/sessions/${mine}`);
    // The next request answers as for a guest (403 "Only superusers…"): the UI checks the session.
    await p.getByRole('button', { name: 'Refresh' }).click();
    await p.getByRole('heading', { name: 'Superuser sign in' }).waitFor();
    await expect(p.locator('.alert-info').textContent()).resolves.toContain('Your session ended');
    await shot(p, 'grid-03-session-ended-wide');
    await p.fill('#login-email', EMAIL);
    await p.fill('#login-password', PASSWORD);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => rows(p).count()).toBe(4);
    expect(await hash(p)).toBe('#/collections/posts?filter=views > 400');
  });

  it('finds a collection created elsewhere instead of saying "not found"', async () => {
    const p = await open('#/collections/posts');
    await rows(p).first().waitFor();
    await seeder.call('POST', '/collections', { name: 'late_arrival', fields: [{ name: 'note', type: 'text' }] });
    await p.evaluate(() => (location.hash = '#/collections/late_arrival'));
    await p.getByRole('heading', { name: 'late_arrival' }).waitFor();
    await expect(p.getByRole('link', { name: 'late_arrival' }).count()).resolves.toBe(1);
    await p.evaluate(() => (location.hash = '#/collections/never_made'));
    await p.getByText('Collection “never_made” not found.').waitFor();
  });

  it('says why a unique index cannot be built, next to the index and by the Save button', async () => {
    const p = await open('#/collections/posts/settings', NARROW);
    await p.getByRole('button', { name: 'Add index' }).click();
    const index = p.locator('.index-row').last();
    await index.getByRole('button', { name: 'published', exact: true }).click();
    await index.getByLabel('Unique').check();
    await p.getByRole('button', { name: 'Save changes' }).click();
    const words = 'Some records have the same published, so this index cannot be unique.';
    await index.getByText(words).waitFor();
    await expect(p.locator('.save-problem').textContent()).resolves.toContain('cannot be built because some records share the same published');
    await toast(p, 'Not saved: the unique index').waitFor();
    expect(await p.locator('.alert-error').count()).toBe(0);
    await expect(index.isVisible()).resolves.toBe(true);
    await shot(p, 'grid-04-unique-index-error-narrow');
    await p.setViewportSize(WIDE);
    await shot(p, 'grid-04b-unique-index-error-wide');
  });

  it('fits the API preview at 800 px: Copy in view, code lines wrapped', async () => {
    for (const viewport of [NARROW, WIDE]) {
      const p = await open('#/collections/posts/api', viewport);
      await p.locator('.op-item', { hasText: 'Create' }).click();
      const copy = p.getByRole('button', { name: 'Copy' });
      const box = await copy.boundingBox();
      expect(box && box.x + box.width <= viewport.width).toBe(true);
      const code = p.locator('pre.code');
      await expect(code.evaluate((el) => el.scrollWidth <= el.clientWidth)).resolves.toBe(true);
      await expect(p.evaluate(() => document.querySelector('.main')!.scrollWidth <= document.querySelector('.main')!.clientWidth)).resolves.toBe(true);
      await shot(p, `grid-05-api-preview-${viewport.width}`);
      await p.context().close();
      suite.page = undefined;
    }
  });

  it('offers email as the sign-in identity of a new auth collection', async () => {
    const p = await open('#/new-collection', NARROW);
    await p.getByRole('radio', { name: 'Auth' }).click();
    const email = p.getByRole('group', { name: 'Identity fields' }).getByRole('button', { name: 'email' });
    await expect(email.getAttribute('aria-pressed')).resolves.toBe('true');
  });

  it('catches differing passwords before sending, with one message under the confirmation', async () => {
    const p = await open('#/collections/users?record=new', NARROW);
    let posts = 0;
    p.on('request', (r) => r.method() === 'POST' && r.url().includes('/records') && posts++);
    await p.fill('#rf-email', 'mia@example.com');
    await p.fill('#rf-password', 'first-password-1');
    await p.fill('#rf-password-confirm', 'other-password-2');
    await p.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(p.locator('.confirm-error').textContent()).resolves.toBe('The passwords do not match.');
    await expect(p.getByText('The passwords do not match.').count()).resolves.toBe(1);
    await expect(p.evaluate(() => document.activeElement?.id)).resolves.toBe('rf-password-confirm');
    await expect(p.locator('#rf-password').getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(p.locator('#rf-password-confirm').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot(p, 'grid-06-password-mismatch-narrow');
    expect(posts).toBe(0);
    await p.fill('#rf-password-confirm', 'first-password-1');
    await p.getByRole('button', { name: 'Create', exact: true }).click();
    await toast(p, 'Record created.').waitFor();
    expect(posts).toBe(1);
  });

  it('stops a multiple select at its maximum', async () => {
    const p = await open('#/collections/posts?record=new', NARROW);
    const group = p.getByRole('group', { name: 'tags' });
    for (const t of ['eco', 'tech', 'art']) await group.getByRole('button', { name: t }).click();
    await expect(group.getByRole('button', { name: 'food' }).isDisabled()).resolves.toBe(true);
    await expect(group.textContent()).resolves.toContain('3 of at most 3 selected');
  });

  it('fills wide screens with a sticky header, UTC dates and grouped counts; help mentions :each', async () => {
    await seeder.call('POST', '/collections', { name: 'logs', fields: [{ name: 'line', type: 'text' }] });
    await seeder.seed('logs', 1005, (i) => ({ line: `l${i}` }));
    const p = await open('#/collections/logs');
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe('1–30 of 1,005');
    await expect(p.locator('.pager-jump').textContent()).resolves.toContain('of 34');
    await p.evaluate(() => (location.hash = '#/collections/posts'));
    await rows(p).first().waitFor();
    // Edges line up: header, toolbar and table end at the same x, and nothing scrolls sideways.
    const right = async (sel: string) => p.locator(sel).first().evaluate((el) => Math.round(el.getBoundingClientRect().right));
    const tabs = await right('.tabs');
    expect(await right('.toolbar')).toBe(tabs);
    expect(await right('.table-wrap')).toBe(tabs);
    await expect(p.locator('.table-wrap').evaluate((el) => el.scrollWidth <= el.clientWidth)).resolves.toBe(true);
    // The header stays while the rows scroll.
    const th = p.locator('.records thead th').nth(1);
    const before = (await th.boundingBox())?.y;
    await p.locator('.table-wrap').evaluate((el) => el.scrollBy(0, 400));
    await expect.poll(async () => (await th.boundingBox())?.y).toBe(before);
    // Dates in UTC with the zone (the browser runs in Berlin: local time would say 00:30 the next day).
    await expect(p.locator('td[data-type="date"]').first().textContent()).resolves.toBe('2025-03-04 23:30:00 UTC');
    await p.getByRole('button', { name: 'Filter help' }).click();
    await expect(p.locator('.filter-help').textContent()).resolves.toContain(':each');
    await p.locator('.filter-help').getByRole('button', { name: 'tags:each ?= "eco"' }).click();
    await expect.poll(() => p.locator('.pager-range').textContent()).toBe('1–15 of 15');
    await shot(p, 'grid-07-wide');
    await p.setViewportSize(NARROW);
    await shot(p, 'grid-07b-narrow');
  });

  it('selects with Shift ranges, exports CSV and JSON, and deletes the selection', async () => {
    const p = await open('#/collections/posts?sort=title');
    await rows(p).first().waitFor();
    await rows(p).nth(1).locator('td.select-col').click();
    await rows(p).nth(4).locator('td.select-col').click({ modifiers: ['Shift'] });
    await expect(p.locator('.bulk-bar').textContent()).resolves.toContain('4 records selected');
    await expect(rows(p).nth(0).getAttribute('aria-selected')).resolves.toBe('false');
    await expect(rows(p).nth(3).getAttribute('aria-selected')).resolves.toBe('true');
    // Space on a focused row toggles it too.
    await rows(p).nth(0).focus();
    await p.keyboard.press(' ');
    await expect(p.locator('.bulk-bar').textContent()).resolves.toContain('5 records selected');
    await shot(p, 'grid-08-bulk-wide');

    // The selected rows' ids, from the table itself; the collection holds more records than these.
    const picked = await p.locator('.records tbody tr[data-id][aria-selected="true"]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id') ?? ''));
    expect(picked).toHaveLength(5);
    expect(await total('posts')).toBeGreaterThan(5);
    // Both exports are the server's export narrowed to the selection's ids.
    const exports: string[] = [];
    p.on('request', (r) => r.url().includes('/records/export') && exports.push(new URL(r.url()).searchParams.get('ids') ?? ''));

    const csvDownload = p.waitForEvent('download');
    await p.getByRole('button', { name: 'Export CSV' }).click();
    const csv = (await readFile(await (await csvDownload).path())).toString('utf8');
    const table = [...parseCsv(csv)];
    expect(table[0]).toEqual(['id', 'title', 'views', 'published', 'tags', 'author', 'when', 'created']);
    expect(table.slice(1).map((r) => r[0]).sort()).toEqual([...picked].sort());
    expect(table.slice(1).map((r) => r[1]).sort()).toEqual(['Post 00', 'Post 01', 'Post 02', 'Post 03', 'Post 04']);
    const jsonDownload = p.waitForEvent('download');
    await p.getByRole('button', { name: 'Export JSON' }).click();
    const json = JSON.parse((await readFile(await (await jsonDownload).path())).toString('utf8')) as Row[];
    expect(json.map((r) => r.id).sort()).toEqual([...picked].sort());
    expect(json.map((r) => r.title).sort()).toEqual(['Post 00', 'Post 01', 'Post 02', 'Post 03', 'Post 04']);
    expect(json[0]).not.toHaveProperty('expand');
    expect(exports.map((ids) => ids.split(',').sort())).toEqual([[...picked].sort(), [...picked].sort()]);

    const before = await total('posts');
    const writes: string[] = [];
    p.on('request', (r) => r.method() !== 'GET' && writes.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await p.getByRole('button', { name: 'Delete selected' }).click();
    await p.getByRole('button', { name: 'Delete 5 records' }).click();
    await toast(p, 'Deleted 5 records.').waitFor();
    expect(await total('posts')).toBe(before - 5);
    // One batch request, not one DELETE per record.
    expect(writes.filter((w) => !w.endsWith('/api/realtime'))).toEqual(['POST /api/batch']);
    await expect.poll(() => p.locator('.bulk-bar').count()).toBe(0);
    // The list reloads after the deletes.
    await expect.poll(() => rows(p).first().locator('td').nth(2).textContent()).toBe('Post 05');
  });

  it('bulk delete: a record a selected record cascades to counts as deleted; a refused one is named', async () => {
    const nodes = await seeder.call<{ id: string; fields: unknown[] }>('POST', '/collections', { name: 'nodes', fields: [{ name: 'name', type: 'text' }] });
    await seeder.call('PATCH', `/collections/${nodes.id}`, {
      fields: [...nodes.fields, { name: 'parent', type: 'relation', collectionId: nodes.id, maxSelect: 1, cascadeDelete: true }],
    });
    await seeder.call('POST', '/collections', { name: 'pins', fields: [{ name: 'node', type: 'relation', collectionId: nodes.id, maxSelect: 1, required: true }] });
    const root = await seeder.call<{ id: string }>('POST', '/collections/nodes/records', { name: 'a root' });
    await seeder.call('POST', '/collections/nodes/records', { name: 'b child', parent: root.id });
    const pinned = await seeder.call<{ id: string }>('POST', '/collections/nodes/records', { name: 'c pinned' });
    await seeder.call('POST', '/collections/pins/records', { node: pinned.id });

    const p = await open('#/collections/nodes?sort=name', NARROW);
    await expect.poll(() => rows(p).count()).toBe(3);
    // The root first: its delete takes the child with it, so the child's own delete finds nothing.
    await rows(p).nth(0).locator('td.select-col').click();
    await rows(p).nth(1).locator('td.select-col').click();
    await p.getByRole('button', { name: 'Delete selected' }).click();
    await p.getByRole('button', { name: 'Delete 2 records' }).click();
    await toast(p, 'Deleted 2 records.').waitFor();
    await expect.poll(() => rows(p).count()).toBe(1);
    expect(await total('nodes')).toBe(1);

    await rows(p).nth(0).locator('td.select-col').click();
    await p.getByRole('button', { name: 'Delete selected' }).click();
    await p.getByRole('button', { name: 'Delete 1 record' }).click();
    await expect(p.locator('.records .alert-error').textContent()).resolves.toBe(
      `Record ${pinned.id} could not be deleted: Failed to delete record. Make sure that the record is not part of a required relation reference.`,
    );
    expect(await total('nodes')).toBe(1);
    await shot(p, 'grid-08b-bulk-refused-narrow');
  });

  it('remembers the columns picked per collection, sorts relations by their label, and jumps to a page', async () => {
    const p = await open('#/collections/posts', NARROW);
    await rows(p).first().waitFor();
    await p.getByRole('button', { name: 'Columns' }).click();
    await p.getByRole('group', { name: 'Visible columns' }).getByLabel('views').uncheck();
    await p.getByRole('group', { name: 'Visible columns' }).getByLabel('id').uncheck();
    await shot(p, 'grid-09-columns-narrow');
    await p.keyboard.press('Escape');
    await p.reload();
    await rows(p).first().waitFor();
    const heads = () => p.locator('.records thead').textContent();
    await expect(heads()).resolves.not.toContain('views');
    await expect(heads()).resolves.toContain('title');
    // Another collection keeps its own columns.
    await p.evaluate(() => (location.hash = '#/collections/authors'));
    await expect.poll(heads).toContain('id');

    await p.evaluate(() => (location.hash = '#/collections/posts'));
    await p.getByRole('button', { name: 'author', exact: true }).click();
    await expect.poll(() => hash(p)).toContain('sort=author.name');
    await expect.poll(() => rows(p).first().locator('.chip-rel').textContent()).toBe('Ada');
    await p.getByRole('button', { name: 'author', exact: true }).click();
    await expect.poll(() => rows(p).first().locator('.chip-rel').textContent()).toBe('Zed');

    await p.getByLabel('Page number').fill('9');
    await p.keyboard.press('Enter');
    // Past the last page: the last one.
    await expect.poll(() => p.getByLabel('Page number').inputValue()).toBe('2');
    await expect.poll(() => hash(p)).toContain('page=2');
  });

  it('completes field names, relation paths and @request in the filter box and the rules editor', async () => {
    const p = await open('#/collections/posts');
    await rows(p).first().waitFor();
    const filter = p.getByLabel('Filter records');
    await filter.click();
    await p.keyboard.type('auth');
    const list = p.getByRole('listbox', { name: 'Suggestions' });
    await expect(list.getByRole('option').first().textContent()).resolves.toContain('author');
    await p.keyboard.press('Tab');
    await expect(filter.inputValue()).resolves.toBe('author ');
    await p.keyboard.press('Backspace');
    await p.keyboard.type('.');
    await expect(list.textContent()).resolves.toContain('name');
    await shot(p, 'grid-10-autocomplete-wide');
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('Enter');
    await expect(filter.inputValue()).resolves.toMatch(/^author\.\w+ $/);
    // Escape closes the list first; Enter (nothing picked) applies the filter.
    await p.keyboard.press('Escape');
    await expect(list.count()).resolves.toBe(0);

    await p.getByRole('navigation', { name: 'Collection views' }).getByRole('link', { name: 'Settings' }).click();
    const rule = p.locator('.rule', { has: p.locator('label', { hasText: 'List / search' }) });
    await rule.getByRole('button', { name: 'Locked' }).click();
    const box = p.locator('#rule-listRule');
    await box.click();
    await p.keyboard.type('@request.a');
    await expect(list.textContent()).resolves.toContain('auth.');
    await p.keyboard.press('Tab');
    await expect(box.inputValue()).resolves.toBe('@request.auth.');
    await expect(list.textContent()).resolves.toContain('verified');
    await expect(list.textContent()).resolves.toContain('collectionName');
    await p.keyboard.type('ver');
    await p.keyboard.press('Tab');
    await p.keyboard.type('= true');
    await expect(box.inputValue()).resolves.toBe('@request.auth.verified = true');
  });

  it("lets a superuser see and revoke a user's sessions from the user's record", async () => {
    const user = await seeder.call<{ id: string }>('POST', '/collections/users/records', { email: 'kim@example.com', password: 'kim-password-1', passwordConfirm: 'kim-password-1' });
    const phone = await seeder.signIn('users', 'kim@example.com', 'kim-password-1', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1');
    await seeder.signIn('users', 'kim@example.com', 'kim-password-1', 'curl/8.5.0');
    const p = await open(`#/collections/users?record=${user.id}`, NARROW);
    const section = p.locator('.record-sessions');
    await expect.poll(() => section.locator('li').count()).toBe(2);
    await section.scrollIntoViewIfNeeded();
    await shot(p, 'grid-11-user-sessions-narrow');
    await section.locator('li', { hasText: /iPhone|Safari/ }).getByRole('button', { name: /Revoke/ }).click();
    await toast(p, 'Session revoked.').waitFor();
    await expect.poll(() => section.locator('li').count()).toBe(1);
    expect(await seeder.call('GET', '/session', undefined, phone)).toBeNull();
  });
});
