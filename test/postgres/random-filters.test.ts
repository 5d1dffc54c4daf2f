// Random filters and sorts on both engines: well-formed ones built from the fixture's fields, request
// values, macros, functions and every operator select the same posts, in the same order, on sql.js and
// on PostgreSQL 15; token soup and random text give a FilterError (or the 403) on both, or run on both,
// and PostgreSQL never raises an error of its own (a 500 for a client).
import fc from 'fast-check';
import type { Database } from 'sql.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { POSTGRES, postgresTableSql } from '../../server/filter/dialect.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { compileFilter, compileSort, type CompileContext } from '../../server/rules/compile.js';
import { collections, context, guest, openFixtureDb, query, ROWS, signedIn } from '../filter/fixtures.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

let lite: Database;
let pg: FreshDatabase;

function contexts(): CompileContext[] {
  return [
    context({ request: signedIn(lite, 'u1', { body: { title: 'hello', tags: ['t1'], views: 5 }, query: { q: 'a' } }) }),
    context({ mode: 'filter', request: guest() }),
    context({ mode: 'filter', request: signedIn(lite, 'root') }),
  ];
}

type Outcome = { refused: string } | { ids: string[] };

async function run(compile: (ctx: CompileContext) => { sql: string; params: unknown[] }, select: (body: string) => string, ctx: CompileContext): Promise<[Outcome, Outcome]> {
  const attempt = (c: CompileContext) => {
    try {
      return compile(c);
    } catch (err) {
      if (err instanceof FilterError || (err instanceof ApiError && err.status === 403)) return { refused: err.message };
      throw err;
    }
  };
  const a = attempt(ctx);
  const b = attempt({ ...ctx, dialect: POSTGRES });
  const sqlite: Outcome = 'refused' in a ? a : { ids: query(lite, select(a.sql), a.params as never[]).map((r) => String(r[0])) };
  const postgres: Outcome = 'refused' in b ? b : { ids: (await pg.sql.unsafe(POSTGRES.statement(select(b.sql)), b.params as never[])).map((r) => String(r.id)) };
  return [sqlite, postgres];
}

const filtered = (body: string) => `SELECT r.id FROM "posts" AS r WHERE ${body} ORDER BY r.id`;
const ordered = (body: string) => `SELECT r.id FROM "posts" AS r ORDER BY ${body}, r.id`;

const operand = fc.constantFrom(
  'title', 'views', 'published', 'status', 'tags.name', 'tags.id', 'tags.color', 'author.name', 'author.verified', 'author.friends.name',
  'labels:each', 'labels', 'labels:length', 'comments_via_post.message', 'comments_via_post.author.name', 'data.a.b', 'data.items.0', 'data',
  'location.lon', 'location.lat', 'title:lower', 'tags:length', 'tags:each', 'created', '@now', '@yearStart', '@month', 'true', 'false', 'null', "''",
  "'hello'", "'Hello world'", "'5'", "'1e999'", "'%'", "'\\\\'", "'a_b'", "'É'", '0', '5', '10.5', '-1', "strftime('%Y', created)",
  "strftime('%m-%d', created, '+1 month')", '@request.auth.id', '@request.auth.name',
  '@request.body.tags:each', '@request.body.title', '@request.body.views', '@request.body.title:changed', '@request.query.q',
  '@collection.news.category', '@collection.news.author', '@request.auth.friends.name', 'secret', 'author.email', 'note.body',
);
const op = fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '~', '!~', '?=', '?!=', '?>', '?>=', '?<', '?<=', '?~', '?!~');
// geoDistance compared with numbers only: read as text, a computed number is written differently by
// the engines (SQLite: 15 significant digits and `1.0`; PostgreSQL: the shortest exact form and `1`),
// a difference docs/architecture.md lists.
const distance = fc.tuple(fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '?>', '?<='), fc.constantFrom('0', '5', '10.5', 'views', 'location.lat')).map(([o, n]) => `geoDistance(location.lon, location.lat, 2.35, 48.85) ${o} ${n}`);
const expr = fc.oneof(fc.tuple(operand, op, operand).map(([a, o, b]) => `${a} ${o} ${b}`), distance);
const item = fc.oneof(expr, fc.array(expr, { minLength: 1, maxLength: 3 }).map((es) => `(${es.join(' || ')})`));
const filter = fc.array(fc.tuple(fc.constantFrom('&&', '||'), item), { minLength: 1, maxLength: 4 })
  .map((items) => items.map(([join, it], i) => (i === 0 ? it : `${join} ${it}`)).join(' '));
const sortItem = fc.constantFrom(
  'title', '-title', 'views', '-views', 'status', '-created', 'author.name', '-author.name', 'tags.name', '-tags.name', 'data.a.b', '-data',
  'labels:length', '-comments_via_post.message', 'title:lower', '@rowid', '-@rowid', 'location.lat', 'secret', 'author.email', 'nope',
);
const sort = fc.array(sortItem, { minLength: 1, maxLength: 3 }).map((items) => items.join(','));
const tokens = fc.array(fc.constantFrom(
  'title', 'views', 'tags.name', 'data.a.b', '@request.body.tags:each', "'x'", '1', '-2.5', '=', '!=', '?=', '>', '~', '!~', '?>', '&&', '||',
  '(', ')', "strftime('%W', created)", "strftime('%Y', created, '+1e999 days')", 'geoDistance(title, 1, 2, 3)', '//c\n', '@', ':', '.',
), { maxLength: 10 }).map((parts) => parts.join(' '));

describePostgres('random filters and sorts on sql.js and PostgreSQL 15', () => {
  beforeAll(async () => {
    lite = await openFixtureDb();
    pg = await freshDatabase('random_filters');
    for (const c of collections) {
      for (const statement of postgresTableSql(c)) await pg.sql.unsafe(statement);
      for (const row of ROWS[c.name]) {
        const keys = Object.keys(row);
        const values = keys.map((k) => (c.fields.find((f) => f.name === k)?.type === 'bool' ? row[k] === 1 : row[k]));
        await pg.sql.unsafe(POSTGRES.statement(`INSERT INTO "${c.name}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`), values as never[]);
      }
    }
  });
  afterAll(async () => {
    await pg?.drop();
  });

  it('well-formed filters select the same posts', async () => {
    await fc.assert(fc.asyncProperty(filter, fc.integer({ min: 0, max: 2 }), async (src, who) => {
      const [sqlite, postgres] = await run((c) => compileFilter(src, c), filtered, contexts()[who]);
      expect(postgres, src).toEqual(sqlite);
    }), { numRuns: 300 });
  });

  it('sorts give the same order', async () => {
    await fc.assert(fc.asyncProperty(sort, fc.integer({ min: 0, max: 2 }), async (src, who) => {
      const [sqlite, postgres] = await run((c) => compileSort(src, c), ordered, contexts()[who]);
      expect(postgres, src).toEqual(sqlite);
    }), { numRuns: 150 });
  });

  it('token soup is refused or runs alike, never a PostgreSQL error', async () => {
    await fc.assert(fc.asyncProperty(tokens, fc.integer({ min: 0, max: 2 }), async (src, who) => {
      const [sqlite, postgres] = await run((c) => compileFilter(src, c), filtered, contexts()[who]);
      // strftime formats PostgreSQL does not write are its only refusals of its own
      if ('refused' in postgres && !('refused' in sqlite)) expect(postgres.refused, src).toMatch(/not supported on PostgreSQL/);
      else expect(postgres, src).toEqual(sqlite);
    }), { numRuns: 300 });
  });
});
