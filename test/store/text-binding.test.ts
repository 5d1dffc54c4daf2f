// Long texts are bound without sql.js's character loop (store/text-binding.ts): SQLite receives the very
// same bytes as through sql.js, other parameters of the statement keep their values, and a text with a
// lone surrogate stays on sql.js's path. A real sql.js database.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { queryGet, runStatement, StatementCache } from '../../server/store/statements.js';
import { LARGE_TEXT, textBinder } from '../../server/store/text-binding.js';

describe('binding long texts natively', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  const fast = new StatementCache(db, textBinder(SQL, db));
  const plain = new StatementCache(db);
  db.run('CREATE TABLE t (k TEXT, a TEXT, n NUMERIC)');

  it('finds sql.js statement pointers in this build', () => {
    expect(textBinder(SQL, db)).not.toBeNull();
  });

  const texts: [string, string][] = [
    ['ascii', 'x'.repeat(LARGE_TEXT + 5)],
    ['multibyte and astral', 'é€😀'.repeat(30_000)],
    ['a lone surrogate', `${'y'.repeat(LARGE_TEXT)}\uD800z`],
  ];

  it.each(texts)('%s: the same bytes as sql.js binds, beside short parameters', (_name, text) => {
    runStatement(fast, 'INSERT INTO t VALUES (?, ?, ?)', ['fast', text, 42]);
    runStatement(plain, 'INSERT INTO t VALUES (?, ?, ?)', ['plain', text, 42]);
    const a = queryGet<{ h: string; n: number; len: number }>(plain, "SELECT hex(a) AS h, n, length(a) AS len FROM t WHERE k = 'fast'");
    const b = queryGet<{ h: string; n: number; len: number }>(plain, "SELECT hex(a) AS h, n, length(a) AS len FROM t WHERE k = 'plain'");
    expect(a).toEqual(b);
    expect(queryGet<{ a: string }>(fast, "SELECT a FROM t WHERE k = 'fast'")!.a).toBe(queryGet<{ a: string }>(plain, "SELECT a FROM t WHERE k = 'plain'")!.a);
    // and as a parameter of a read
    expect(queryGet<{ k: string }>(fast, 'SELECT k FROM t WHERE a = ? AND k = ?', [text, 'plain'])?.k).toBe('plain');
    db.run('DELETE FROM t');
  });

  it('is faster than sql.js for a text of 8 MB', () => {
    const text = 'z'.repeat(8_000_000);
    const time = (cache: StatementCache) => {
      const t0 = performance.now();
      queryGet(cache, 'SELECT length(?) AS n', [text]);
      return performance.now() - t0;
    };
    time(fast); time(plain); // warm
    const f = Math.min(time(fast), time(fast), time(fast));
    const p = Math.min(time(plain), time(plain), time(plain));
    console.log(`binding 8 MB: native ${f.toFixed(1)} ms, sql.js ${p.toFixed(1)} ms`);
    expect(f).toBeLessThan(p / 2);
  });
});
