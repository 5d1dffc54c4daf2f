// `~` / `!~` on both engines, by property: random texts and patterns (ASCII letters of both cases,
// non-ASCII letters, LIKE's special characters, the escape) compiled as filters and run on sql.js and
// on PostgreSQL 15 through the dialect: both must answer alike, for the pattern as the caller wrote it
// (a value with `%`) and as PocketBase builds it (a "contains" search). U+0000 is left out: PostgreSQL
// texts cannot hold it.
import fc from 'fast-check';
import type { Database } from 'sql.js';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { POSTGRES, postgresTableSql } from '../../server/filter/dialect.js';
import { compileFilter } from '../../server/rules/compile.js';
import { collection, context, createFixtureTable, lookup, openFixtureDb, query } from '../filter/fixtures.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

const unit = fc.constantFrom('a', 'A', 'b', 'B', 'z', '%', '_', '\\', 'é', 'É', '😀', ' ', '.');
const text = fc.array(unit, { maxLength: 12 }).map((a) => a.join(''));

let lite: Database;
let pg: FreshDatabase;

/** A text and a pattern stored in a row: `t ~ p` reads the pattern from a column, not a bound value. */
const pairs = collection('pairs', 'base', [{ name: 't', type: 'text' }, { name: 'p', type: 'text' }]);

async function bothStored(t: string, p: string, op: '~' | '!~'): Promise<[boolean, boolean]> {
  lite.run('DELETE FROM pairs');
  lite.run('INSERT INTO pairs (id, t, p) VALUES (?, ?, ?)', ['x', t, p]);
  await pg.sql`DELETE FROM pairs`;
  await pg.sql`INSERT INTO pairs (id, t, p) VALUES ('x', ${t}, ${p})`;
  const ctx = context({ collection: pairs, lookup: (n) => (n === 'pairs' ? pairs : lookup(n)) });
  const a = compileFilter(`t ${op} p`, ctx);
  const sqlite = query(lite, `SELECT count(*) FROM pairs AS r WHERE ${a.sql}`, a.params)[0][0] === 1;
  const b = compileFilter(`t ${op} p`, { ...ctx, dialect: POSTGRES });
  const rows = await pg.sql.unsafe(POSTGRES.statement(`SELECT count(*)::int AS n FROM pairs AS r WHERE ${b.sql}`), b.params as never[]);
  return [sqlite, rows[0].n === 1];
}

/** Whether `{:t} ~ {:p}` (or `!~`) holds, on each engine. */
async function both(t: string, p: string, op: '~' | '!~'): Promise<[boolean, boolean]> {
  const ctx = context({ params: { t, p } });
  const src = `{:t} ${op} {:p}`;
  const a = compileFilter(src, ctx);
  const sqlite = query(lite, `SELECT count(*) FROM (SELECT 1) AS r WHERE ${a.sql}`, a.params)[0][0] === 1;
  const b = compileFilter(src, { ...ctx, dialect: POSTGRES });
  const rows = await pg.sql.unsafe(POSTGRES.statement(`SELECT count(*)::int AS n FROM (SELECT 1) AS r WHERE ${b.sql}`), b.params as never[]);
  return [sqlite, rows[0].n === 1];
}

describePostgres('~ and !~ answer alike on sql.js and PostgreSQL 15', () => {
  beforeAll(async () => {
    lite = await openFixtureDb();
    createFixtureTable(lite, pairs, []);
    pg = await freshDatabase('like_engines');
    for (const statement of postgresTableSql(pairs)) await pg.sql.unsafe(statement);
  });
  afterAll(async () => {
    await pg?.drop();
  });

  describe('known corners', () => {
    it.each([
      ['abc', '%b%'], ['ABC', '%b%'], ['École', '%é%'], ['école', '%É%'], ['a_b', '%\\_%'], ['a%b', 'a\\%b'],
      ['abc\\', '%c\\'], ['abc', 'abc\\'], ['a\\b', '%\\\\%'], ['😀', '_'], ['', '%'], ['x', ''],
    ])('%j ~ %j', async (t, p) => {
      for (const op of ['~', '!~'] as const) {
        const [sqlite, postgres] = await both(t, p, op);
        expect(postgres, `${JSON.stringify(t)} ${op} ${JSON.stringify(p)}`).toBe(sqlite);
      }
    });
  });

  it('random texts and patterns', async () => {
    await fc.assert(fc.asyncProperty(text, text, fc.constantFrom('~' as const, '!~' as const), async (t, p, op) => {
      const [sqlite, postgres] = await both(t, p, op);
      expect(postgres, `${JSON.stringify(t)} ${op} ${JSON.stringify(p)}`).toBe(sqlite);
    }), { numRuns: 400 });
  });

  it('random patterns of the caller (with `%`), ending in escapes or not, bound or read from a column', async () => {
    const own = fc.tuple(text, fc.integer({ min: 0, max: 3 })).map(([p, slashes]) => `%${p}${'\\'.repeat(slashes)}`);
    await fc.assert(fc.asyncProperty(text, own, fc.constantFrom('~' as const, '!~' as const), async (t, p, op) => {
      const [sqlite, postgres] = await both(t, p, op);
      expect(postgres, `${JSON.stringify(t)} ${op} ${JSON.stringify(p)}`).toBe(sqlite);
      const [storedSqlite, storedPostgres] = await bothStored(t, p, op);
      // A column's pattern is always searched for inside the text (`'%' || p || '%'`), so it may answer
      // otherwise than the bound one: the engines must agree with each other.
      expect(storedPostgres, `pattern from a column: ${JSON.stringify(t)} ${op} ${JSON.stringify(p)}`).toBe(storedSqlite);
    }), { numRuns: 200 });
  });
});
