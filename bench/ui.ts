// The admin UI's page timings (issue 23's measure, a speed target: here, not in the browser tests):
// in Debian's Chromium through playwright-core, against a server in this process on a fresh data
// folder (the product's defaults) serving the admin UI built for the run, with a 5,000-record
// collection. Three times, each in a fresh browser context (a cold cache, as a new window): sign-in
// (the form's button) to the first collection's first rows, and from another collection's page, the
// 5,000-record collection opened to its first rows and its pager's count. The medians are the figures.
// Skipped, and said so, when Chromium is not installed (`apt-get install chromium`; CHROMIUM_PATH).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startServer } from '../server/index.js';
import { createSeeder, EMAIL, PASSWORD } from '../test/e2e/api-seed.js';
import { buildAdminUi } from '../test/support/build-ui.js';
import { CHROMIUM_PATH, launchBrowser } from '../test/support/chromium.js';
import { table } from './report.js';

/** Issue 23's aim for both timings (the median of three). */
export const UI_TARGET_MS = 3000;
const BIG = 5000;
const RUNS = 3;

export interface UiFigures {
  /** Why nothing was measured (no Chromium), or null. */
  skipped: string | null;
  /** Sign-in to the first rows, each run, ms. */
  signInMs: number[];
  /** The 5,000-record collection opened from another page to its rows and count, each run, ms. */
  openBigMs: number[];
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};

const rows = (p: Page) => p.locator('.records tbody tr[data-id]');

export async function runUiBench(dir: string, log: (line: string) => void): Promise<UiFigures> {
  if (!existsSync(CHROMIUM_PATH)) {
    const skipped = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
    log(`skipped: ${skipped}`);
    return { skipped, signInMs: [], openBigMs: [] };
  }
  const uiDir = await buildAdminUi();
  const server = await startServer({ dir: join(dir, 'ui-data'), port: 0, uiDir, log: () => undefined });
  const browser = await launchBrowser();
  try {
    const seeder = await createSeeder({ url: server.url, setupToken: () => server.setupToken(), subscribers: () => 0, close: async () => undefined });
    await seeder.call('POST', '/collections', { name: 'posts', fields: [{ name: 'title', type: 'text' }] });
    await seeder.seed('posts', 30, (i) => ({ title: `Post ${i}` }));
    await seeder.call('POST', '/collections', { name: 'big', fields: [{ name: 'title', type: 'text' }, { name: 'n', type: 'number' }, { name: 'created', type: 'autodate', onCreate: true, onUpdate: false }] });
    for (let b = 0; b < BIG / 50; b++) {
      await seeder.call('POST', '/batch', { requests: Array.from({ length: 50 }, (_, i) => ({ method: 'POST', url: '/api/collections/big/records', body: { title: `Row ${b * 50 + i}`, n: b * 50 + i } })) });
    }
    const signInMs: number[] = [];
    const openBigMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
      try {
        const p = await context.newPage();
        p.setDefaultTimeout(30_000);
        await p.goto(`${server.url}/_/#/login`);
        await p.locator('#login-email').fill(EMAIL);
        await p.locator('#login-password').fill(PASSWORD);
        const t0 = performance.now();
        await p.getByRole('button', { name: 'Sign in' }).click();
        await rows(p).first().waitFor(); // the first collection in the sidebar: "big"
        signInMs.push(performance.now() - t0);
        await p.locator('.sidebar a', { hasText: 'posts' }).click();
        await p.waitForFunction(() => location.hash === '#/collections/posts');
        await rows(p).first().waitFor();
        const t1 = performance.now();
        await p.locator('.sidebar a', { hasText: 'big' }).click();
        await p.locator('.pager-range', { hasText: /of 5,000$/ }).waitFor();
        await rows(p).first().waitFor();
        openBigMs.push(performance.now() - t1);
      } finally {
        await context.close();
      }
    }
    log(`sign-in to first rows ${signInMs.map((x) => x.toFixed(0)).join(', ')} ms; ${BIG.toLocaleString('en')}-record collection ${openBigMs.map((x) => x.toFixed(0)).join(', ')} ms`);
    return { skipped: null, signInMs, openBigMs };
  } finally {
    await browser.close();
    await server.close();
    await rm(uiDir, { recursive: true, force: true });
  }
}

export function uiTable(f: UiFigures): string[] {
  if (f.skipped !== null) return [`admin UI timings: skipped (${f.skipped})`];
  const row = (label: string, xs: number[]) => [label, median(xs).toFixed(0), xs.map((x) => x.toFixed(0)).join(', ')];
  return table([
    [`admin UI in Chromium (fresh context each run, ${RUNS} runs)`, 'median ms', 'runs ms'],
    row('sign-in to the first rows', f.signInMs),
    row(`a ${BIG.toLocaleString('en')}-record collection opened to its rows and count`, f.openBigMs),
  ]);
}

// `npx tsx bench/ui.ts`: this phase alone (npm run bench runs it as its phase 7)
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-bench-ui-'));
  try {
    console.log(uiTable(await runUiBench(dir, (line) => console.log(`  ${line}`))).join('\n'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
