// How long 500 rows take to show in Chromium, logged (not asserted: timings on a shared machine are
// noise; the figure goes to the README). Seeds a collection with every common field type and a
// relation, then switches the page size to 500 and times from the change to the painted rows, minus
// the server's share (the request's resource timing).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserSuite, shot } from './helpers.js';
import type { Seeder } from './api-seed.js';

const suite = browserSuite({ shots: 'render-failed' });
let browser: Browser;
let seeder: Seeder;

beforeAll(async () => {
  ({ browser, seeder } = suite);
  const authors = await seeder.call<{ id: string }>('POST', '/collections', {
    name: 'authors',
    fields: [{ name: 'name', type: 'text', presentable: true }],
  });
  await seeder.call('POST', '/collections', {
    name: 'posts',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'views', type: 'number' },
      { name: 'published', type: 'bool' },
      { name: 'tags', type: 'select', values: ['eco', 'tech', 'art'], maxSelect: 3 },
      { name: 'author', type: 'relation', collectionId: authors.id, maxSelect: 1 },
      { name: 'meta', type: 'json' },
      { name: 'when', type: 'date' },
      { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
    ],
  });
  const people = await seeder.seed('authors', 5, (i) => ({ name: `Author ${i}` }));
  await seeder.seed('posts', 520, (i) => ({
    title: `Post number ${i} with a title long enough to be cut`,
    views: i * 37,
    published: i % 2 === 0,
    tags: ['eco', 'tech', 'art'].slice(0, i % 4),
    author: people[i % 5].id,
    meta: { n: i, tags: ['a', 'b'] },
    when: '2025-03-04T05:06:07.000Z',
  }));
});

describe('records grid at 500 rows', () => {
  it('renders 500 rows and logs how long the browser took', async () => {
    const page = await seeder.open(browser, '#/collections/posts', { width: 1920, height: 1080 });
    await page.locator('.records tbody tr').nth(29).waitFor();
    const runs: Array<{ total: number; server: number; render: number }> = [];
    for (const size of ['500', '30', '500', '30', '500']) {
      const t = await page.evaluate(async (value) => {
        performance.clearResourceTimings();
        const select = document.querySelector<HTMLSelectElement>('.pager-size select');
        if (!select) throw new Error('no page size select');
        const want = Number(value);
        const start = performance.now();
        select.value = value;
        select.dispatchEvent(new Event('change', { bubbles: true }));
        // The table's row count changes in the same update as its rows (the grid may window them).
        await new Promise<void>((resolve) => {
          const check = () => (document.querySelector('.records table')?.getAttribute('aria-rowcount') === String(want + 1) ? resolve() : requestAnimationFrame(check));
          check();
        });
        // The frame after the rows arrive is the one that paints them.
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
        const end = performance.now();
        const entry = performance.getEntriesByType('resource').find((e) => e.name.includes(`perPage=${value}`)) as PerformanceResourceTiming | undefined;
        const answered = entry ? entry.responseEnd : start;
        return { total: end - start, server: answered - start, render: end - answered };
      }, size);
      if (size === '500') runs.push(t);
    }
    // Windowed: the rows in view are in the page, not all 500; the last record is there once scrolled to.
    const inDom = await page.locator('.records tbody tr[data-id]').count();
    expect(inDom).toBeGreaterThan(10);
    expect(inDom).toBeLessThan(120);
    await expect(page.locator('.records table').getAttribute('aria-rowcount')).resolves.toBe('501');
    await page.locator('.records tbody tr[data-id]').first().focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-rowindex'))).toBe('501');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-rowindex'))).toBe('500');
    const fmt = (n: number) => `${Math.round(n)} ms`;
    console.log(`[grid-render] 500 rows: ${runs.map((r) => `total ${fmt(r.total)} (server ${fmt(r.server)}, render ${fmt(r.render)})`).join('; ')}`);
    await shot(page, 'grid-500-rows-wide');
    await page.context().close();
  });
});
