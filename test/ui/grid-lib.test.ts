// The records grid's pure parts: completion of filters and rules, Shift-range selection, the list state
// in the URL, and a failed schema save in words. (Exporting selected records is the server's export with
// `ids`: test/transfer/records-transfer.test.ts.)
import { describe, expect, it } from 'vitest';
import type { Collection, Field, RecordModel } from '../../renderer/api.js';
import { ApiError } from '../../renderer/api.js';
import { complete, type CompleteContext } from '../../renderer/lib/filter-complete.js';
import { createSelection } from '../../renderer/lib/selection.js';
import { readListQuery, writeListQuery } from '../../renderer/lib/list-state.js';
import { explainSaveError } from '../../renderer/lib/save-errors.js';
import { draftFromCollection } from '../../renderer/lib/collection-draft.js';

const f = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ id: `f_${name}`, name, type, system: false, hidden: false, presentable: false, ...extra }) as unknown as Field;
const col = (id: string, name: string, fields: Field[], type: 'base' | 'auth' = 'base') =>
  ({ id, name, type, system: false, fields, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, created: '', updated: '' }) as Collection;

const authors = col('c_authors', 'authors', [f('id', 'text'), f('name', 'text')]);
const posts = col('c_posts', 'posts', [f('id', 'text'), f('title', 'text'), f('tags', 'select', { maxSelect: 3, values: ['a'] }), f('author', 'relation', { collectionId: 'c_authors', maxSelect: 1 })]);
const users = col('c_users', 'users', [f('id', 'text'), f('email', 'email'), f('verified', 'bool'), f('password', 'password')], 'auth');
const ctx: CompleteContext = { collection: posts, collections: [authors, posts, users], mode: 'rule' };
const texts = (text: string, caret = text.length) => complete(text, caret, ctx).items.map((s) => s.text);

describe('filter and rule completion', () => {
  it('offers field names by prefix, and the related collection after a relation', () => {
    expect(texts('ti')).toEqual(['title']);
    expect(texts('author.')).toEqual(['id', 'name', 'posts_via_author']);
    expect(texts('posts_via_author.')).toEqual([]);
    expect(complete('author.posts_via_author.ti', 26, ctx).items.map((x) => x.text)).toEqual(['title']);
    expect(texts('authors_via_title.')).toEqual([]);
  });
  it('offers @request parts, auth fields (never passwords) and other collections', () => {
    expect(texts('@re')).toEqual(['@request.']);
    expect(texts('@request.')).toEqual(['auth.', 'body.', 'query.', 'headers.', 'method', 'context']);
    expect(texts('@request.auth.')).toEqual(['id', 'email', 'verified', 'collectionId', 'collectionName']);
    expect(texts('@collection.a')).toEqual(['authors.']);
    expect(texts('@collection.authors.n')).toEqual(['name']);
  });
  it('offers modifiers that fit the field, :changed only on the body in rules', () => {
    expect(texts('tags:')).toEqual([':length', ':each', ':lower']);
    expect(texts('@request.body.title:')).toEqual([':isset', ':changed', ':lower']);
    expect(complete('@request.body.title:', 20, { ...ctx, mode: 'filter' }).items.map((s) => s.text)).toEqual([':lower']);
  });
  it('offers operators after an operand, joiners after a comparison, nothing inside a string', () => {
    expect(texts('title ')).toContain('?=');
    expect(texts('title = "x" ')).toEqual(['&&', '||']);
    expect(texts('title = "ti')).toEqual([]);
  });
  it('replaces the word at the caret, whole', () => {
    const c = complete('titl = 1', 2, ctx);
    expect([c.from, c.to]).toEqual([0, 4]);
  });
});

const rec = (id: string, extra: Record<string, unknown> = {}) => ({ id, collectionId: 'c', collectionName: 'posts', ...extra }) as RecordModel;

describe('selection', () => {
  const rows = ['a', 'b', 'c', 'd', 'e'].map((id) => rec(id));
  it('selects a Shift range from the last clicked row, in either direction, and clears it the same way', () => {
    const s = createSelection();
    s.toggle(rows[3], rows);
    s.toggle(rows[1], rows, true);
    expect(s.records().map((r) => r.id).sort()).toEqual(['b', 'c', 'd']);
    s.toggle(rows[4], rows, true);
    expect(s.count()).toBe(4);
    // c was selected: the click clears c, and the range back to the last click (e) with it.
    s.toggle(rows[2], rows, true);
    expect(s.records().map((r) => r.id)).toEqual(['b']);
  });
  it('toggles a whole page, keeps newer copies and drops deleted ids', () => {
    const s = createSelection();
    s.togglePage(rows);
    expect(s.count()).toBe(5);
    s.refresh([rec('a', { title: 'new' })], ['e']);
    expect(s.count()).toBe(4);
    expect(s.records().find((r) => r.id === 'a')?.title).toBe('new');
    s.togglePage(rows);
    expect(s.count()).toBe(5);
    s.togglePage(rows);
    expect(s.count()).toBe(0);
  });
});

describe('list state in the URL', () => {
  it('reads defaults for what the URL leaves out and writes only what differs', () => {
    const q = readListQuery(new URLSearchParams('filter=a+%3D+1&page=3&record=abc'), '-created');
    expect(q).toEqual({ filter: 'a = 1', sort: '-created', page: 3, perPage: 30, record: 'abc' });
    expect(writeListQuery(q, '-created')).toEqual({ filter: 'a = 1', page: '3', record: 'abc' });
    // An explicit "no sort" differs from the default and is kept.
    expect(writeListQuery({ ...q, sort: '' }, '-created')).toMatchObject({ sort: '' });
  });
  it('refuses nonsense numbers', () => {
    expect(readListQuery(new URLSearchParams('page=-2&perPage=99999'), '')).toMatchObject({ page: 1, perPage: 1000 });
    expect(readListQuery(new URLSearchParams('page=x'), '')).toMatchObject({ page: 1 });
  });
});

describe('a failed schema save in words', () => {
  it('names the unique index and the values that repeat', () => {
    const c = { ...posts, indexes: [{ name: 'idx_t', fields: ['f_title'], unique: true }] };
    const err = new ApiError(400, 'Failed to update collection. Raw error: UNIQUE constraint failed: posts.title.', {
      indexes: { code: 'validation_invalid_index_expression', message: 'Failed to create the index: UNIQUE constraint failed: posts.title.' },
    });
    const p = explainSaveError(err, draftFromCollection(c));
    expect(p.index?.at).toBe(0);
    expect(p.index?.text).toMatch(/^Some records have the same title/);
    expect(p.summary).toBe('Not saved: the unique index “idx_t” cannot be built because some records share the same title.');
  });
  it('drops "Raw error" from anything else', () => {
    const err = new ApiError(400, 'Failed. Raw error: disk I/O error', {});
    expect(explainSaveError(err, draftFromCollection(posts)).summary).toBe('Not saved: disk I/O error');
  });
});
