// The PostgreSQL dialect's text-level parts, without a database: statements (placeholders, long names),
// names past 63 bytes, what compilation for PostgreSQL leaves out (guards) or refuses (strftime). What
// the dialect's SQL selects is checked on a real PostgreSQL in test/postgres/filter-engines.test.ts.
import { describe, expect, it } from 'vitest';
import { POSTGRES, postgresName, postgresTableSql, SQLITE } from '../../server/filter/dialect.js';
import { CHARGE_FUNCTION, GUARD_FUNCTION, LIKE_FUNCTION } from '../../server/filter/guard.js';
import { checkRule, compileFilter, compileSort } from '../../server/rules/compile.js';
import { context, lookup, posts } from './fixtures.js';

const LONG = 'a_collection_name_that_is_longer_than_what_postgresql_keeps_whole';

describe('POSTGRES.statement', () => {
  it('numbers the placeholders outside quotes and leaves quoted text alone', () => {
    expect(POSTGRES.statement(`SELECT ? , '?', "a?b", 'it''s ?' || ? FROM "t" WHERE x = ?`))
      .toBe(`SELECT $1 , '?', "a?b", 'it''s ?' || $2 FROM "t" WHERE x = $3`);
  });

  it('shortens quoted names past 63 bytes, the same way every time, and only those', () => {
    const short = postgresName(LONG);
    expect(LONG.length).toBeGreaterThan(63);
    expect(short.length).toBeLessThanOrEqual(63);
    expect(short).toBe(postgresName(LONG));
    expect(POSTGRES.statement(`SELECT r."id" FROM "${LONG}" AS r WHERE '"${LONG}"' = ?`)).toBe(`SELECT r."id" FROM "${short}" AS r WHERE '"${LONG}"' = $1`);
    expect(postgresName('x'.repeat(63))).toBe('x'.repeat(63));
    expect(postgresName(`${'x'.repeat(63)}1`)).not.toBe(postgresName(`${'x'.repeat(63)}2`));
  });

  it('refuses a statement with an unterminated quote rather than guess', () => {
    expect(() => POSTGRES.statement(`SELECT 'a`)).toThrow('unterminated');
  });

  it('is the identity on SQLite', () => {
    expect(SQLITE.statement(`SELECT ? FROM "${LONG}"`)).toBe(`SELECT ? FROM "${LONG}"`);
  });
});

describe('compiling for PostgreSQL', () => {
  const pg = (src: string, extra = {}) => compileFilter(src, context({ dialect: POSTGRES, guard: true, ...extra }));

  it('emits no deadline guards (PostgreSQL enforces statement_timeout)', () => {
    const { sql } = pg("title ~ 'x' && tags.name ?= 'red' && data.a:lower = 'b'");
    expect(sql).not.toContain(GUARD_FUNCTION);
    expect(sql).not.toContain(CHARGE_FUNCTION);
    expect(sql).not.toContain(LIKE_FUNCTION);
    expect(sql).not.toContain('_rowid_');
    expect(compileFilter("title ~ 'x' && tags.name ?= 'red'", context({ guard: true })).sql).toContain(GUARD_FUNCTION);
    expect(compileFilter("title ~ 'x'", context({ guard: true })).sql).toContain(CHARGE_FUNCTION);
  });

  it('writes TRUE for a blank rule and json_each as jsonb_array_elements_text', () => {
    expect(pg('').sql).toBe('TRUE');
    expect(compileFilter('', context()).sql).toBe('1');
    const { sql } = pg("tags.name ?= 'red'");
    expect(sql).toContain('json_array_elements_text');
    expect(sql).not.toMatch(/json_each|json_extract|\bIS NOT\b(?! DISTINCT| NULL)/);
  });

  it('sorts NULLs first ascending and texts in byte order', () => {
    expect(compileSort('title,-views', context({ dialect: POSTGRES })).sql).toBe('(CAST(r."title" AS text) COLLATE "C") ASC NULLS FIRST, r."views" DESC NULLS LAST');
  });

  it('checks a rule for the engine it will run on', () => {
    const rule = "strftime('%W', created) = '01'";
    expect(checkRule(rule, posts, lookup)).toBeNull();
    expect(checkRule(rule, posts, lookup, POSTGRES)).toBe('strftime(): format "%W" is not supported on PostgreSQL at character 1');
  });

  it('writes strftime() with to_char, and refuses a format it cannot write, naming it', () => {
    expect(pg("strftime('%Y', created) = '2024'").sql).toContain("to_char(_t.ts, 'YYYY')");
    expect(() => pg("strftime('%J', created) = '1'")).toThrow('strftime(): format "%J" is not supported on PostgreSQL at character 1');
  });
});

describe("core's statements", () => {
  it('are on SQLite exactly what core wrote before the dialect (the desktop\'s SQL does not move)', () => {
    expect(SQLITE.upsert('_collections', ['id', 'name', 'data'], ['id'])).toBe('INSERT OR REPLACE INTO "_collections" ("id", "name", "data") VALUES (?, ?, ?)');
    expect(SQLITE.equalsNoCase('"email"')).toBe('"email" COLLATE NOCASE = ?');
    expect(SQLITE.noCaseKey('"email"')).toBe('"email" COLLATE NOCASE');
    expect(SQLITE.indexNames).toBe("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL");
    expect(SQLITE.lastItem('"tags"')).toBe(`COALESCE(json_extract("tags", '$[#-1]'), '')`);
    expect(SQLITE.listOf('"tags"')).toBe(`CASE WHEN "tags" IS NULL OR "tags" = '' THEN '[]' ELSE json_array("tags") END`);
    expect(SQLITE.copyRows('_tmp_x', 'posts', ['id', 'title'], ['"id"', '"title"'])).toEqual(['INSERT INTO "_tmp_x" ("id", "title") SELECT "id", "title" FROM "posts"']);
    expect(SQLITE.renameTable('_tmp_x', 'posts')).toEqual(['ALTER TABLE "_tmp_x" RENAME TO "posts"']);
    expect(SQLITE.jsonItems('r."tags"')).toBe('json_each(r."tags")');
    expect(SQLITE.jsonText('"data"', 'type')).toBe(`json_extract("data", '$.type')`);
    expect([SQLITE.keyJoin, SQLITE.rowOrder('r'), SQLITE.typedParam('number'), SQLITE.tableSql, SQLITE.indexSql]).toEqual(['CROSS JOIN', '', '?', undefined, undefined]);
  });

  it('refuse names outside the allow-list', () => {
    expect(() => POSTGRES.upsert('a"b', ['id'], ['id'])).toThrow('unsafe SQL identifier');
    expect(() => SQLITE.jsonText('"data"', "x') OR 1 --")).toThrow('unsafe SQL identifier');
  });
});

describe('postgresTableSql', () => {
  it('lays a collection out with its row order column, one typed column per field and its indexes', () => {
    const statements = postgresTableSql({ ...posts, indexes: [{ name: 'idx_title', fields: ['f_title'], unique: true }] });
    expect(statements[0]).toMatch(/^CREATE TABLE "posts" \("_rowid_" bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL, "id" text COLLATE "C" NOT NULL, "title" text COLLATE "C" DEFAULT '' NOT NULL, /);
    // the keys' constraints are named after the table, so renameTable can carry them along
    expect(statements[0]).toMatch(/, CONSTRAINT "posts_rowid_key" UNIQUE \("_rowid_"\), CONSTRAINT "posts_pkey" PRIMARY KEY \("id"\)\)$/);
    expect(statements[0]).toContain(`"tags" text COLLATE "C" DEFAULT '[]' NOT NULL CHECK (json_typeof(CAST("tags" AS json)) = 'array')`);
    expect(statements[0]).toContain('"published" boolean DEFAULT FALSE NOT NULL');
    expect(statements[0]).toContain('"views" double precision DEFAULT 0 NOT NULL');
    expect(statements[1]).toBe('CREATE UNIQUE INDEX "idx_title" ON "posts" ("title" NULLS FIRST)');
  });

  it('refuses a name outside the allow-list', () => {
    expect(() => postgresTableSql({ name: 'a"b', fields: [], indexes: [] })).toThrow('unsafe SQL identifier');
  });
});
