// Texts of a few dozen characters and more are bound without sql.js's character loop
// (store/text-binding.ts): SQLite receives the very same bytes as through sql.js, other parameters of the
// statement keep their values (several such texts in one statement among them), and a text with a lone
// surrogate stays on sql.js's path. A real sql.js database.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { queryGet, runStatement, StatementCache } from '../../server/store/statements.js';
import { bindsNatively, LARGE_TEXT, textBinder } from '../../server/store/text-binding.js';

describe('binding long texts natively', async () => {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  const fast = new StatementCache(db, textBinder(SQL, db));
  const plain = new StatementCache(db);
  db.run('CREATE TABLE t (k TEXT, a TEXT, n NUMERIC)');

  it('finds sql.js statement pointers in this build', () => {
    expect(textBinder(SQL, db)).not.toBeNull();
  });

  it('binds the texts of an ordinary row itself: a post\'s content, a log\'s data', () => {
    expect(bindsNatively('x'.repeat(300))).toBe(true);
    expect(bindsNatively('{"type":"request","url":"/api/collections/posts/records"}')).toBe(true);
    expect(bindsNatively('short')).toBe(false);
    expect(bindsNatively(`${'y'.repeat(300)}\uD800`)).toBe(false);
  });

  const texts: [string, string][] = [
    ['ascii at the threshold', 'x'.repeat(LARGE_TEXT)],
    ['ascii of a few hundred', 'x'.repeat(300)],
    ['ascii', 'x'.repeat(64 * 1024 + 5)],
    ['multibyte and astral, short', 'é€😀'.repeat(12)],
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

  it('several texts of one statement, between short and lone-surrogate ones, each as sql.js binds it', () => {
    db.run('CREATE TABLE m (k TEXT, a TEXT, b TEXT, c TEXT, d TEXT, n NUMERIC)');
    const row = ['x'.repeat(40), 'é€😀'.repeat(20), 'ab', `${'q'.repeat(50)}\uDC00`, 'w'.repeat(70_000), 7];
    runStatement(fast, 'INSERT INTO m VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)', ['fast', ...row.slice(1), 'fast2', ...row.slice(1)]);
    runStatement(plain, 'INSERT INTO m VALUES (?, ?, ?, ?, ?, ?)', ['plain', ...row.slice(1)]);
    const hex = (k: string) => queryGet(plain, 'SELECT hex(a) AS a, hex(b) AS b, hex(c) AS c, hex(d) AS d, n FROM m WHERE k = ?', [k]);
    expect(hex('fast')).toEqual(hex('plain'));
    expect(hex('fast2')).toEqual(hex('plain'));
    expect(queryGet<{ b: string }>(fast, 'SELECT b FROM m WHERE k = ?', ['fast'])!.b).toBe(row[2]);
    db.run('DROP TABLE m');
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
