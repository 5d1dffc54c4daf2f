// The page cache does not hold the database a second time (issue 28, RSS at 100k posts). The database
// lives whole in sql.js's in-memory file; SQLite's page cache, in sql.js's WebAssembly memory (which
// never shrinks), copies every page it reads. Sized at 128 MiB it kept a full scan of a large table for
// good: +88 MB of RSS at the bench's 100k posts (an 86 MB file). Here a data folder of 60,000 rows
// (about 60 MB) is made by one server, then opened by a fresh one (no import left to collect); scans of
// the whole table, again and again, make its RSS grow by less than the page cache's 16 MiB and a
// margin, where the whole table cached would be about 60 MB.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';

const MB = 1024 * 1024;
const ROWS = 60_000;
/** The page cache's 16 MiB, V8's young generation growing, a few answers: far from the table's 60 MB. */
const SCAN_GROWTH_MB = 32;

const dir = mkdtempSync(join(tmpdir(), 'deskbase-page-cache-'));
let child: Child | null = null;
afterAll(async () => {
  await child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const text = (i: number, length: number) => `row ${i} `.padEnd(length, 'lorem ipsum dolor sit amet ');

async function start(script: string): Promise<{ child: Child; url: string }> {
  child = runChild(script, [dir, String(64 * MB)]);
  return { child, url: (await child.line((l) => l.startsWith('url '))).slice(4) };
}

describe('memory of a large table', () => {
  it(`full scans of ${ROWS.toLocaleString('en')} rows (about 60 MB) leave RSS less than ${SCAN_GROWTH_MB} MB higher`, async () => {
    const script = await bundle('test/fixtures/hardening-server.ts');
    const first = await start(script);
    const su = await setupSuperuser(first.url, (await first.child.line((l) => l.startsWith('setup '))).slice(6));
    const r = await http(first.url, 'POST', '/api/collections', {
      token: su, body: { name: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'body', type: 'text' }], listRule: '' },
    });
    expect(r.status, r.text).toBe(200);
    const body = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ title: `post ${i}`, body: text(i, 1000) })).join('\n');
    const imported = await http(first.url, 'POST', '/api/collections/posts/records/import?format=ndjson', { token: su, raw: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    first.child.proc.kill('SIGTERM');
    await first.child.exited;

    const { child: server, url } = await start(script);
    const pid = server.proc.pid!;
    const list = (query: string) => http(url, 'GET', `/api/collections/posts/records?perPage=30&${query}`);
    // warm-up: the list path, its statements and answers, on pages of the `created` index
    for (let i = 0; i < 20; i++) expect((await list(`page=${1 + i}`)).status).toBe(200);
    const before = rssMb(pid);
    // each reads every page of the table: an unindexed `~` filter (with its total) and a sort on an
    // unindexed field (the rows' long bodies share their pages)
    for (let i = 0; i < 4; i++) {
      const filtered = await list(`filter=${encodeURIComponent(`title ~ "${i}5"`)}`);
      expect(filtered.status, filtered.text).toBe(200);
      expect(filtered.body.totalItems).toBeGreaterThan(0);
      const sorted = await list(`sort=${i % 2 === 0 ? '-' : ''}title&skipTotal=1`);
      expect(sorted.status, sorted.text).toBe(200);
      expect(sorted.body.items).toHaveLength(30);
    }
    const growth = rssMb(pid) - before;
    console.log(`page-cache-memory: RSS ${before.toFixed(0)} MB after start and warm-up, +${growth.toFixed(1)} MB after the scans`);
    expect(growth).toBeLessThan(SCAN_GROWTH_MB);
  }, 180_000);
});
