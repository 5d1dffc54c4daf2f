// The indexes Deskbase keeps by itself: the one on `created` that every default-sorted list needs (and
// the unique email index of auth collections). They follow the table through every schema change in
// the same transaction, show as `maintainedIndexes` beside (never inside) the user's `indexes`, and
// data folders made before they existed get them on start.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../server/core/index.js';
import { openStore, type ReadDb, type Store } from '../../server/store/db.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { harness, type Harness } from '../support/harness.js';
import { freshDatabase } from '../support/pg-database.js';
import { TEST_ENGINE } from '../support/test-store.js';

let h: Harness;
let su: string;
beforeEach(async () => {
  h = await harness();
  su = await h.superuser();
});
afterEach(() => h.close());

/** The indexes the engine holds for a table, by name, with their SQL (automatic ones and keys left out). */
async function tableIndexes(db: ReadDb, table: string): Promise<Record<string, string>> {
  const rows = TEST_ENGINE === 'sqlite'
    ? await db.all<{ name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, [table])
    : await db.all<{ name: string; sql: string }>(`SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname NOT IN (SELECT conname FROM pg_constraint)`, [table]);
  return Object.fromEntries(rows.map((r) => [r.name, r.sql]));
}

/** Whether an index of that name exists anywhere in the database. */
async function indexExists(db: ReadDb, name: string): Promise<boolean> {
  const sql = TEST_ENGINE === 'sqlite' ? `SELECT name FROM sqlite_master WHERE name = ?` : `SELECT indexname AS name FROM pg_indexes WHERE indexname = ?`;
  return (await db.all(sql, [name])).length > 0;
}

/**
 * The engine's plan for the key query of a default-sorted list page. On PostgreSQL with sequential
 * scans off: its planner scans a table of a few rows whatever the indexes, so the question is whether
 * the index can serve the order at all.
 */
async function defaultListPlan(db: Store, table: string): Promise<string> {
  // PostgreSQL's descending order as the dialect writes it: NULLs last, as SQLite sorts them
  const desc = TEST_ENGINE === 'sqlite' ? 'DESC' : 'DESC NULLS LAST';
  const query = `SELECT r._rowid_ FROM "${table}" AS r ORDER BY r."created" ${desc}, r._rowid_ ${desc} LIMIT 30`;
  if (TEST_ENGINE === 'sqlite') return (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`)).map((r) => r.detail).join('; ');
  return db.write(async (tx) => {
    await tx.run('SET LOCAL enable_seqscan = off');
    return (await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${query}`)).map((r) => r['QUERY PLAN']).join('; ');
  });
}

/** A plan that sorts every row: SQLite's temporary b-tree, PostgreSQL's (not incremental) Sort. */
const FULL_SORT = TEST_ENGINE === 'sqlite' ? /TEMP B-TREE/ : /(^|->\s*)Sort\b/;

async function createPosts(extra: Record<string, unknown> = {}) {
  const r = await h.req('POST', '/api/collections', { token: su, body: { name: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'created', type: 'autodate', onCreate: true }], ...extra } });
  expect(r.status, r.text).toBe(200);
  return r.body as { id: string; fields: { id: string; name: string }[]; indexes: unknown[]; maintainedIndexes: { name: string; fields: string[]; unique: boolean; purpose: string }[] };
}

const fieldId = (c: { fields: { id: string; name: string }[] }, name: string) => c.fields.find((f) => f.name === name)!.id;

describe('the index on created', () => {
  it('is made with the collection, serves the default sort, and is reported beside the user indexes, not among them', async () => {
    const posts = await createPosts();
    const name = `_${posts.id}_created_idx`;
    expect(posts.indexes).toEqual([]);
    expect(posts.maintainedIndexes).toEqual([{ name, fields: [fieldId(posts, 'created')], unique: false, purpose: 'defaultSort' }]);
    expect(Object.keys(await tableIndexes(h.core.store, 'posts'))).toEqual([name]);
    expect(await defaultListPlan(h.core.store, 'posts')).toContain(name);
    expect(await defaultListPlan(h.core.store, 'posts')).not.toMatch(FULL_SORT);
    const got = await h.req('GET', '/api/collections/posts', { token: su });
    expect(got.body.maintainedIndexes).toEqual(posts.maintainedIndexes);
    const listed = await h.req('GET', '/api/collections?filter=name="posts"', { token: su });
    expect(listed.body.items[0].maintainedIndexes).toEqual(posts.maintainedIndexes);
  });

  it('auth collections keep their unique email index too', async () => {
    const users = (await h.req('GET', '/api/collections/users', { token: su })).body;
    expect(users.maintainedIndexes.map((i: { purpose: string; unique: boolean }) => [i.purpose, i.unique])).toEqual([['email', true], ['defaultSort', false]]);
    expect(Object.keys(await tableIndexes(h.core.store, 'users')).sort()).toEqual(users.maintainedIndexes.map((i: { name: string }) => i.name).sort());
  });

  it('is not made when a user index already starts with created, and comes back when that index goes', async () => {
    const posts = await createPosts();
    const created = fieldId(posts, 'created');
    const withUser = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name: 'idx_posts_created', fields: [created, fieldId(posts, 'title')] }] } });
    expect(withUser.body.maintainedIndexes).toEqual([]);
    expect(Object.keys(await tableIndexes(h.core.store, 'posts'))).toEqual(['idx_posts_created']);
    expect(await defaultListPlan(h.core.store, 'posts')).toContain('idx_posts_created');
    const without = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [] } });
    expect(without.body.maintainedIndexes.map((i: { name: string }) => i.name)).toEqual([`_${posts.id}_created_idx`]);
    expect(Object.keys(await tableIndexes(h.core.store, 'posts'))).toEqual([`_${posts.id}_created_idx`]);
  });

  it('follows renames of the collection and of fields, goes with the created field, and comes with a new one', async () => {
    const posts = await createPosts();
    const name = `_${posts.id}_created_idx`;
    await h.req('PATCH', '/api/collections/posts', { token: su, body: { name: 'articles' } });
    expect((await tableIndexes(h.core.store, 'articles'))[name]).toMatch(TEST_ENGINE === 'sqlite' ? /"articles" \("created"\)/ : /ON (public\.)?articles USING btree \(created NULLS FIRST\)/);
    // renaming another field rebuilds the table: the index is made again on the new one
    const renamed = posts.fields.map((f) => (f.name === 'title' ? { ...f, name: 'heading' } : f));
    expect((await h.req('PATCH', '/api/collections/articles', { token: su, body: { fields: renamed } })).status).toBe(200);
    expect(Object.keys(await tableIndexes(h.core.store, 'articles'))).toEqual([name]);
    // `created` renamed: lists no longer sort by it, so the index goes
    const noCreated = renamed.map((f) => (f.name === 'created' ? { ...f, name: 'made' } : f));
    const r1 = await h.req('PATCH', '/api/collections/articles', { token: su, body: { fields: noCreated } });
    expect(r1.body.maintainedIndexes).toEqual([]);
    expect(await tableIndexes(h.core.store, 'articles')).toEqual({});
    // a field named created again (here a plain date): the index is back, on that field
    const r2 = await h.req('PATCH', '/api/collections/articles', { token: su, body: { fields: [...noCreated, { name: 'created', type: 'date' }] } });
    expect(r2.body.maintainedIndexes).toEqual([{ name, fields: [fieldId(r2.body, 'created')], unique: false, purpose: 'defaultSort' }]);
    expect(await defaultListPlan(h.core.store, 'articles')).toContain(name);
  });

  it('stays as it was when a schema change fails, and goes with the collection', async () => {
    const posts = await createPosts();
    for (const title of ['same', 'same']) await h.req('POST', '/api/collections/posts/records', { token: su, body: { title } });
    const before = await tableIndexes(h.core.store, 'posts');
    const failed = await h.req('PATCH', '/api/collections/posts', { token: su, body: { name: 'renamed', indexes: [{ name: 'idx_title', fields: [fieldId(posts, 'title')], unique: true }] } });
    expect(failed.status).toBe(400);
    expect(await tableIndexes(h.core.store, 'posts')).toEqual(before);
    expect((await h.req('DELETE', '/api/collections/posts', { token: su })).status).toBe(204);
    expect(await indexExists(h.core.store, `_${posts.id}_created_idx`)).toBe(false);
  });

  it('keeps its name from user indexes, in this collection and in others', async () => {
    const posts = await createPosts();
    const created = fieldId(posts, 'created');
    const title = fieldId(posts, 'title');
    for (const [name, fields] of [[`_${posts.id}_created_idx`, [title]], [`_${posts.id.toUpperCase()}_CREATED_IDX`, [title, created]], [`_${posts.id}_email_idx`, [created]]] as const) {
      const r = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name, fields }] } });
      expect(r.status).toBe(400);
      expect(r.body.data.indexes['0'].name.code).toBe('validation_existing_index_name');
    }
    const other = await h.req('POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text' }], indexes: [{ name: `_${posts.id}_created_idx`, fields: ['x'] }] } });
    expect(other.body.data.indexes['0'].name.code).toBe('validation_existing_index_name');
    // the collection's own index over created may take the created index's name: it replaces it (older
    // PocketBase versions made `_<id>_created_idx` themselves, and apps ship it)
    const own = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name: `_${posts.id}_created_idx`, fields: [created, title] }] } });
    expect(own.status, own.text).toBe(200);
    expect(own.body.indexes).toEqual([{ name: `_${posts.id}_created_idx`, fields: [created, title], unique: false }]);
    expect(own.body.maintainedIndexes.map((i: { purpose: string }) => i.purpose)).toEqual([]);
    expect(Object.keys(await tableIndexes(h.core.store, 'posts'))).toEqual([`_${posts.id}_created_idx`]);
    // a name that only looks like one is fine
    const ok = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name: '_nocollection_created_idx', fields: [created] }] } });
    expect(ok.status, ok.text).toBe(200);
  });

  it('round-trips: a collection as read back creates its copy with the same user indexes and its own maintained one', async () => {
    const posts = await createPosts();
    const withIndex = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name: 'idx_title', fields: [fieldId(posts, 'title')] }] } });
    const { id: _id, created: _c, updated: _u, ...exported } = withIndex.body;
    const copy = await h.req('POST', '/api/collections', { token: su, body: { ...exported, name: 'posts_copy', indexes: [{ ...exported.indexes[0], name: 'idx_title_copy' }] } });
    expect(copy.status, copy.text).toBe(200);
    expect(copy.body.indexes).toEqual([{ name: 'idx_title_copy', fields: [fieldId(posts, 'title')], unique: false }]);
    expect(copy.body.maintainedIndexes.map((i: { name: string }) => i.name)).toEqual([`_${copy.body.id}_created_idx`]);
    expect(h.core.registry.get('posts_copy')).not.toHaveProperty('maintainedIndexes'); // never stored
  });
});

describe('data made before the index existed', () => {
  it.runIf(TEST_ENGINE === 'sqlite')('a data folder gets it on start, once, in a journaled write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-maintained-'));
    try {
      const open = async () => {
        const store = await openStore({ dir });
        return { store, core: await createCore(store) };
      };
      let { store, core } = await open();
      await core.collections.create({ name: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'created', type: 'autodate', onCreate: true }] }, core.internalContext());
      const name = `_${core.registry.get('posts')!.id}_created_idx`;
      // what an older version left: the table without the index
      await store.write((tx) => tx.run(`DROP INDEX "${name}"`));
      expect(await tableIndexes(store, 'posts')).toEqual({});
      await store.close();

      ({ store, core } = await open());
      expect(Object.keys(await tableIndexes(store, 'posts'))).toEqual([name]);
      expect(await defaultListPlan(store, 'posts')).toContain(name);
      const addingStart = store.stats().entries;
      await store.close();
      // made once: the next start finds it and writes one journal entry less
      ({ store, core } = await open());
      expect(Object.keys(await tableIndexes(store, 'posts'))).toEqual([name]);
      expect(store.stats().entries).toBe(addingStart - 1);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.runIf(TEST_ENGINE === 'postgres')('a team server\'s database gets it when a node starts, and the next node finds it', async () => {
    const db = await freshDatabase('maintained');
    await db.sql.end();
    const stores: Store[] = [];
    try {
      const open = async () => {
        const store = await openPostgresStore({ url: db.url, max: 2 });
        stores.push(store);
        return { store, core: await createCore(store) };
      };
      const { store, core } = await open();
      await core.collections.create({ name: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'created', type: 'autodate', onCreate: true }] }, core.internalContext());
      const name = `_${core.registry.get('posts')!.id}_created_idx`;
      await store.write((tx) => tx.run(`DROP INDEX "${name}"`));
      expect(await tableIndexes(store, 'posts')).toEqual({});
      const second = await open();
      expect(Object.keys(await tableIndexes(second.store, 'posts'))).toEqual([name]);
      expect(await defaultListPlan(second.store, 'posts')).toContain(name);
      const third = await open();
      expect(Object.keys(await tableIndexes(third.store, 'posts'))).toEqual([name]);
    } finally {
      for (const s of stores) await s.close();
      await db.drop();
    }
  });
});

describe('an index name past 63 bytes', () => {
  it('is named as given in the 400 of a unique index over duplicates (PostgreSQL stores it shortened)', async () => {
    const posts = await createPosts();
    for (const title of ['same', 'same']) await h.req('POST', '/api/collections/posts/records', { token: su, body: { title } });
    const name = `idx_${'long_'.repeat(14)}title`;
    expect(Buffer.byteLength(name)).toBeGreaterThan(63);
    const r = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name, fields: [fieldId(posts, 'title')], unique: true }] } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.indexes.code).toBe('validation_invalid_index_expression');
    // SQLite names the columns; PostgreSQL the index, as the user named it
    if (TEST_ENGINE === 'postgres') expect(r.body.message).toContain(`index '${name}'`);
    expect(r.body.message).not.toMatch(new RegExp(`index '(?!${name}')`));
    // and the index works under its name once the duplicates are gone
    const dup = (await h.req('GET', '/api/collections/posts/records?filter=title="same"', { token: su })).body.items[0].id;
    expect((await h.req('DELETE', `/api/collections/posts/records/${dup}`, { token: su })).status).toBe(204);
    const ok = await h.req('PATCH', '/api/collections/posts', { token: su, body: { indexes: [{ name, fields: [fieldId(posts, 'title')], unique: true }] } });
    expect(ok.status, ok.text).toBe(200);
    const again = await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: 'same' } });
    expect(again.body.data).toEqual({ title: { code: 'validation_not_unique', message: 'Value must be unique.' } });
  });
});
