// The Crons list in Chromium against a real server running a pb_hooks folder with a cronAdd() job: the
// job listed with its schedule (GET /api/crons), "Run now" (POST /api/crons/{id}) running it at once.
// The endpoints and the cron runtime are the hooks' (server/http/routes/crons.ts, server/hooks/): until
// they are on this branch the file has nothing to run against and skips itself.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildRenderer, launchBrowser, ROOT, shot } from './helpers.js';
import { createSeeder, type Seeder } from './api-seed.js';
import type { RunningServer, ServerOptions } from '../../server/index.js';

const HAS_CRONS = existsSync(join(ROOT, 'server/http/routes/crons.ts'));

describe.runIf(HAS_CRONS)('the Crons list', () => {
  let root: string;
  let server: RunningServer;
  let browser: Browser;
  let seeder: Seeder;
  let page: Page;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'deskbase-crons-'));
    await mkdir(join(root, 'pb_hooks'));
    await writeFile(join(root, 'pb_hooks', 'jobs.pb.js'), [
      'cronAdd("tick", "*/30 * * * *", () => {',
      '  const c = $app.findCollectionByNameOrId("ticks");',
      '  $app.save(new Record(c, { note: "ran" }));',
      '});',
      'cronAdd("nightly-report", "0 3 * * *", () => {});',
    ].join('\n'));
    const { startServer } = await import('../../server/index.js');
    const options = { dir: join(root, 'data'), port: 0, uiDir: await buildRenderer(), log: () => undefined, hooksDir: join(root, 'pb_hooks') } as ServerOptions;
    server = await startServer(options);
    seeder = await createSeeder({ url: server.url, setupToken: () => server.setupToken(), subscribers: () => 0, close: async () => {} });
    await seeder.call('POST', '/collections', { name: 'ticks', type: 'base', fields: [{ name: 'note', type: 'text' }] });
    browser = await launchBrowser();
    page = await seeder.open(browser, '#/crons', { width: 1280, height: 800 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists the jobs with their schedules', async () => {
    await page.getByRole('heading', { name: 'Crons' }).waitFor();
    const tick = page.locator('.crons-table tbody tr', { hasText: 'tick' });
    await tick.waitFor();
    expect(await tick.locator('td').nth(1).textContent()).toBe('*/30 * * * *');
    expect(await page.locator('.crons-table tbody tr', { hasText: 'nightly-report' }).locator('td').nth(1).textContent()).toBe('0 3 * * *');
    await shot(page, 'crons-wide');
  });

  it('runs a job now', async () => {
    await page.getByRole('button', { name: 'Run tick now' }).click();
    await page.getByText('Started “tick”.').waitFor();
    await expect.poll(async () => (await seeder.call<{ totalItems: number }>('GET', '/collections/ticks/records')).totalItems, { timeout: 10_000 }).toBe(1);
  });

  it('fits a phone-sized window', async () => {
    const narrow = await seeder.open(browser, '#/crons', { width: 390, height: 844 });
    await narrow.locator('.crons-table tbody tr').first().waitFor();
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(narrow, 'crons-narrow');
    await narrow.context().close();
  });
});
