// Columns, toStored / fromStored, through a real sql.js table (server/core/fields/spec.ts storage conventions).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeMulti } from '../../server/core/fields/multi-value.js';
import { specFor } from '../../server/core/fields/index.js';
import type { Field, SqlValue } from '../../server/model/types.js';
import { openStore, type Store } from '../../server/store/db.js';

const base = { system: false, hidden: false, presentable: false, required: false };
const fields: Field[] = [
  { ...base, id: 'f_pk', name: 'id', type: 'text', min: 15, max: 15, pattern: '^[a-z0-9]+$', autogeneratePattern: '[a-z0-9]{15}', primaryKey: true, required: true },
  { ...base, id: 'f_text', name: 'title', type: 'text', min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false },
  { ...base, id: 'f_editor', name: 'body', type: 'editor', maxSize: 0, convertURLs: false },
  { ...base, id: 'f_num', name: 'total', type: 'number', min: null, max: null, onlyInt: false },
  { ...base, id: 'f_bool', name: 'active', type: 'bool' },
  { ...base, id: 'f_email', name: 'contact', type: 'email', exceptDomains: [], onlyDomains: [] },
  { ...base, id: 'f_url', name: 'site', type: 'url', exceptDomains: [], onlyDomains: [] },
  { ...base, id: 'f_date', name: 'due', type: 'date', min: '', max: '' },
  { ...base, id: 'f_auto', name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
  { ...base, id: 'f_sel', name: 'status', type: 'select', values: ['a', 'b'], maxSelect: 1 },
  { ...base, id: 'f_sels', name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
  { ...base, id: 'f_rel', name: 'author', type: 'relation', collectionId: 'users', cascadeDelete: false, minSelect: 0, maxSelect: 1 },
  { ...base, id: 'f_rels', name: 'readers', type: 'relation', collectionId: 'users', cascadeDelete: false, minSelect: 0, maxSelect: 9 },
  { ...base, id: 'f_json', name: 'meta', type: 'json', maxSize: 0 },
  { ...base, id: 'f_pass', name: 'secret', type: 'password', min: 0, max: 0, pattern: '', cost: 0 },
  { ...base, id: 'f_geo', name: 'place', type: 'geoPoint' },
];
const byName = (name: string): Field => fields.find((f) => f.name === name) as Field;

let store: Store;
beforeAll(async () => {
  store = await openStore({ dir: null });
  const columns = fields.map((f) => `"${f.name}" ${specFor(f).column(f)}`).join(', ');
  await store.write((tx) => tx.run(`CREATE TABLE "t" (${columns})`));
});
afterAll(async () => store.close());

let rowCount = 0;
/** Inserts one value through toStored and reads it back through fromStored. */
async function roundTrip(name: string, value: unknown): Promise<{ stored: SqlValue; api: unknown }> {
  const field = byName(name);
  const id = `row${String(++rowCount).padStart(12, '0')}`;
  const stored = specFor(field).toStored(value, field);
  await store.write((tx) => tx.run(`INSERT INTO "t" ("id", "${name}") VALUES (?, ?)`, [id, stored]));
  const row = await store.get<Record<string, SqlValue>>(`SELECT "${name}" AS v FROM "t" WHERE "id" = ?`, [id]);
  return { stored, api: specFor(field).fromStored(row?.v ?? null, field) };
}

describe('column definitions', () => {
  it.each<[string, string]>([
    ['id', 'TEXT PRIMARY KEY NOT NULL'],
    ['title', "TEXT DEFAULT '' NOT NULL"],
    ['total', 'NUMERIC DEFAULT 0 NOT NULL'],
    ['active', 'BOOLEAN DEFAULT FALSE NOT NULL'],
    ['status', "TEXT DEFAULT '' NOT NULL"],
    ['tags', "JSON DEFAULT '[]' NOT NULL"],
    ['readers', "JSON DEFAULT '[]' NOT NULL"],
    ['meta', 'JSON DEFAULT NULL'],
    ['place', `JSON DEFAULT '{"lon":0,"lat":0}' NOT NULL`],
  ])('%s → %s', (name, column) => {
    const field = byName(name);
    expect(specFor(field).column(field)).toBe(column);
  });

  it('gives every column a default that reads back as the zero value', async () => {
    await store.write((tx) => tx.run('INSERT INTO "t" ("id") VALUES (?)', ['defaults0000001']));
    const row = (await store.get<Record<string, SqlValue>>('SELECT * FROM "t" WHERE "id" = ?', ['defaults0000001'])) ?? {};
    for (const field of fields.filter((f) => f.name !== 'id' && f.type !== 'password')) {
      expect([field.name, specFor(field).fromStored(row[field.name], field)]).toEqual([field.name, specFor(field).zero(field)]);
    }
  });
});

describe('toStored / fromStored', () => {
  it.each<[string, unknown, SqlValue, unknown]>([
    ['title', 'hello', 'hello', 'hello'],
    ['body', '<p>é</p>', '<p>é</p>', '<p>é</p>'],
    ['total', 1.25, 1.25, 1.25],
    ['total', -0, 0, 0],
    ['total', 0, 0, 0],
    ['total', 1e21, 1e21, 1e21],
    ['active', true, 1, true],
    ['active', false, 0, false],
    ['contact', 'a@b.co', 'a@b.co', 'a@b.co'],
    ['site', 'https://x.io', 'https://x.io', 'https://x.io'],
    ['due', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05.678Z'],
    ['due', '', '', ''],
    ['created', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05.678Z'],
    ['status', 'a', 'a', 'a'],
    ['status', '', '', ''],
    ['tags', ['b', 'a'], '["b","a"]', ['b', 'a']],
    ['tags', [], '[]', []],
    ['author', 'u1', 'u1', 'u1'],
    ['readers', ['u1', 'u2'], '["u1","u2"]', ['u1', 'u2']],
    ['meta', { a: [1, 'x'] }, '{"a":[1,"x"]}', { a: [1, 'x'] }],
    ['meta', 'plain', '"plain"', 'plain'],
    ['meta', '123', '"123"', '123'],
    ['meta', '', '""', ''],
    ['meta', 0, '0', 0],
    ['meta', false, 'false', false],
    ['meta', null, null, null],
    ['secret', 'scrypt$hash', 'scrypt$hash', ''],
    ['place', { lon: 1.5, lat: -2 }, '{"lon":1.5,"lat":-2}', { lon: 1.5, lat: -2 }],
  ])('%s: %j → stored %j → %j', async (name, value, stored, api) => {
    expect(await roundTrip(name, value)).toEqual({ stored, api });
  });
});

describe('fromStored of values written outside the API', () => {
  it.each<[string, SqlValue, unknown]>([
    ['total', null, 0],
    ['total', 'abc', 0],
    ['active', '1', true],
    ['active', null, false],
    ['title', null, ''],
    ['due', '2024-01-02 03:04:05.678Z', '2024-01-02T03:04:05.678Z'],
    ['status', '["a","b"]', 'b'],
    ['tags', 'a', ['a']],
    ['tags', '', []],
    ['meta', 'not json', 'not json'],
    ['meta', 'null', null],
    ['place', 'garbage', { lon: 0, lat: 0 }],
  ])('%s: %j → %j', (name, stored, api) => {
    const field = byName(name);
    expect(specFor(field).fromStored(stored, field)).toEqual(api);
  });

  it('select and relation values read back as their normalisation gives them, whatever was stored', () => {
    // the read path skips normalizeMulti's copies for the values the write funnel stores
    // items with what JSON escapes or refuses raw (a backslash, quotes, control characters) and what ends an item
    const item = fc.constantFrom('a', 'b', '', 'x[y', '"q"', 'a\\b', 'a\nb', '\u0000', 'a,b', 'a]', '\ud800');
    const stored = fc.oneof(
      item,
      fc.array(item, { maxLength: 5 }).map((a) => JSON.stringify(a)),
      fc.constantFrom('[', '[1,2]', ' ["a"]', '["a",null]', '[]', 'null', '{"a":1}', '["a","b"]x', '["a",]', '["a" ,"b"]', '["a"]]', '["\\u0061"]', '["a\tb"]', '["a', '[""]', '["a","a"]'),
      fc.constant(null),
      fc.integer(),
    );
    fc.assert(
      fc.property(stored, fc.constantFrom('status', 'tags', 'author', 'readers'), (value, name) => {
        const field = byName(name) as Field & { maxSelect: number };
        expect(specFor(field).fromStored(value, field)).toEqual(normalizeMulti(value, field));
      }),
      { numRuns: 400 },
    );
  });
});
