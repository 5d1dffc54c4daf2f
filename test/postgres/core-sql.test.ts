// Core's own SQL (server/core/: collection tables, their rebuilds and renames, indexes, upserts, the
// case-insensitive e-mail, list pages, rule row sources, sessions, the collections list, JSON list
// items) as core builds it through the PostgreSQL dialect, run on a real PostgreSQL 15. The statements
// go through `POSTGRES.statement()` as the PostgreSQL store sends them; `pgTx` stands where that store
// will stand (server/store/postgres/, another part of issue 25): postgres.js on a fresh database, one
// transaction per `write`, and a unique violation turned into the contract's `storeFailure`.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { POSTGRES, postgresName } from '../../server/filter/dialect.js';
import type { ReadDb, Store, WriteTx } from '../../server/store/db.js';
import type { StoreFailure } from '../../server/store/contract.js';
import { changeTable, createCollectionTable, dropIndexes, saveDefinition } from '../../server/core/collections-ddl.js';
import { listRecords, viewRecord } from '../../server/core/records-read.js';
import { listContext, requestContext } from '../../server/core/request-context.js';
import { ruleWhere } from '../../server/core/access.js';
import { rowSource } from '../../server/core/writes/write-sql.js';
import { uniqueViolationFields } from '../../server/core/writes/validate.js';
import { listCollections } from '../../server/core/collections-list.js';
import { createSessions } from '../../server/core/session-store.js';
import { Registry } from '../../server/core/collection-registry.js';
import { buildCollection } from '../../server/core/collections-input.js';
import { deleteWithReferences } from '../../server/core/writes/cascade.js';
import { mayAccess, subscriberContext } from '../../server/core/realtime/record-access.js';
import { expandRecords } from '../../server/core/expand.js';
import type { RecordChange } from '../../server/core/writes/changes.js';
import { defaults } from '../../server/core/collections-defaults.js';
import { ApiError } from '../../server/errors.js';
import type { Collection, Field, Row, SqlValue } from '../../server/model/types.js';
import { collection } from '../filter/fixtures.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

let pg: FreshDatabase;

type Runner = postgres.Sql | postgres.TransactionSql;

/** A unique violation as the contract says a store reports it (index name as stored, columns from the detail). */
function asStoreError(err: unknown): unknown {
  const e = err as { code?: string; constraint_name?: string; detail?: string; message?: string };
  if (e?.code !== '23505') return err;
  const columns = /^Key \((.+?)\)=/.exec(e.detail ?? '')?.[1].split(', ').map((c) => c.replace(/^"|"$/g, ''));
  const storeFailure: StoreFailure = { kind: 'unique', ...(e.constraint_name === undefined ? {} : { index: e.constraint_name }), ...(columns === undefined ? {} : { columns }) };
  return Object.assign(new Error(e.message, { cause: err }), { storeFailure });
}

function pgTx(sql: Runner): WriteTx {
  const exec = async (text: string, params: readonly unknown[] = []) => {
    try {
      return await sql.unsafe(POSTGRES.statement(text), params as postgres.ParameterOrJSON<never>[]);
    } catch (err) {
      throw asStoreError(err);
    }
  };
  return {
    all: async <T,>(text: string, params?: readonly unknown[]) => [...(await exec(text, params))] as T[],
    get: async <T,>(text: string, params?: readonly unknown[]) => (await exec(text, params))[0] as T | undefined,
    run: async (text: string, params?: readonly unknown[]) => ({ changes: (await exec(text, params)).count }),
  } as WriteTx;
}

/** One transaction, as the store's `write` runs one. */
function write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
  return pg.sql.begin((t) => fn(pgTx(t))) as Promise<T>;
}

const db = (): ReadDb => pgTx(pg.sql);

const people = collection('people', 'auth', [
  { name: 'name', type: 'text' },
  { name: 'score', type: 'number' },
  { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 } as Field,
  { name: 'best', type: 'relation', collectionId: 'c_people', maxSelect: 1 } as Field,
  { name: 'created', type: 'autodate' } as Field,
], { indexes: [{ name: 'idx_people_name', fields: ['f_name'], unique: true }] } as Partial<Collection>);

const indexNames = async (tx: ReadDb, table: string) => (await tx.all<{ name: string }>(POSTGRES.indexNames, [POSTGRES.storedName(table)])).map((r) => r.name).sort();

async function insert(tx: WriteTx, table: string, row: Record<string, unknown>): Promise<void> {
  const cols = Object.keys(row);
  await tx.run(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, cols.map((c) => row[c] as SqlValue));
}

const person = (id: string, email: string, name: string, score: number, tags: string, best = '', created = `2024-01-0${id.slice(-1)} 00:00:00.000Z`) =>
  ({ id, email, name, score, tags, best, created, password: '', emailVisibility: false, verified: false });

describePostgres('core SQL on PostgreSQL', () => {
  beforeAll(async () => {
    pg = await freshDatabase('core_sql');
    // the system tables core writes to, as far as these tests need them (the PostgreSQL store makes the real ones)
    await pg.sql.unsafe(`CREATE TABLE "_collections" ("id" text COLLATE "C" PRIMARY KEY, "name" text COLLATE "C" NOT NULL, "data" text NOT NULL)`);
    await pg.sql.unsafe(`CREATE TABLE "_params" ("key" text COLLATE "C" PRIMARY KEY, "value" text)`);
    await pg.sql.unsafe(`CREATE TABLE "_sessions" ("id" text COLLATE "C" PRIMARY KEY, "collectionId" text NOT NULL, "recordId" text NOT NULL)`);
    await write((tx) => createCollectionTable(POSTGRES, tx, people));
    await write(async (tx) => {
      await insert(tx, 'people', person('p1', 'Alice@Example.com', 'alice', 3, '["a","b"]'));
      await insert(tx, 'people', person('p2', '', 'bob', 1, '[]', 'p1'));
      await insert(tx, 'people', person('p3', 'carol@example.com', 'Carol', 2, '["c"]', 'p1'));
      await insert(tx, 'people', person('p4', '', 'dave', 5, '["b","a","c"]', 'p3'));
    });
  }, 60_000);
  afterAll(async () => {
    await pg?.drop();
  });

  it('makes a collection\'s table with its maintained and own indexes; lists only what CREATE INDEX made', async () => {
    expect(await indexNames(db(), 'people')).toEqual(['_c_people_created_idx', '_c_people_email_idx', 'idx_people_name']);
    // the keys' constraints are named after the table, the identity keeps insertion order
    const constraints = await pg.sql`SELECT conname FROM pg_constraint WHERE conrelid = CAST('"people"' AS regclass) AND contype IN ('p', 'u') ORDER BY conname`;
    expect(constraints.map((r) => r.conname)).toEqual(['people_pkey', 'people_rowid_key']);
  });

  it('keeps e-mails unique ignoring ASCII case only (SQLite\'s NOCASE), finds them so at sign-in, through the index', async () => {
    const dup = await write((tx) => insert(tx, 'people', person('p9', 'ALICE@example.COM', 'alice2', 0, '[]'))).catch((e: unknown) => e);
    expect(uniqueViolationFields(people, dup, POSTGRES.storedName)).toEqual(['email']);
    // a unique user index and the primary key name their fields too
    const byName = await write((tx) => insert(tx, 'people', person('p9', 'z@x.io', 'alice', 0, '[]'))).catch((e: unknown) => e);
    expect(uniqueViolationFields(people, byName, POSTGRES.storedName)).toEqual(['name']);
    const byId = await write((tx) => insert(tx, 'people', person('p1', 'y@x.io', 'someone', 0, '[]'))).catch((e: unknown) => e);
    expect(uniqueViolationFields(people, byId, POSTGRES.storedName)).toEqual(['id']);
    // non-ASCII letters are not folded, as on SQLite; empty e-mails never collide
    await write(async (tx) => {
      await insert(tx, 'people', person('p5', 'élan@x.io', 'e1', 0, '[]'));
      await insert(tx, 'people', person('p6', 'Élan@x.io', 'e2', 0, '[]'));
      await insert(tx, 'people', person('p7', '', 'e3', 0, '[]'));
    });
    const find = (email: string) => db().get<{ id: string }>(`SELECT "id" FROM "people" WHERE ${POSTGRES.equalsNoCase('"email"')} LIMIT 1`, [email]);
    expect((await find('alice@EXAMPLE.com'))?.id).toBe('p1');
    expect((await find('ÉLAN@x.io'))?.id).toBe('p6');
    expect(await find('ALICE@EXAMPLE.COM ')).toBeUndefined();
    const plan = await pg.sql.begin(async (t) => {
      await t.unsafe('SET LOCAL enable_seqscan = off');
      return t.unsafe(POSTGRES.statement(`EXPLAIN SELECT "id" FROM "people" WHERE ${POSTGRES.equalsNoCase('"email"')} LIMIT 1`), ['a@b.c']);
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('_c_people_email_idx');
    await write((tx) => tx.run(`DELETE FROM "people" WHERE "id" IN ('p5', 'p6', 'p7')`));
  });

  it('lists a page under rules, filter and sort; counts; views a record', async () => {
    const lookup = (idOrName: string) => (idOrName === people.id || idOrName === people.name ? people : undefined);
    const ctx = (query: Record<string, string>) => listContext({ auth: null, method: 'GET', query, headers: [] }, lookup, POSTGRES);
    const page = await listRecords(db(), people, ctx({ filter: 'score > 1 && tags ~ "a"', sort: '-score', page: '2', perPage: '1' }));
    expect(page.items.map((r) => r.id)).toEqual(['p1']);
    expect(page.totalItems).toBe(2);
    // no sort: -created, by the maintained index's column
    const all = await listRecords(db(), people, ctx({ page: '2', perPage: '2' }));
    expect(all.items.map((r) => r.id)).toEqual(['p2', 'p1']);
    expect(all.totalItems).toBe(4);
    // a back-relation and a relation path
    const related = await listRecords(db(), people, ctx({ filter: 'people_via_best.name ?= "bob" || best.name = "Carol"', sort: 'name' }));
    expect(related.items.map((r) => r.id)).toEqual(['p1', 'p4']);
    const one = await viewRecord(db(), people, 'p3', requestContext({ auth: null, method: 'GET', query: {}, headers: [] }, lookup, POSTGRES));
    expect(one.name).toBe('Carol');
  });

  it('checks a create rule over the submitted values as a typed one-row table', async () => {
    const ruled = { ...people, createRule: 'score > 2 && verified = false && name != "" && tags:length > 1' };
    const ctx = requestContext({ auth: null, method: 'POST', query: {}, headers: [] }, () => ruled, POSTGRES);
    const passes = async (values: Record<string, unknown>) => {
      const w = ruleWhere(ruled, 'createRule', ctx);
      const src = rowSource(POSTGRES, ruled, values, w);
      return (await db().get(`SELECT 1 AS ok FROM ${src.sql} AS r WHERE ${w.sql} LIMIT 1`, [...src.params, ...w.params])) !== undefined;
    };
    expect(await passes({ id: 'n1', score: 3, verified: false, name: 'x', tags: ['a', 'b'] })).toBe(true);
    expect(await passes({ id: 'n1', score: 2, verified: false, name: 'x', tags: ['a', 'b'] })).toBe(false);
    expect(await passes({ id: 'n1', score: 3, verified: true, name: 'x', tags: ['a', 'b'] })).toBe(false);
    expect(await passes({ id: 'n1', score: 3, verified: false, name: 'x', tags: ['a'] })).toBe(false);
  });

  it('checks a realtime event\'s row (as the store read it, booleans included) under the rule and filter', async () => {
    const ruled = { ...people, listRule: 'verified = true && score >= 2' };
    const ctx = subscriberContext(null, { query: { filter: 'name != ""' }, headers: {}, key: '' }, () => ruled, POSTGRES);
    const row = (verified: boolean | number, score: number): Row => ({ id: 'p1', name: 'alice', email: '', emailVisibility: false, verified, score, tags: '[]', best: '', created: '', password: '' }) as unknown as Row;
    expect(await mayAccess(db(), ruled, 'listRule', ctx, row(true, 3))).toBe(true);
    expect(await mayAccess(db(), ruled, 'listRule', ctx, row(1, 3))).toBe(true);
    expect(await mayAccess(db(), ruled, 'listRule', ctx, row(false, 3))).toBe(false);
    expect(await mayAccess(db(), ruled, 'listRule', ctx, row(0, 3))).toBe(false);
    expect(await mayAccess(db(), ruled, 'listRule', ctx, row(true, 1))).toBe(false);
  });

  it('reads JSON lists\' items as expand and cascade do (json_each.value)', async () => {
    const holding = await db().all<{ id: string }>(`SELECT r."id" AS id FROM "people" AS r WHERE EXISTS (SELECT 1 FROM ${POSTGRES.jsonItems('r."tags"')} WHERE json_each.value IN (?, ?))${POSTGRES.rowOrder('r')}`, ['c', 'x']);
    expect(holding.map((r) => r.id)).toEqual(['p3', 'p4']);
    const pairs = await db().all<{ id: string; ref: string }>(`SELECT t."id" AS id, json_each.value AS ref FROM "people" AS t, ${POSTGRES.jsonItems('t."tags"')}${POSTGRES.rowOrder('t')}`);
    expect(pairs.map((p) => `${p.id}:${p.ref}`)).toEqual(['p1:a', 'p1:b', 'p3:c', 'p4:b', 'p4:a', 'p4:c']);
  });

  it('rebuilds a table for new fields keeping rows, their order and values; renames; reuses names', async () => {
    const before = await db().all<{ id: string; _rowid_: string }>(`SELECT "id", "_rowid_" FROM "people" ORDER BY "_rowid_"`);
    const next: Collection = {
      ...people,
      name: 'members',
      fields: people.fields.map((f) => (f.name === 'tags' ? { ...f, maxSelect: 1 } : f.name === 'best' ? { ...f, maxSelect: 5 } : f)).concat([{ id: 'f_nick', name: 'nick', type: 'text', system: false, hidden: false, presentable: false } as Field]),
    };
    await write((tx) => changeTable(POSTGRES, tx, people, next));
    const rows = await db().all<Row>(`SELECT "id", "_rowid_", "tags", "best", "nick" FROM "members" ORDER BY "_rowid_"`);
    expect(rows.map((r) => [r.id, r._rowid_])).toEqual(before.map((r) => [r.id, r._rowid_]));
    // multiple → single keeps the last item, single → multiple makes a one-item list
    expect(rows.map((r) => [r.tags, r.best, r.nick])).toEqual([['b', '[]', ''], ['', '["p1"]', ''], ['c', '["p1"]', ''], ['c', '["p3"]', '']]);
    expect(await indexNames(db(), 'members')).toEqual(['_c_people_created_idx', '_c_people_email_idx', 'idx_people_name']);
    // rows inserted after the rebuild come after the carried ones
    await write((tx) => insert(tx, 'members', { id: 'p8', email: '', name: 'erin', created: '2024-02-01 00:00:00.000Z' }));
    const last = await db().get<{ id: string }>(`SELECT "id" FROM "members" ORDER BY "_rowid_" DESC LIMIT 1`);
    expect(last?.id).toBe('p8');
    // a second rebuild (its temporary table's names again) and a plain rename
    const again: Collection = { ...next, fields: next.fields.filter((f) => f.name !== 'nick') };
    await write((tx) => changeTable(POSTGRES, tx, next, again));
    await write((tx) => changeTable(POSTGRES, tx, again, { ...again, name: 'crew' }));
    expect((await db().all<{ id: string }>(`SELECT "id" FROM "crew" ORDER BY "_rowid_"`)).map((r) => r.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p8']);
    // a new collection may take the old name: nothing named after it was left behind
    const other = collection('people', 'base', [{ name: 'title', type: 'text' }], { id: 'c_other' } as Partial<Collection>);
    await write((tx) => createCollectionTable(POSTGRES, tx, other));
    await write((tx) => dropIndexes(POSTGRES, tx, 'crew'));
    expect(await indexNames(db(), 'crew')).toEqual([]);
  });

  it('shortens names past 63 bytes the same way in the DDL and in statements', async () => {
    const long = collection('a_collection_whose_name_is_much_longer_than_postgresql_keeps_xyz', 'base', [{ name: 'a_field_whose_name_is_much_longer_than_postgresql_keeps_abc', type: 'text' }]);
    await write((tx) => createCollectionTable(POSTGRES, tx, long));
    await write((tx) => changeTable(POSTGRES, tx, long, { ...long, fields: [...long.fields, { id: 'f_n', name: 'n', type: 'number', system: false, hidden: false, presentable: false } as Field] }));
    await write((tx) => insert(tx, long.name, { id: 'l1', [long.fields[1].name]: 'x', n: 2 }));
    const row = await db().get<Row>(`SELECT * FROM "${long.name}"`);
    expect(row?.[postgresName(long.fields[1].name)]).toBe('x');
  });

  it('upserts definitions and parameters', async () => {
    const c = { ...people, listRule: 'x' };
    await write((tx) => saveDefinition(POSTGRES, tx, c));
    await write((tx) => saveDefinition(POSTGRES, tx, { ...c, listRule: 'y' }));
    const stored = await db().all<{ data: string }>(`SELECT "data" FROM "_collections" WHERE "id" = ?`, [c.id]);
    expect(stored.map((r) => JSON.parse(r.data).listRule)).toEqual(['y']);
    await write((tx) => tx.run(POSTGRES.upsert('_params', ['key', 'value'], ['key']), ['usersCreated', 'true']));
    await write((tx) => tx.run(POSTGRES.upsert('_params', ['key', 'value'], ['key']), ['usersCreated', 'again']));
    expect(await db().all(`SELECT "key", "value" FROM "_params"`)).toEqual([{ key: 'usersCreated', value: 'again' }]);
  });

  it('lists collections with a filter and sort over their stored definitions', async () => {
    const a = collection('zeta', 'base', [], { id: 'c_zeta', system: true, created: '2024-01-02' } as Partial<Collection>);
    const b = collection('_alpha', 'base', [], { id: 'c_alpha', created: '2024-01-01' } as Partial<Collection>);
    const d = collection('Beta', 'auth', [], { id: 'c_beta', created: '2024-01-03' } as Partial<Collection>);
    await write(async (tx) => {
      await tx.run(`DELETE FROM "_collections"`);
      for (const c of [a, b, d]) await saveDefinition(POSTGRES, tx, c);
    });
    const byId = new Map([a, b, d].map((c) => [c.id, c]));
    const list = (query: Record<string, string>) => listCollections(db(), listContext({ auth: null, method: 'GET', query, headers: [] }, (id) => byId.get(id), POSTGRES));
    // byte order: 'B' < '_' < 'z'; system first by default
    expect((await list({ sort: 'name' })).items.map((c) => c.name)).toEqual(['Beta', '_alpha', 'zeta']);
    expect((await list({})).items.map((c) => c.name)).toEqual(['zeta', '_alpha', 'Beta']);
    expect((await list({ filter: 'system = false && type = "base"' })).items.map((c) => c.name)).toEqual(['_alpha']);
    expect((await list({ filter: 'system = true', page: '2', perPage: '1' })).totalItems).toBe(1);
  });

  it('signs a record\'s other sessions out, keeping the caller\'s or none', async () => {
    const sessions = createSessions({ dialect: 'postgres' } as Store, new Registry());
    await write(async (tx) => {
      for (const id of ['s1', 's2', 's3']) await tx.run(`INSERT INTO "_sessions" ("id", "collectionId", "recordId") VALUES (?, 'c', 'r')`, [id]);
      await tx.run(`INSERT INTO "_sessions" ("id", "collectionId", "recordId") VALUES ('s4', 'c', 'other')`);
    });
    await write((tx) => sessions.endOthers(tx, 'c', 'r', 's2'));
    expect((await db().all<{ id: string }>(`SELECT "id" FROM "_sessions" ORDER BY "id"`)).map((r) => r.id)).toEqual(['s2', 's4']);
    await write((tx) => sessions.endOthers(tx, 'c', 'r', null));
    expect((await db().all<{ id: string }>(`SELECT "id" FROM "_sessions" ORDER BY "id"`)).map((r) => r.id)).toEqual(['s4']);
  });

  it('cascades a delete and clears references, in insertion order, and expands back-relations', async () => {
    const authors = collection('authors', 'base', [{ name: 'name', type: 'text' }]);
    const books = collection('books', 'base', [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', collectionId: 'c_authors', maxSelect: 1, cascadeDelete: true } as Field,
      { name: 'fans', type: 'relation', collectionId: 'c_authors', maxSelect: 9, cascadeDelete: false } as Field,
    ]);
    const registry = new Registry();
    for (const c of [authors, books]) registry.put(c);
    await write(async (tx) => {
      for (const c of [authors, books]) await createCollectionTable(POSTGRES, tx, c);
      for (const [id, name] of [['a1', 'Ann'], ['a2', 'Ben']]) await insert(tx, 'authors', { id, name });
      await insert(tx, 'books', { id: 'b3', title: 'third', author: 'a2', fans: '["a1","a2"]' });
      await insert(tx, 'books', { id: 'b1', title: 'first', author: 'a1', fans: '["a2"]' });
      await insert(tx, 'books', { id: 'b2', title: 'second', author: 'a1', fans: '[]' });
    });
    // an updated row moves to the end of PostgreSQL's heap: only ORDER BY "_rowid_" keeps insertion order
    await write((tx) => tx.run(`UPDATE "books" SET "title" = 'first!' WHERE "id" = 'b1'`));
    const ctx = requestContext({ auth: null, method: 'GET', query: { expand: 'books_via_author,books_via_fans' }, headers: [] }, registry.lookup, POSTGRES);
    const [ann] = await expandRecords(db(), authors, [{ id: 'a1', name: 'Ann' }], ctx);
    const expanded = ann.expand as Record<string, { id: string }[]>;
    expect(expanded.books_via_author.map((b) => b.id)).toEqual(['b1', 'b2']);
    expect(expanded.books_via_fans.map((b) => b.id)).toEqual(['b3']);
    const changes: RecordChange[] = [];
    const sessions = createSessions({ dialect: 'postgres' } as Store, registry);
    await write(async (tx) => deleteWithReferences(POSTGRES, tx, registry, sessions, authors, { id: 'a1', name: 'Ann' }, changes));
    // b1 and b2 (author a1) are deleted in insertion order; b3 keeps its other fan
    expect(changes.map((c) => `${c.action} ${c.collection.name} ${String((c.before ?? c.after)?.id)}`)).toEqual(['delete authors a1', 'delete books b1', 'delete books b2', 'update books b3']);
    expect(await db().all(`SELECT "id", "fans" FROM "books"`)).toEqual([{ id: 'b3', fans: '["a2"]' }]);
    // a second delete asks through the index of referrers (one scan of the JSON lists)
    await write(async (tx) => {
      const walk: RecordChange[] = [];
      await deleteWithReferences(POSTGRES, tx, registry, sessions, authors, { id: 'a2', name: 'Ben' }, walk);
      expect(walk.map((c) => `${c.action} ${c.collection.name} ${String((c.before ?? c.after)?.id)}`)).toEqual(['delete authors a2', 'delete books b3']);
    });
  });

  it('refuses, when a collection is saved, a rule PostgreSQL cannot run', async () => {
    const input = { name: 'weekly', type: 'base', fields: [{ name: 'created', type: 'autodate', onCreate: true }], listRule: "strftime('%W', created) = '01'" };
    const ctx = { lookup: () => undefined, allCollections: () => [], dialect: POSTGRES };
    const refused = await buildCollection(input, ctx, defaults, '2024-01-01 00:00:00.000Z').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(JSON.stringify((refused as ApiError).data.listRule)).toContain('format \\"%W\\" is not supported on PostgreSQL');
    // the same rule on SQLite is saved
    const { dialect: _pg, ...sqlite } = ctx;
    expect((await buildCollection(input, sqlite, defaults, '2024-01-01 00:00:00.000Z')).listRule).toBe(input.listRule);
  });
});
