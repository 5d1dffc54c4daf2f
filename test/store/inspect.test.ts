// A restore's candidate database (store/restore.ts `inspectDatabase`): SQLite's quick_check, which reads
// every page, runs on a worker thread, so the event loop keeps turning while a large archive is checked;
// a damaged file is still refused, naming what is wrong, and a healthy one opens for reading.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { inspectDatabase } from '../../server/store/restore.js';

async function candidate(rows: number): Promise<Buffer> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  for (const table of ['_collections', '_sessions', '_params']) db.run(`CREATE TABLE ${table} (id TEXT PRIMARY KEY)`);
  db.run('CREATE TABLE posts (id INTEGER PRIMARY KEY, body TEXT)');
  db.run('CREATE INDEX posts_body ON posts (body)');
  db.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows}) INSERT INTO posts (body) SELECT hex(randomblob(400)) FROM n`);
  const bytes = Buffer.from(db.export());
  db.close();
  return bytes;
}

/** The longest the event loop went without a turn while `work` ran (a timer asked every 2 ms). */
async function longestGap<T>(work: () => Promise<T>): Promise<{ result: T; gapMs: number }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 2);
  try {
    const result = await work();
    return { result, gapMs: Math.max(gap, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

describe('inspectDatabase', () => {
  it('checks a large candidate off the event loop, then opens it for reading', async () => {
    const bytes = await candidate(120_000); // about 110 MB with its index
    const SQL = await loadSqlJs();
    // what the check costs the thread that runs it
    const alone = new SQL.Database(bytes);
    const t0 = performance.now();
    expect(alone.exec('PRAGMA quick_check')[0].values).toEqual([['ok']]);
    const checkMs = performance.now() - t0;
    alone.close();

    const { result: db, gapMs } = await longestGap(() => inspectDatabase(SQL, bytes));
    try {
      expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM posts'))?.n).toBe(120_000);
    } finally {
      db.close();
    }
    expect(gapMs, `the loop waited ${gapMs.toFixed(0)} ms; the check alone takes ${checkMs.toFixed(0)} ms`).toBeLessThan(checkMs * 0.6);
  });

  it('refuses a damaged candidate, naming it', async () => {
    const bytes = await candidate(2000);
    // a page in the middle overwritten: the b-tree no longer holds together
    bytes.fill(0x5a, 8 * 4096 + 100, 8 * 4096 + 3000);
    const SQL = await loadSqlJs();
    await expect(inspectDatabase(SQL, bytes)).rejects.toThrow(/data\.db in the archive is damaged|malformed/);
  });

  it('refuses a file that is no SQLite database', async () => {
    const SQL = await loadSqlJs();
    await expect(inspectDatabase(SQL, Buffer.from('not a database at all, just text'.repeat(200)))).rejects.toThrow(/data\.db in the archive/);
  });
});
