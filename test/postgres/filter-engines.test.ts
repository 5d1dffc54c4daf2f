// The same filters, rules and sorts on both engines: sql.js through the compiler's SQLite output, and
// PostgreSQL 15 through the PostgreSQL dialect (server/filter/dialect.ts) over tables made by its DDL
// (`postgresTableSql`), the same rows inserted in the same order in both. Every row of the filter
// tables (test/filter/cases.ts: operators, null/empty handling, multi-valued fields, back-relations,
// @request.*, @collection.*, macros, :each, :length, :lower, placeholders, client filters' joined list
// rules and hidden e-mails, sorts) must select the same ids in the same order on both, and those ids
// must be the ones the table expects. Data of its own only where the fixture has none: texts with mixed
// case and non-ASCII letters, NULLs among JSON values, and names of 64 bytes and more.
import type { Database } from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Field, RequestInfo, SqlValue } from '../../server/model/types.js';
import { POSTGRES, postgresName, postgresTableSql } from '../../server/filter/dialect.js';
import { FilterError } from '../../server/filter/filter-error.js';
import { compileFilter, compileSort } from '../../server/rules/compile.js';
import {
  collection, collections, context, createFixtureTable, guest, lookup as fixtureLookup, openFixtureDb, query, ROWS, signedIn, users, type Options,
} from '../filter/fixtures.js';
import { ALL, HIDDEN_EMAIL_CASES, JOINED_LIST_RULE_CASES, OPERATOR_TABLES, PLACEHOLDER_CASES, REQUEST_TABLES, SORT_CASES, type As } from '../filter/cases.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

// 64 and more bytes: PostgreSQL would cut both long field names to the same 63 bytes.
const LONG_A = 'a_field_name_that_is_longer_than_postgresql_keeps_for_identifiers_one';
const LONG_B = 'a_field_name_that_is_longer_than_postgresql_keeps_for_identifiers_two';
const LONG_TABLE = 'words_in_a_collection_whose_name_is_longer_than_sixty_three_bytes_x';

const words = collection(LONG_TABLE, 'base', [
  { name: 'word', type: 'text' },
  { name: LONG_A, type: 'text' },
  { name: LONG_B, type: 'number' },
  { name: 'meta', type: 'json' },
  { name: 'flags', type: 'select', values: ['x', 'y', 'Z'], maxSelect: 3 } as Field,
  { name: 'files', type: 'file', maxSelect: 3 } as Field,
  { name: 'cover', type: 'file', maxSelect: 1 } as Field,
  { name: 'post', type: 'relation', collectionId: 'c_posts', maxSelect: 1 } as Field,
]);

// Mixed case, non-ASCII letters (É, é, Ä sort above every ASCII letter in byte order) and JSON values
// of every kind, NULL included.
const WORD_ROWS: Record<string, SqlValue>[] = [
  { id: 'w01', word: 'apple', [LONG_A]: 'one', [LONG_B]: 1, meta: '{"rank":3}', flags: '["x"]', files: '["a.png","b.txt"]', cover: 'a.png', post: 'p1' },
  { id: 'w02', word: 'Banana', [LONG_A]: 'two', [LONG_B]: 2, meta: '{"rank":"b"}', flags: '["y","x"]', files: '["C.PNG"]', cover: '', post: 'p1' },
  { id: 'w03', word: 'banana', [LONG_A]: 'one', [LONG_B]: 2, meta: null, flags: '[]', files: '[]', cover: 'c.png', post: 'p2' },
  { id: 'w04', word: 'Äpfel', [LONG_A]: '', [LONG_B]: 0, meta: '{"rank":1.5}', flags: '["Z"]' },
  { id: 'w05', word: 'zebra', [LONG_A]: 'two', [LONG_B]: -1, meta: '{"rank":null}', flags: '["x","Z"]' },
  { id: 'w06', word: 'Zebra', [LONG_A]: 'three', [LONG_B]: 10, meta: '{"rank":true}', flags: '[]' },
  { id: 'w07', word: 'éclair', [LONG_A]: 'one', [LONG_B]: 3, meta: '{"rank":"A"}', flags: '["y"]' },
  { id: 'w08', word: 'École', [LONG_A]: 'three', [LONG_B]: 2.5, meta: '{"other":1}', flags: '[]' },
  { id: 'w09', word: '', [LONG_A]: 'two', [LONG_B]: 7, meta: '{"rank":[1,2]}', flags: '["y"]' },
  { id: 'w10', word: 'apple pie', [LONG_A]: 'one', [LONG_B]: 100, meta: '{"rank":-4}', flags: '["x","y","Z"]' },
];

const ALL_COLLECTIONS = [...collections, words];
const lookup = (idOrName: string) => (idOrName === words.id || idOrName === words.name ? words : fixtureLookup(idOrName));

let lite: Database;
let pg: FreshDatabase;

function options(extra: Options): Options {
  return { lookup, ...extra };
}

/** The ids the filter selects on each engine, in id order. */
async function both(src: string, extra: Options = {}): Promise<{ sqlite: string[]; postgres: string[] }> {
  const ctx = context(options(extra));
  const table = `"${ctx.collection.name}"`;
  const a = compileFilter(src, ctx);
  const sqlite = query(lite, `SELECT r.id FROM ${table} AS r WHERE ${a.sql} ORDER BY r.id`, a.params).map((row) => String(row[0]));
  const b = compileFilter(src, { ...ctx, dialect: POSTGRES });
  const rows = await pg.sql.unsafe(POSTGRES.statement(`SELECT r.id FROM ${table} AS r WHERE ${b.sql} ORDER BY r.id`), b.params as never[]);
  return { sqlite, postgres: rows.map((row) => String(row.id)) };
}

/** The ids in the sort's order on each engine (no tie-break beyond the sort's own). */
async function bothSorted(src: string, extra: Options = {}): Promise<{ sqlite: string[]; postgres: string[] }> {
  const ctx = context(options(extra));
  const table = `"${ctx.collection.name}"`;
  const a = compileSort(src, ctx);
  const sqlite = query(lite, `SELECT r.id FROM ${table} AS r ORDER BY ${a.sql}`, a.params).map((row) => String(row[0]));
  const b = compileSort(src, { ...ctx, dialect: POSTGRES });
  const rows = await pg.sql.unsafe(POSTGRES.statement(`SELECT r.id FROM ${table} AS r ORDER BY ${b.sql}`), b.params as never[]);
  return { sqlite, postgres: rows.map((row) => String(row.id)) };
}

function request(as: As, extra: Partial<RequestInfo> = {}): RequestInfo {
  return as === 'guest' ? guest(extra) : signedIn(lite, as, extra);
}

async function expectSame(src: string, ids: string[], extra: Options = {}): Promise<void> {
  const got = await both(src, extra);
  expect(got.sqlite, 'sql.js').toEqual(ids);
  expect(got.postgres, 'PostgreSQL').toEqual(ids);
}

describePostgres('filters and rules select the same records on sql.js and PostgreSQL 15', () => {
  beforeAll(async () => {
    lite = await openFixtureDb();
    createFixtureTable(lite, words, WORD_ROWS);
    pg = await freshDatabase('filter_engines');
    for (const c of ALL_COLLECTIONS) {
      for (const statement of postgresTableSql(c)) await pg.sql.unsafe(statement);
      for (const row of c === words ? WORD_ROWS : ROWS[c.name]) {
        const keys = Object.keys(row);
        const text = `INSERT INTO "${c.name}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`;
        // Booleans are stored as booleans (sql.js stores 1/0).
        const values = keys.map((k) => (c.fields.find((f) => f.name === k)?.type === 'bool' ? row[k] === 1 : row[k]));
        await pg.sql.unsafe(POSTGRES.statement(text), values as never[]);
      }
    }
  });

  afterAll(async () => {
    await pg?.drop();
  });

  for (const [name, cases] of OPERATOR_TABLES) {
    describe(name, () => {
      it.each(cases)('%s', async (src, ids) => {
        await expectSame(src, ids);
      });
    });
  }

  for (const [name, cases] of REQUEST_TABLES) {
    describe(name, () => {
      it.each(cases)('%s as %s %j', async (src, as, extra, ids) => {
        await expectSame(src, ids, { request: request(as, extra) });
      });
    });
  }

  describe('placeholders (server-side filters)', () => {
    it.each(PLACEHOLDER_CASES)('%s %j', async (src, params, ids) => {
      await expectSame(src, ids, { params });
    });
  });

  describe("client filters: joined collections' list rules", () => {
    it.each(JOINED_LIST_RULE_CASES)('%s as %s', async (src, as, ids) => {
      await expectSame(src, ids, { mode: 'filter', request: request(as) });
    });
  });

  describe('client filters: hidden e-mails', () => {
    it.each(HIDDEN_EMAIL_CASES)('%s as %s', async (src, as, ids) => {
      await expectSame(src, ids, { mode: 'filter', request: request(as), collection: users });
    });
  });

  describe('texts: byte order, ASCII-only case folding, non-ASCII letters', () => {
    it.each([
      ["word ~ 'b'", ['w02', 'w03', 'w05', 'w06']],
      ["word ~ 'APPLE'", ['w01', 'w10']],
      // SQLite's LIKE folds ASCII letters only: É and é are different letters
      ["word ~ 'É'", ['w08']],
      ["word ~ 'é'", ['w07']],
      ["word !~ 'e'", ['w02', 'w03', 'w07', 'w09']],
      ["word:lower = 'école'", []],
      ["word:lower = 'École'", ['w08']],
      ["word:lower = 'zebra'", ['w05', 'w06']],
      ["word > 'Zebra'", ['w01', 'w03', 'w04', 'w05', 'w07', 'w08', 'w10']],
      ["word < 'a'", ['w02', 'w06', 'w09']],
      ["word >= 'É'", ['w07', 'w08']],
      ["word = 'banana'", ['w03']],
      ["flags:each ?= 'Z'", ['w04', 'w05', 'w10']],
      ["flags:each ?~ 'z'", ['w04', 'w05', 'w10']],
      // "all" items: a record without items has none above 'a', and 'Z' < 'a' in byte order
      ["flags:each > 'a'", ['w01', 'w02', 'w07', 'w09']],
      ["flags:each ?< 'a'", ['w04', 'w05', 'w10']],
      ['flags:length >= 2', ['w02', 'w05', 'w10']],
      ["flags:each ?> 'x'", ['w02', 'w07', 'w09', 'w10']],
      ["flags:each ?>= 'x'", ['w01', 'w02', 'w05', 'w07', 'w09', 'w10']],
      ["flags:each ?<= 'Z'", ['w04', 'w05', 'w10']],
      ["flags:each ?!~ 'X'", ['w02', 'w04', 'w05', 'w07', 'w09', 'w10']],
      ["flags:each !~ 'X'", ['w04', 'w07', 'w09']],
      ["flags:each ?!= 'x'", ['w02', 'w03', 'w04', 'w05', 'w06', 'w07', 'w08', 'w09', 'w10']],
      // a number against a text column: every number is below every text that is no number ('' too)
      [`${LONG_B} > word`, []],
      [`${LONG_B} < word`, ['w01', 'w02', 'w03', 'w04', 'w05', 'w06', 'w07', 'w08', 'w09', 'w10']],
      [`word >= ${LONG_B}`, ['w01', 'w02', 'w03', 'w04', 'w05', 'w06', 'w07', 'w08', 'w09', 'w10']],
      // file fields: multiple (a JSON list) and single (a name)
      ["files:each ?~ 'png'", ['w01', 'w02']],
      ["files:each ?= 'C.PNG'", ['w02']],
      ['files:length = 2', ['w01']],
      ['files:length = 0', ['w03', 'w04', 'w05', 'w06', 'w07', 'w08', 'w09', 'w10']],
      ["files ~ 'b.txt'", ['w01']],
      ["cover = 'a.png'", ['w01']],
      ["cover != ''", ['w01', 'w03']],
      ['cover:length = 1', ['w01', 'w03']],
      ["cover:each ?= 'c.png'", ['w03']],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids, { collection: words });
    });
  });

  describe('numbers against texts', () => {
    it.each([
      ["views > ' '", []],
      ["views < ' '", ALL],
      ["views > '5'", ['p1', 'p4']],
      ["views >= ' 5 '", ['p1', 'p3', 'p4']],
      ['views > title', []],
      ['views < title', ALL],
      // a bound number against a text column is compared as text (the column's TEXT affinity)
      ['title > 5', ['p1', 'p2', 'p4']],
      ["5 < 'a'", ALL],
      ["5 = '5'", []],
      ["'5' != 5", ALL],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids);
    });
  });

  describe('texts that overflow a double, compared with numbers: never an error', () => {
    it.each([
      ["views < '1e999'", ALL],
      ["views > '-1e999'", ALL],
      ["views > '1e-999'", ['p1', 'p3', 'p4']],
      ['geoDistance(title, 0, 0, 0) < 1', []],
      ['geoDistance(title, 0, 0, 0) = null', ALL],
      ['geoDistance(views, views, views, views) < 1', ALL],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids);
    });
  });

  describe('JSON values of every kind', () => {
    it.each([
      ['meta.rank = null', ['w03', 'w05', 'w08']],
      ['meta.rank != null', ['w01', 'w02', 'w04', 'w06', 'w07', 'w09', 'w10']],
      // SQLite orders numbers below texts: every text rank (and the array, read as JSON text) is above 1
      ['meta.rank > 1', ['w01', 'w02', 'w04', 'w07', 'w09']],
      ['meta.rank < 2', ['w04', 'w06', 'w10']],
      ['meta.rank = 1', ['w06']],
      ["meta.rank = 'b'", ['w02']],
      ["meta.rank ~ 'A'", ['w07']],
      ["meta.rank:lower = 'a'", ['w07']],
      ['meta.rank = true', ['w06']],
      ["meta.rank = ''", []],
      // objects and arrays compare as their JSON text, as stored
      ['meta = \'{"rank":3}\'', ['w01']],
      ["meta.rank = '[1,2]'", ['w09']],
      ["meta ~ '\"other\":'", ['w08']],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids, { collection: words });
    });
  });

  describe('names of 64 bytes and more (PostgreSQL cuts names at 63)', () => {
    it('keeps two long names that share their first 63 bytes apart, in the DDL and in every statement', async () => {
      expect(Buffer.byteLength(LONG_A)).toBeGreaterThan(63);
      expect(LONG_A.slice(0, 63)).toBe(LONG_B.slice(0, 63));
      expect(postgresName(LONG_A)).not.toBe(postgresName(LONG_B));
      expect(Buffer.byteLength(postgresName(LONG_A))).toBeLessThanOrEqual(63);
      const columns = await pg.sql`SELECT column_name FROM information_schema.columns WHERE table_name = ${postgresName(LONG_TABLE)} ORDER BY ordinal_position`;
      expect(columns.map((c) => c.column_name)).toEqual(['_rowid_', 'id', 'word', postgresName(LONG_A), postgresName(LONG_B), 'meta', 'flags', 'files', 'cover', 'post']);
    });

    it.each([
      [`${LONG_A} = 'one'`, ['w01', 'w03', 'w07', 'w10']],
      [`${LONG_B} = 2`, ['w02', 'w03']],
      [`${LONG_A} = 'two' && ${LONG_B} > 1`, ['w02', 'w09']],
      [`${LONG_B} > 2.5 || ${LONG_A} = ''`, ['w04', 'w06', 'w07', 'w09', 'w10']],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids, { collection: words });
    });
  });

  describe('a collection named past 63 bytes, through a back-relation and @collection', () => {
    it.each([
      [`${LONG_TABLE}_via_post.word ?= 'apple'`, ['p1']],
      [`${LONG_TABLE}_via_post.word ?~ 'ANA'`, ['p1', 'p2']],
      [`${LONG_TABLE}_via_post.word ~ 'ANA'`, ['p2']],
      [`${LONG_TABLE}_via_post.${LONG_A} ?= 'two'`, ['p1']],
      [`@collection.${LONG_TABLE}.post ?= id && @collection.${LONG_TABLE}.word ?= 'banana'`, ['p2']],
      [`@collection.${LONG_TABLE}:w.post ?= id && @collection.${LONG_TABLE}.word ?= 'banana'`, ['p1', 'p2']],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids);
    });

    it('sorts by the back-relation, NULLs last descending', async () => {
      const got = await bothSorted(`-${LONG_TABLE}_via_post.word,id`);
      expect(got.sqlite).toEqual(['p2', 'p1', 'p3', 'p4']);
      expect(got.postgres).toEqual(got.sqlite);
    });
  });

  describe('strftime()', () => {
    it.each([
      ["strftime('%Y-%m-%d/%H:%M:%S', created) = '2024-01-01/10:00:00'", ['p1']],
      ["strftime('%j', created) = '153'", ['p2']],
      ["strftime('%w', created) = '6'", ['p2', 'p4']],
      ["strftime('%u', created) = '1'", ['p1']],
      ["strftime('%s', created) = '1704103200'", ['p1']],
      ["strftime('%f', created) = '00.000'", ['p1', 'p2', 'p4']],
      ["strftime('%e|%k|%l|%I|%p|%P|%F|%T|%R|%%', created) = ' 1|10|10|10|AM|am|2024-01-01|10:00:00|10:00|%'", ['p1']],
      ["strftime('week %d', created) = 'week 01'", ['p1', 'p2', 'p4']],
      ["strftime('x', created) = 'x'", ['p1', 'p2', 'p4']],
      ["strftime('%Y', created, '+1 year') = '2025'", ['p1', 'p2']],
      ["strftime('%d', created, '+30 days') = '31'", ['p1', 'p4']],
      ["strftime('%H', created, '-10 hours', 'start of day') = '00'", ['p1', 'p2', 'p4']],
      ["strftime('%Y-%m-%d', created, '-1 day', 'start of year') = '2024-01-01'", ['p2']],
      ["strftime('%Y-%m-%d', '2024-01-31', '+1 month') = '2024-03-02'", ALL],
      ["strftime('%Y-%m-%d', '2024-02-30') = '2024-03-01'", ALL],
      ["strftime('%H:%M', '2024-01-01T10:00:00+02:00') = '08:00'", ALL],
      ["strftime('%H:%M:%S', '2024-01-01 10:20') = '10:20:00'", ALL],
      ["strftime('%Y-%m-%d', 2460000.5) = '2023-02-25'", ALL],
      ["strftime('%Y', 'garbage') = ''", ALL],
      ["strftime('%Y', '2024-13-01') = null", ALL],
      ["strftime('%Y-%m-%d', '2024-01-01T24:00:00Z') = '2024-01-02'", ALL],
      ["strftime('%Y', '2024-01-01T25:00:00Z') = null", ALL],
      ["strftime('%Y', created) != ''", ['p1', 'p2', 'p4']],
      // out of years 0001-9999: NULL, never an error
      ["strftime('%Y', created, '+99999999 days') = null", ALL],
      ["strftime('%Y', created, '-1e300 seconds') = null", ALL],
      ["strftime('%Y', created, '+999999999 years') = null", ALL],
      ["strftime('%Y', 99999999999999999999) = null", ALL],
      ["strftime('%Y', created, '+1e999 days') = null", ALL],
      ["strftime('%Y', created, '+1 day', '+1 day', '+1 day', '+1 day', '+1 day', '+1 day', '+1 day', '+1 day') = '2024'", ['p1', 'p2']],
      ["strftime('%m', created) > '03'", ['p2']],
    ])('%s', async (src, ids) => {
      await expectSame(src, ids);
    });

    it.each([
      ["strftime('%W', created) = '01'", 'strftime(): format "%W" is not supported on PostgreSQL at character 1'],
      ["strftime('%Y', created, 'weekday 0') = '2024'", 'strftime(): modifier "weekday 0" is not supported on PostgreSQL at character 1'],
      ["strftime('%Y', created, '+1.5 months') = '2024'", 'strftime(): modifier "+1.5 months" is not supported on PostgreSQL at character 1'],
    ])('refuses on PostgreSQL what it cannot write with the same meaning: %s', (src, message) => {
      expect(() => compileFilter(src, context(options({ dialect: POSTGRES })))).toThrow(FilterError);
      expect(() => compileFilter(src, context(options({ dialect: POSTGRES })))).toThrow(message);
      expect(() => compileFilter(src, context(options({})))).not.toThrow();
    });
  });

  describe('sorts', () => {
    it.each(SORT_CASES)('%j', async (src, ids, extra) => {
      const got = await bothSorted(src, { request: guest(), ...extra });
      expect(got.sqlite, 'sql.js').toEqual(ids);
      expect(got.postgres, 'PostgreSQL').toEqual(ids);
    });

    it.each([
      // byte order: upper case, then lower case, then non-ASCII letters; '' first
      ['word', ['w09', 'w02', 'w06', 'w01', 'w10', 'w03', 'w05', 'w04', 'w08', 'w07']],
      ['-word', ['w07', 'w08', 'w04', 'w05', 'w03', 'w10', 'w01', 'w06', 'w02', 'w09']],
      ['word:lower,id', ['w09', 'w01', 'w10', 'w02', 'w03', 'w05', 'w06', 'w04', 'w08', 'w07']],
      // JSON: NULLs first ascending, then numbers (true as 1), then texts, as SQLite orders json_extract
      ['meta.rank,id', ['w03', 'w05', 'w08', 'w10', 'w06', 'w04', 'w01', 'w07', 'w09', 'w02']],
      ['-meta.rank,id', ['w02', 'w09', 'w07', 'w01', 'w04', 'w06', 'w10', 'w03', 'w05', 'w08']],
      [`-${LONG_B},id`, ['w10', 'w06', 'w09', 'w07', 'w08', 'w02', 'w03', 'w01', 'w04', 'w05']],
      [`${LONG_A},-word`, ['w04', 'w07', 'w03', 'w10', 'w01', 'w08', 'w06', 'w05', 'w02', 'w09']],
      ['flags:length,-id', ['w08', 'w06', 'w03', 'w09', 'w07', 'w04', 'w01', 'w05', 'w02', 'w10']],
      ['-@rowid', ['w10', 'w09', 'w08', 'w07', 'w06', 'w05', 'w04', 'w03', 'w02', 'w01']],
    ])('%s', async (src, ids) => {
      const got = await bothSorted(src, { collection: words });
      expect(got.sqlite, 'sql.js').toEqual(ids);
      expect(got.postgres, 'PostgreSQL').toEqual(ids);
    });

    it('sorts NULLs first ascending and last descending (posts without an author)', async () => {
      const asc = await bothSorted('author.name,id');
      expect(asc.sqlite).toEqual(['p3', 'p1', 'p4', 'p2']);
      expect(asc.postgres).toEqual(asc.sqlite);
      const desc = await bothSorted('-author.name,id');
      expect(desc.sqlite).toEqual(['p2', 'p1', 'p4', 'p3']);
      expect(desc.postgres).toEqual(desc.sqlite);
    });
  });

  it('a blank rule is true on both', async () => {
    expect(await both('')).toEqual({ sqlite: ALL, postgres: ALL });
  });
});
