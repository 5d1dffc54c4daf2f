// The text side of a view's query (server/core/view-query.ts): SQLite's tokens, the one-SELECT checks,
// and the columns and tables field inference reads. What a query may read is tested through the API
// (view-collections.test.ts): it is decided where the view is built, not here.
import { describe, expect, it } from 'vitest';
import { parseViewQuery, ViewQueryError } from '../../server/core/view-query.js';
import { cpuWatch } from '../fixtures/health-poll.js';

const refused = (q: string) => {
  try {
    parseViewQuery(q);
  } catch (err) {
    expect(err).toBeInstanceOf(ViewQueryError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${q}`);
};

describe('parseViewQuery', () => {
  it('accepts semicolons and keywords inside strings, quoted names and comments', () => {
    const p = parseViewQuery(`SELECT p.id, 'a;b' AS "x y", "weird;name" AS w -- a comment; with a semicolon\n FROM posts /* ; */ p;  `);
    expect(p.text.endsWith('p')).toBe(true);
    expect(p.columns.map((c) => c.alias)).toEqual(['id', 'x y', 'w']);
    expect(p.tables).toEqual([{ name: 'posts', alias: 'p' }]);
  });

  it('reads columns and tables through joins, subqueries and WITH', () => {
    const p = parseViewQuery(`WITH x AS (SELECT 1 AS id) SELECT DISTINCT a.id, b.title AS t, count(c.id) n, (SELECT 1) AS one
      FROM posts AS a LEFT OUTER JOIN items b ON b.post = a.id JOIN (SELECT id FROM comments) c USING (id), tags
      WHERE a.x = 1 GROUP BY a.id ORDER BY n`);
    expect(p.columns.map((c) => c.alias)).toEqual(['id', 't', 'n', 'one']);
    expect(p.tables).toEqual([{ name: 'posts', alias: 'a' }, { name: 'items', alias: 'b' }, { name: null, alias: 'c' }, { name: 'tags', alias: 'tags' }]);
  });

  it('refuses parentheses nested deeper than MAX_NESTING, quickly (PostgreSQL\'s parser would take seconds)', () => {
    const nested = (n: number) => `SELECT ${'('.repeat(n)}id${')'.repeat(n)} AS id FROM posts`;
    expect(() => parseViewQuery(nested(256))).not.toThrow();
    expect(refused(nested(257))).toMatch(/nests parentheses more than 256 deep/);
    const cpu = cpuWatch(); // this thread's CPU time, which a busy machine does not stretch
    expect(refused(nested(40_000))).toMatch(/nests parentheses more than 256 deep/);
    expect(cpu()).toBeLessThan(1000);
  });

  it('refuses what is not one SELECT without parameters or schema names', () => {
    expect(refused('UPDATE posts SET title = 1')).toMatch(/single SELECT/);
    expect(refused('SELECT 1; SELECT 2')).toMatch(/multiple statements/);
    expect(refused("WITH x AS (SELECT 1) DELETE FROM posts")).toMatch(/single SELECT/);
    expect(refused('SELECT id FROM posts WHERE id = :id')).toMatch(/parameters/);
    expect(refused('SELECT id FROM "main".posts')).toMatch(/schema-qualified/);
    expect(refused('SELECT id FROM temp.x')).toMatch(/schema-qualified/);
    expect(refused('SELECT name AS id FROM sqlite_schema')).toMatch(/cannot be read/);
    expect(refused('SELECT name AS id FROM pragma_table_info(\'users\')')).toMatch(/cannot be read/);
    expect(refused("SELECT 'unterminated")).toMatch(/unterminated/);
    expect(refused('SELECT (1')).toMatch(/unbalanced/);
    expect(refused('   ;  ')).toMatch(/empty/);
  });

  it('refuses a common table expression that names itself, at any depth, with or without RECURSIVE', () => {
    expect(refused('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id FROM c')).toMatch(/recursive common table expressions \("c"\)/);
    expect(refused('WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM "C") SELECT x AS id FROM c')).toMatch(/recursive/);
    expect(refused('WITH a AS (SELECT 1 AS id), b(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM [b] LIMIT 5) SELECT id FROM a')).toMatch(/\("b"\)/);
    expect(refused('SELECT id, (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c) AS n FROM posts')).toMatch(/recursive/);
    // a table named like an earlier one, or RECURSIVE over tables that do not recurse, is fine
    expect(parseViewQuery('WITH RECURSIVE a AS (SELECT id FROM posts), b AS (SELECT id FROM a) SELECT id FROM b').columns.map((c) => c.alias)).toEqual(['id']);
  });
});
