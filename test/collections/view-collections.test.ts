// View collections (issue 20, section 2) through the official PocketBase SDK over a real socket:
// fields inferred from the query with their source types, records read-only, list and view rules,
// filter, sort, expand, fields and paging, `@collection.<view>` in another collection's rules,
// relations to views (views only), a view over a view, updates that rebuild views, and every bad or
// unsafe query refused as a 400 naming viewQuery with nothing changed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PocketBase from 'pocketbase';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import { failure, sdkSuite, startSdkServer } from '../support/sdk-server.js';
import type { Harness } from '../support/harness.js';
import { envelope, scenarios, type Scenario } from '../support/scenario.js';

const sdk = sdkSuite();

let ann: PocketBase;
let bob: PocketBase;
const ids: Record<string, string> = {};

const STATS = `SELECT p.id, p.title, p.author, p.status, p.created, p.published,
  count(c.id) AS comments, CAST(sum(p.score) AS REAL) AS total, json_object('t', p.title) AS meta
  FROM posts p LEFT JOIN comments c ON c.post = p.id GROUP BY p.id`;

async function signIn(email: string): Promise<PocketBase> {
  const pb = sdk.client();
  await pb.collection('users').authWithPassword(email, 'password123');
  return pb;
}

beforeAll(async () => {
  const users = sdk.server.core.registry.get('users')!.id;
  for (const name of ['ann', 'bob', 'carl']) {
    ids[name] = (await sdk.admin.collection('users').create({ email: `${name}@example.com`, password: 'password123', passwordConfirm: 'password123', name })).id;
  }
  const posts = await sdk.admin.collections.create({
    name: 'posts', listRule: '', viewRule: '',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', collectionId: users, maxSelect: 1 },
      { name: 'status', type: 'select', values: ['draft', 'live'], maxSelect: 1 },
      { name: 'published', type: 'bool' },
      { name: 'score', type: 'number' },
      { name: 'secret', type: 'text', hidden: true },
      { name: 'created', type: 'autodate', onCreate: true },
    ],
  });
  await sdk.admin.collections.create({
    name: 'comments', listRule: '', viewRule: '',
    fields: [{ name: 'post', type: 'relation', collectionId: posts.id, maxSelect: 1 }, { name: 'body', type: 'text' }],
  });
  const make = async (title: string, author: string, n: number, score: number) => {
    const p = await sdk.admin.collection('posts').create({ title, author: ids[author], status: 'live', published: true, score, secret: `s-${title}` });
    for (let i = 0; i < n; i++) await sdk.admin.collection('comments').create({ post: p.id, body: `${title} ${i}` });
    return p.id;
  };
  ids.p1 = await make('alpha', 'ann', 3, 1.5);
  ids.p2 = await make('beta', 'ann', 1, 2);
  ids.p3 = await make('gamma', 'bob', 0, 3);
  await sdk.admin.collections.create({ name: 'post_stats', type: 'view', viewQuery: STATS, listRule: 'author = @request.auth.id', viewRule: 'author = @request.auth.id' });
  ann = await signIn('ann@example.com');
  bob = await signIn('bob@example.com');
});

describe('a view collection', () => {
  it('infers its fields from the query, carrying the source fields over', async () => {
    const c = await sdk.admin.collections.getOne('post_stats');
    expect(c.type).toBe('view');
    expect(c.viewQuery).toBe(STATS);
    const byName: Record<string, Record<string, unknown>> = Object.fromEntries(c.fields.map((f: { name: string }) => [f.name, f]));
    expect(c.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'title', 'author', 'status', 'created', 'published', 'comments', 'total', 'meta']);
    expect(byName.id).toMatchObject({ type: 'text', primaryKey: true });
    expect(byName.title.type).toBe('text');
    expect(byName.author).toMatchObject({ type: 'relation', collectionId: sdk.server.core.registry.get('users')!.id, maxSelect: 1, cascadeDelete: false });
    expect(byName.status).toMatchObject({ type: 'select', values: ['draft', 'live'] });
    expect(byName.created.type).toBe('autodate');
    expect(byName.published.type).toBe('bool');
    expect(byName.comments.type).toBe('number');
    expect(byName.total.type).toBe('number');
    expect(byName.meta.type).toBe('json');
    expect(c.indexes).toEqual([]);
    expect([c.createRule, c.updateRule, c.deleteRule]).toEqual([null, null, null]);
  });

  it('lists under its list rule, with filter, sort, expand, fields and paging', async () => {
    const mine = await ann.collection('post_stats').getFullList({ sort: '-comments', expand: 'author' });
    expect(mine.map((r) => [r.title, r.comments, r.total])).toEqual([['alpha', 3, 4.5], ['beta', 1, 2]]);
    expect(mine[0].published).toBe(true);
    expect(mine[0].meta).toEqual({ t: 'alpha' });
    expect(mine[0].expand?.author).toMatchObject({ id: ids.ann, name: 'ann' });
    expect(mine[0]).toMatchObject({ collectionName: 'post_stats', collectionId: expect.any(String) });
    const filtered = await ann.collection('post_stats').getList(1, 10, { filter: 'comments < 2 && author.name = "ann"' });
    expect(filtered.items.map((r) => r.title)).toEqual(['beta']);
    const page = await sdk.admin.collection('post_stats').getList(2, 1, { sort: 'title', fields: 'id,title' });
    expect(page).toMatchObject({ page: 2, perPage: 1, totalItems: 3, totalPages: 3 });
    expect(page.items).toEqual([{ id: ids.p2, title: 'beta' }]);
  });

  it('can be named in another collection\'s rules with @collection', async () => {
    await sdk.admin.collections.create({
      name: 'authors_board', listRule: '@collection.post_stats.author ?= @request.auth.id && @collection.post_stats.comments ?> 0',
      fields: [{ name: 'note', type: 'text' }],
    });
    await sdk.admin.collection('authors_board').create({ note: 'hello authors' });
    expect((await ann.collection('authors_board').getFullList()).map((r) => r.note)).toEqual(['hello authors']);
    // bob's only post has no comments; carl has no post
    expect(await bob.collection('authors_board').getFullList()).toEqual([]);
    expect(await (await signIn('carl@example.com')).collection('authors_board').getFullList()).toEqual([]);
  });

  it('may be related to from views only, and a view over a view works with expand', async () => {
    const viewId = sdk.server.core.registry.get('post_stats')!.id;
    const err = await failure(sdk.admin.collections.create({ name: 'pins', fields: [{ name: 'stat', type: 'relation', collectionId: viewId, maxSelect: 1 }] }));
    expect(err.status).toBe(400);
    expect(err.response.data.fields['0'].collectionId.code).toBe('validation_relation_field_non_view_base_collection');
    const top = await sdk.admin.collections.create({
      name: 'busy_posts', type: 'view', listRule: '', viewRule: '',
      viewQuery: 'SELECT s.id, s.id AS stat, s.comments, s.author FROM post_stats s WHERE s.comments > 0',
    });
    const stat = top.fields.find((f: { name: string }) => f.name === 'stat');
    expect(stat).toMatchObject({ type: 'relation', collectionId: viewId });
    expect(top.fields.find((f: { name: string }) => f.name === 'comments')?.type).toBe('number');
    const rows = await ann.collection('busy_posts').getFullList({ sort: 'comments', expand: 'stat,author' });
    expect(rows.map((r) => r.comments)).toEqual([1, 3]);
    // expanding into post_stats goes through post_stats' viewRule (ann's posts only)
    expect(rows[0].expand?.stat).toMatchObject({ id: ids.p2, title: 'beta' });
    expect(rows[1].expand?.author).toMatchObject({ name: 'ann' });
    const asBob = await bob.collection('busy_posts').getFullList({ expand: 'stat' });
    expect(asBob.every((r) => r.expand?.stat === undefined)).toBe(true);
    // the inner view cannot go while the outer reads it
    const del = await failure(sdk.admin.collections.delete('post_stats'));
    expect(del.status).toBe(400);
    expect(del.response.message).toContain('busy_posts');
    await sdk.admin.collections.delete('busy_posts');
  });

  it('is rebuilt when its query changes, and when a collection it reads changes', async () => {
    const updated = await sdk.admin.collections.update('post_stats', { viewQuery: 'SELECT p.id, p.title AS headline, p.author FROM posts p WHERE p.published = true' });
    expect(updated.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'headline', 'author']);
    expect((await ann.collection('post_stats').getFullList({ sort: 'headline' })).map((r) => r.headline)).toEqual(['alpha', 'beta']);
    // the rules were checked against the new fields
    expect((await failure(sdk.admin.collections.update('post_stats', { listRule: 'comments > 1' }))).response.data.listRule.code).toBe('validation_invalid_rule');
    // a change to posts (a new field) rebuilds posts' table under the view; the view keeps working
    const posts = await sdk.admin.collections.getOne('posts');
    await sdk.admin.collections.update('posts', { fields: [...posts.fields, { name: 'extra', type: 'text' }] });
    expect((await ann.collection('post_stats').getFullList()).length).toBe(2);
    // renaming a field the view reads would break it: refused, naming the view, nothing changed
    const renamed = posts.fields.map((f: { name: string }) => (f.name === 'title' ? { ...f, name: 'heading' } : f));
    const err = await failure(sdk.admin.collections.update('posts', { fields: renamed }));
    expect(err.status).toBe(400);
    expect(err.response.message).toContain('post_stats');
    expect((await sdk.admin.collections.getOne('posts')).fields.some((f: { name: string }) => f.name === 'title')).toBe(true);
    expect((await sdk.admin.collection('posts').getOne(ids.p1)).title).toBe('alpha');
    // hiding a field a view reads would show it through the view: refused the same way
    const hidden = posts.fields.map((f: { name: string }) => (f.name === 'title' ? { ...f, hidden: true } : f));
    expect((await failure(sdk.admin.collections.update('posts', { fields: hidden }))).response.message).toContain('post_stats');
    // a renamed view keeps answering under its new name
    await sdk.admin.collections.update('post_stats', { name: 'post_list' });
    expect((await ann.collection('post_list').getFullList()).length).toBe(2);
    await sdk.admin.collections.update('post_list', { name: 'post_stats', viewQuery: STATS });
  });

  it('refuses a query that is not one read-only SELECT, fails, or reads what no view may show: 400 naming viewQuery, nothing changed', async () => {
    const before = (await sdk.admin.collections.getFullList()).length;
    const bad = [
      'DELETE FROM posts',
      'SELECT id FROM posts; DELETE FROM posts',
      "WITH x AS (SELECT 1) INSERT INTO posts (id) VALUES ('zzzzzzzzzzzzzzz')",
      'SELECT title FROM posts',
      'SELECT * FROM posts',
      'SELECT id, nope FROM posts',
      'SELECT id FROM no_such_table',
      'SELECT id, secret FROM posts',
      'SELECT p.id, upper(p.secret) AS s FROM posts p',
      'SELECT id, password FROM users',
      'SELECT u.id, u.password AS h FROM users u',
      'SELECT id FROM posts WHERE (SELECT password FROM users LIMIT 1) > \'\'',
      'SELECT id, email FROM _superusers',
      'SELECT id, collectionId AS c FROM _sessions',
      'SELECT id, name FROM _collections',
      'SELECT id, tokenHash AS t FROM _authTokens',
      'SELECT id, html FROM _mails',
      'SELECT id, codeHash AS t FROM _otps',
      'SELECT id, method AS m FROM _mfas',
      'SELECT id, fingerprint AS f FROM _authOrigins',
      'SELECT name AS id FROM sqlite_master',
      'SELECT id, password FROM main.users',
      'SELECT p.id FROM main.posts p',
      'SELECT id FROM posts WHERE title = ?',
      'SELECT count(*), id FROM posts',
      'SELECT id, title AS expand FROM posts',
      'SELECT id, title AS a_via_b FROM posts',
      'SELECT id, title, title AS TITLE FROM posts',
      '',
    ];
    for (const viewQuery of bad) {
      const err = await failure(sdk.admin.collections.create({ name: 'bad_view', type: 'view', viewQuery, listRule: '' }));
      expect(err.status, viewQuery).toBe(400);
      expect(Object.keys(err.response.data), viewQuery).toEqual(['viewQuery']);
      expect(err.response.data.viewQuery.message, viewQuery).toMatch(/^(Invalid query - |Cannot be blank)/);
    }
    // an update with a bad query leaves the view as it was
    const err = await failure(sdk.admin.collections.update('post_stats', { viewQuery: 'SELECT id, password FROM users' }));
    expect(err.response.data.viewQuery.code).toBe('validation_invalid_view_query');
    expect((await sdk.admin.collections.getOne('post_stats')).viewQuery).toBe(STATS);
    expect((await ann.collection('post_stats').getFullList()).length).toBe(2);
    expect((await sdk.admin.collections.getFullList()).length).toBe(before);
    expect((await sdk.admin.collection('posts').getFullList()).length).toBe(3);
    // create/update/delete rules and indexes are refused on views
    const rules = await failure(sdk.admin.collections.create({ name: 'ruled', type: 'view', viewQuery: 'SELECT id FROM posts', createRule: '' }));
    expect(rules.response.data.createRule.code).toBe('validation_nil');
  });

  it('serves a file a view record shows from the record it comes from, through a view over a view', async () => {
    await sdk.admin.collections.create({ name: 'albums', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'cover', type: 'file', maxSelect: 1 }, { name: 'pages', type: 'file', maxSelect: 5 }] });
    const bytes = new TextEncoder().encode('hello from a file');
    const album = await sdk.admin.collection('albums').create({ title: 'a', cover: new File([bytes], 'cover.txt', { type: 'text/plain' }), pages: [new File([bytes], 'p1.txt'), new File([bytes], 'p2.txt')] });
    await sdk.admin.collections.create({ name: 'album_view', type: 'view', listRule: '', viewRule: '', viewQuery: 'SELECT a.id, a.cover AS art, a.pages FROM albums a' });
    await sdk.admin.collections.create({ name: 'album_view2', type: 'view', listRule: '', viewRule: '', viewQuery: 'SELECT id, art, pages FROM album_view' });
    for (const name of ['album_view', 'album_view2']) {
      const rec = await sdk.client().collection(name).getOne(album.id);
      expect(rec.art).toBe(album.cover);
      for (const file of [rec.art, rec.pages[1]]) {
        const res = await fetch(sdk.client().files.getURL(rec, file));
        expect(res.status, `${name} ${file}`).toBe(200);
        expect(await res.text()).toBe('hello from a file');
      }
      expect((await fetch(sdk.client().files.getURL(rec, 'nope_abcdefghij.txt'))).status).toBe(404);
    }
  });

  it('shows an auth record\'s email only where its owner made it visible, even to superusers', async () => {
    await sdk.admin.collection('users').update(ids.bob, { emailVisibility: true });
    await sdk.admin.collections.create({ name: 'user_emails', type: 'view', listRule: '', viewQuery: 'SELECT id, name, email FROM users' });
    const rows = await sdk.admin.collection('user_emails').getFullList({ sort: 'name' });
    expect(rows.map((r) => [r.name, r.email])).toEqual([['ann', ''], ['bob', 'bob@example.com'], ['carl', '']]);
    // nor can a view's query test a hidden email
    await sdk.admin.collections.update('user_emails', { viewQuery: "SELECT id, name FROM users WHERE email = 'ann@example.com'" });
    expect(await sdk.admin.collection('user_emails').getFullList()).toEqual([]);
    await sdk.admin.collections.delete('user_emails');
  });

  it('is deleted like any collection', async () => {
    // a semicolon in a string and a trailing comment are part of one SELECT
    await sdk.admin.collections.create({ name: 'tmp_view', type: 'view', viewQuery: "SELECT id, title, 'a;b' AS s FROM posts -- the end" });
    expect((await sdk.admin.collection('tmp_view').getFullList({ sort: 'title' })).map((r) => [r.title, r.s])).toEqual([['alpha', 'a;b'], ['beta', 'a;b'], ['gamma', 'a;b']]);
    await sdk.admin.collections.delete('tmp_view');
    expect((await failure(sdk.admin.collection('tmp_view').getList())).status).toBe(404);
    expect(sdk.server.core.registry.get('tmp_view')).toBeUndefined();
    // a collection a view reads cannot go while the view does: refused naming the view, nothing changed
    await sdk.admin.collections.create({ name: 'loose', listRule: '', fields: [{ name: 'n', type: 'number' }] });
    await sdk.admin.collection('loose').create({ n: 7 });
    await sdk.admin.collections.create({ name: 'loose_view', type: 'view', listRule: '', viewQuery: 'SELECT id, n FROM loose' });
    const err = await failure(sdk.admin.collections.delete('loose'));
    expect(err.status).toBe(400);
    expect(err.response.message).toMatch(/^Failed to delete collection: the view collection "loose_view" would no longer work/);
    expect((await sdk.client().collection('loose_view').getFullList()).map((r) => r.n)).toEqual([7]);
    await sdk.admin.collections.delete('loose_view');
    await sdk.admin.collections.delete('loose');
  });
});

describe('a view collection in a data folder', () => {
  it('survives a restart (journal replay) and a checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deskbase-views-'));
    try {
      const first = await startSdkServer({ dir });
      await first.admin.collections.create({ name: 'notes', listRule: '', fields: [{ name: 'body', type: 'text' }] });
      await first.admin.collection('notes').create({ body: 'kept' });
      await first.admin.collections.create({ name: 'note_view', type: 'view', listRule: '', viewQuery: 'SELECT id, body, length(body) AS size FROM notes' });
      await first.server.close();
      for (let round = 0; round < 2; round++) {
        const again = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
        try {
          const rows = await new PocketBase(again.url).collection('note_view').getFullList();
          expect(rows.map((r) => [r.body, r.size])).toEqual([['kept', 4]]);
          await again.core.store.checkpoint();
        } finally {
          await again.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a view collection: who may read it, and that it is read-only (in process)', () => {
  /** The same data as the SDK tests above: three users, their posts and comments, and the post_stats view. */
  interface Stats { su: string; ann: string; bob: string; p1: string }
  async function stats(h: Harness): Promise<Stats> {
    const su = await h.superuser();
    const ok = async (method: string, url: string, body: Record<string, unknown>) => {
      const r = await h.req(method, url, { token: su, body });
      expect(r.status, r.text).toBe(200);
      return r.body as { id: string };
    };
    const users = h.core.registry.get('users')!.id;
    const people: Record<string, string> = {};
    for (const name of ['ann', 'bob', 'carl']) people[name] = (await ok('POST', '/api/collections/users/records', { email: `${name}@example.com`, password: 'password123', passwordConfirm: 'password123', name })).id;
    const posts = await ok('POST', '/api/collections', {
      name: 'posts', listRule: '', viewRule: '',
      fields: [
        { name: 'title', type: 'text' }, { name: 'author', type: 'relation', collectionId: users, maxSelect: 1 },
        { name: 'status', type: 'select', values: ['draft', 'live'], maxSelect: 1 }, { name: 'published', type: 'bool' },
        { name: 'score', type: 'number' }, { name: 'secret', type: 'text', hidden: true }, { name: 'created', type: 'autodate', onCreate: true },
      ],
    });
    await ok('POST', '/api/collections', { name: 'comments', listRule: '', viewRule: '', fields: [{ name: 'post', type: 'relation', collectionId: posts.id, maxSelect: 1 }, { name: 'body', type: 'text' }] });
    const make = async (title: string, author: string, n: number, score: number) => {
      const p = await ok('POST', '/api/collections/posts/records', { title, author: people[author], status: 'live', published: true, score, secret: `s-${title}` });
      for (let i = 0; i < n; i++) await ok('POST', '/api/collections/comments/records', { post: p.id, body: `${title} ${i}` });
      return p.id;
    };
    const p1 = await make('alpha', 'ann', 3, 1.5);
    await make('beta', 'ann', 1, 2);
    await make('gamma', 'bob', 0, 3);
    await ok('POST', '/api/collections', { name: 'post_stats', type: 'view', viewQuery: STATS, listRule: 'author = @request.auth.id', viewRule: 'author = @request.auth.id' });
    return { su, ann: await h.signIn('users', 'ann@example.com', 'password123'), bob: await h.signIn('users', 'bob@example.com', 'password123'), p1 };
  }
  const STATS_URL = '/api/collections/post_stats/records';
  const titles = (items: { title: string }[]) => items.map((r) => r.title);
  const readOnly = (name: string, method: string, url: (c: Stats) => string, body?: Record<string, unknown>, guest = false): Scenario<Stats> => ({
    name: `is read-only: ${name} answers 400${guest ? ' to a guest too (before its null rule, as PocketBase)' : ''}`, method, url, token: (c) => (guest ? undefined : c.su), body,
    status: 400, json: envelope(400, 'Unsupported collection type.'),
    // the post behind the view is unchanged
    after: async (_r, h, c) => { expect((await h.req('GET', `/api/collections/posts/records/${c.p1}`)).body.title).toBe('alpha'); },
  });
  scenarios(stats, [
    { name: 'lists under its list rule: a user sees the rows of their posts', method: 'GET', url: `${STATS_URL}?sort=title`, token: (c) => c.bob, status: 200, after: (r) => { expect(titles(r.body.items)).toEqual(['gamma']); } },
    { name: 'lists under its list rule: a guest sees none', method: 'GET', url: STATS_URL, status: 200, match: { items: [], totalItems: 0 } },
    { name: 'shows one record under its view rule', method: 'GET', url: (c) => `${STATS_URL}/${c.p1}`, token: (c) => c.ann, status: 200, match: { comments: 3 } },
    { name: 'a record its view rule hides is a 404', method: 'GET', url: (c) => `${STATS_URL}/${c.p1}`, token: (c) => c.bob, status: 404, json: envelope(404, 'Not found.') },
    {
      name: 'exports its records as any list does (under the list rule, filter and sort)',
      method: 'GET', url: `${STATS_URL}/export?format=json&sort=title`, token: (c) => c.ann, status: 200,
      after: (r) => {
        expect(r.body.map((row: Record<string, unknown>) => [row.title, row.comments])).toEqual([['alpha', 3], ['beta', 1]]);
        expect(Object.keys(r.body[0]).filter((k) => k.startsWith('_'))).toEqual([]);
      },
    },
    { name: 'a superuser exports every record', method: 'GET', url: `${STATS_URL}/export?format=json`, token: (c) => c.su, status: 200, after: (r) => { expect(r.body).toHaveLength(3); } },
    readOnly('a create', 'POST', () => STATS_URL, { title: 'x' }),
    readOnly('an update', 'PATCH', (c) => `${STATS_URL}/${c.p1}`, { title: 'x' }),
    readOnly('a delete', 'DELETE', (c) => `${STATS_URL}/${c.p1}`),
    readOnly('a create', 'POST', () => STATS_URL, { title: 'x' }, true),
    readOnly('an update', 'PATCH', (c) => `${STATS_URL}/${c.p1}`, { title: 'x' }, true),
    readOnly('a delete', 'DELETE', (c) => `${STATS_URL}/${c.p1}`, undefined, true),
    {
      name: 'is read-only: a truncate answers 400',
      method: 'DELETE', url: '/api/collections/post_stats/truncate', token: (c) => c.su,
      status: 400, json: envelope(400, "View collections cannot be truncated since they don't store their own records."),
    },
    {
      name: 'is read-only: a batch create answers 400',
      method: 'POST', url: '/api/batch', token: (c) => c.su, body: { requests: [{ method: 'POST', url: STATS_URL, body: { title: 'x' } }] },
      status: 400,
      after: async (_r, h, c) => { expect((await h.req('GET', '/api/collections/post_stats/records', { token: c.su })).body.totalItems).toBe(3); },
    },
  ]);
});
