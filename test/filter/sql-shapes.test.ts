// Input → exact SQL and parameters, for the shapes callers and SQLite's planner depend on.
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileFilter, compileSort } from '../../server/rules/compile.js';
import { alias, ident } from '../../server/filter/sql.js';
import { SORT_CASES } from './cases.js';
import { context, guest, openFixtureDb, query, signedIn, sorted } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

type Case = [src: string, sql: string, params: unknown[]];

describe('compileFilter: input → SQL', () => {
  const cases: Case[] = [
    ["title = 'x'", 'r."title" = ?', ['x']],
    ["title != 'x'", 'r."title" IS NOT ?', ['x']],
    ["'x' ?= title", '? = r."title"', ['x']],
    ["title = ''", `(r."title" = '' OR r."title" IS NULL)`, []],
    ['title != null', `(r."title" IS NOT '' AND r."title" IS NOT NULL)`, []],
    ["'' = null", `'' = ''`, []],
    ["null != ''", `'' IS NOT ''`, []],
    ["'x' = null", `? = ''`, ['x']],
    ['title = status', `COALESCE(r."title", '') = COALESCE(r."status", '')`, []],
    ['title != status', `COALESCE(r."title", '') IS NOT COALESCE(r."status", '')`, []],
    ['views > 5', 'r."views" > ?', [5]],
    ['views >= -1.5', 'r."views" >= ?', [-1.5]],
    ['views < null', 'r."views" < NULL', []],
    ["views <= ''", `r."views" <= ''`, []],
    ['published = true', 'r."published" = ?', [1]],
    ['published != false', 'r."published" IS NOT ?', [0]],
    ["title ~ 'a_b'", `r."title" LIKE ? ESCAPE '\\'`, ['%a\\_b%']],
    ["title !~ 'x%'", `r."title" NOT LIKE ? ESCAPE '\\'`, ['x%']],
    ['title ~ status', `r."title" LIKE ('%' || r."status" || '%') ESCAPE '\\'`, []],
    ['data.a.0 = 1', `json_extract((CASE WHEN json_valid(r."data") THEN r."data" ELSE json_quote(r."data") END), ?) IS ?`, ['$.a[0]', 1]],
    ['data != null', `json_extract((CASE WHEN json_valid(r."data") THEN r."data" ELSE json_quote(r."data") END), '$') IS NOT NULL`, []],
    ["author.name = 'x'", `(SELECT _f1."name" FROM "users" AS _f1 WHERE _f1."id" = r."author") = ?`, ['x']],
    ["author.id = 'u1'", 'r."author" = ?', ['u1']],
    ['title:lower = status:lower', `COALESCE(LOWER(r."title"), '') = COALESCE(LOWER(r."status"), '')`, []],
    ["title = 'a' || views = 1 && published = true", '(r."title" = ? OR (r."views" = ? AND r."published" = ?))', ['a', 1, 1]],
    ["(title = 'a' || views = 1) && published = true", '((r."title" = ? OR r."views" = ?) AND r."published" = ?)', ['a', 1, 1]],
    ['created > @now', 'r."created" > ?', ['2024-06-15T12:30:45.123Z']],
    ['@weekday = 6', '? = ?', [6, 6]],
    ["@request.auth.id = ''", `'' = ''`, []],
    ["@request.query.q:isset = true", '? = ?', [0, 1]],
    [`title = "x\\" OR 1=1 --"`, 'r."title" = ?', ['x" OR 1=1 --']],
    ['   ', '1', []],
  ];
  it.each(cases)('%s', (src, sql, params) => {
    expect(compileFilter(src, context())).toEqual({ sql, params });
  });

  it('binds signed-in values and compiles against any alias', () => {
    const ctx = context({ request: signedIn(db, 'u1'), alias: 'rec' });
    expect(compileFilter('author = @request.auth.id', ctx)).toEqual({ sql: 'rec."author" = ?', params: ['u1'] });
    expect(() => compileFilter('title = 1', context({ alias: 'r; DROP' }))).toThrow('invalid SQL alias');
  });

  it('reads multi-valued paths in one correlated EXISTS per OR branch', () => {
    const { sql, params } = compileFilter("title = 'a' && tags.name ?= 'x' && tags.color ?= 'y'", context());
    expect(sql).toMatch(/^\(r\."title" = \? AND EXISTS \(SELECT 1 FROM \(SELECT 1\) AS _f\d+ LEFT JOIN json_each\(.*\) AS _f1 ON 1 LEFT JOIN "tags" AS _f2 ON _f2\."id" = _f1\.value WHERE _f2\."name" = \? AND _f2\."color" = \?\)\)$/);
    expect(params).toEqual(['a', 'x', 'y']);
    expect(sql).not.toMatch(/^\s*JOIN|\bDISTINCT\b/);
  });

  it('adds the "all" check to plain operators on multi-valued paths only', () => {
    expect(compileFilter("tags.name ?= 'x'", context()).sql).not.toContain('NOT EXISTS');
    const all = compileFilter("tags.name = 'x'", context());
    expect(all.sql).toContain('AND NOT EXISTS (SELECT 1 FROM (SELECT 1)');
    expect(all.params).toEqual(['x', 'x']);
  });

  it('lets SQLite use an index for plain comparisons', () => {
    db.run('CREATE INDEX IF NOT EXISTS idx_posts_title ON posts (title)');
    for (const src of ["title = 'hello'", "title = 'hello' && views > 1", 'title = {:t}']) {
      const { sql, params } = compileFilter(src, context({ params: { t: 'hello' } }));
      const plan = query(db, `EXPLAIN QUERY PLAN SELECT r.id FROM "posts" AS r WHERE ${sql}`, params).map((row) => String(row[3]));
      expect(plan.join(' | ')).toMatch(/SEARCH r USING INDEX idx_posts_title \(title=\?\)/);
    }
  });
});

describe('compileSort: input → ORDER BY body', () => {
  const cases: [string, string, unknown[]][] = [
    ['', '', []],
    ['-created,title', 'r."created" DESC, r."title" ASC', []],
    ['+views', 'r."views" ASC', []],
    ['@random', 'RANDOM() ASC', []],
    ['-@rowid', 'r._rowid_ DESC', []],
    ['title:lower', 'LOWER(r."title") ASC', []],
    ['-data.a', `json_extract((CASE WHEN json_valid(r."data") THEN r."data" ELSE json_quote(r."data") END), ?) DESC`, ['$.a']],
    ['author.name', '(SELECT _f1."name" FROM "users" AS _f1 WHERE _f1."id" = r."author") ASC', []],
  ];
  it.each(cases)('%j', (src, sql, params) => {
    expect(compileSort(src, context())).toEqual({ sql, params });
  });

  it('sorts multi-valued paths by their smallest (asc) or largest (desc) value', () => {
    expect(compileSort('tags.name', context()).sql).toMatch(/^\(SELECT MIN\(_f\d+\."name"\) FROM \(SELECT 1\)/);
    expect(compileSort('-tags.name', context()).sql).toMatch(/^\(SELECT MAX\(/);
  });
});

describe('sorted rows', () => {
  it.each(SORT_CASES)('%j', (src, ids, options) => {
    expect(sorted(db, src, { request: guest(), ...options })).toEqual(ids);
  });
});

describe('identifier quoting', () => {
  // One helper for the whole server (it used to be two: one doubled quotes, one refused them).
  it('quotes allow-listed names and refuses anything else', () => {
    expect(ident('posts')).toBe('"posts"');
    expect(ident('_f1')).toBe('"_f1"');
    // a field name may start with a digit (PocketBase's `^\w+$`): quoted, it is a plain identifier
    expect(ident('1st')).toBe('"1st"');
    for (const bad of ['a"b', 'a b', '', 'x;--', 'é', '1st"']) expect(() => ident(bad), bad).toThrow('unsafe SQL identifier');
    // aliases are written unquoted, so they keep refusing a leading digit
    expect(() => alias('1st')).toThrow('invalid SQL alias');
  });
});
