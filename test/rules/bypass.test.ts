// Rule bypass attempts through every door a client has: filter, sort, expand, fields, back-relations,
// @collection and @request, modifiers and body keys. Each is refused or answers as if the hidden data
// did not exist; a superuser control shows the probe would have found something.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blog, type Blog } from '../support/blog.js';
import { harness, type Harness, type Res } from '../support/harness.js';

let h: Harness;
let b: Blog;
beforeAll(async () => {
  h = await harness();
  b = await blog(h);
  // a comment (listable by anyone) on Ann's draft, and a hidden-e-mail user
  const c = await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.annDraft, message: 'psst' } });
  if (c.status !== 200) throw new Error(c.text);
  // a hidden value no random id can contain by chance
  for (const id of [b.posts.annPublic, b.posts.annDraft]) await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.su, body: { secret: 'hush-hush-value' } });
}, 60_000);
afterAll(async () => { await h.close(); });

type Who = 'guest' | 'bob' | 'su';
const tokenOf = (who: Who) => (who === 'guest' ? undefined : who === 'su' ? b.su : b.users.bob.token);
const list = (collection: string, query: Record<string, string>, who: Who) =>
  h.req('GET', `/api/collections/${collection}/records?${new URLSearchParams(query)}`, { token: tokenOf(who) });
const count = (r: Res) => (r.status === 200 ? (r.body.totalItems as number) : -r.status);

/**
 * Secrets no non-superuser answer may contain: the hidden field, the draft's content, Ann's e-mail
 * (emailVisibility false), password hashes. (The draft's id may show: a comment's own relation field
 * holds it.)
 */
const SECRETS = () => ['"secret"', 'hush-hush-value', 'Ann draft', 'ann@example.com', 'scrypt$', '"password"'];

function expectNoSecrets(r: Res, allowed: string[] = []): void {
  for (const secret of SECRETS()) if (!allowed.includes(secret)) expect(r.text, `leaks ${secret}`).not.toContain(secret);
}

describe('filter and sort probes are refused (400/403) or find nothing', () => {
  it.each([
    // [collection, query, status for guest/bob]
    ['posts', { filter: "secret = 's1'" }, 400],
    ['posts', { filter: "secret ~ 's'" }, 400],
    ['posts', { filter: "secret != ''" }, 400],
    ['posts', { sort: 'secret' }, 400],
    ['posts', { sort: '-secret,title' }, 400],
    ['comments', { filter: "post.secret = 's1'" }, 400],
    ['comments', { sort: 'post.secret' }, 400],
    ['tags', { filter: "posts_via_tags.secret = 's1'" }, 400],
    ['posts', { filter: "author.password != ''" }, 400],
    ['posts', { filter: "@collection.posts.secret = 's1'" }, 403],
    ['posts', { filter: "@collection.users.email = 'ann@example.com'" }, 403],
    ['posts', { filter: "@collection._superusers.email ~ 'admin'" }, 403],
    ['posts', { filter: "@request.auth.id != ''" }, 403],
    ['posts', { filter: "@request.headers.authorization ~ 'a'" }, 403],
  ] as const)('%s %j → %d for guests and users, while a superuser gets an answer', async (collection, query, status) => {
    for (const who of ['guest', 'bob'] as const) {
      const r = await list(collection, query, who);
      expect(r.status, `${who}: ${r.text}`).toBe(status);
      expect(Object.keys(r.body).sort()).toEqual(['data', 'message', 'status']);
      expectNoSecrets(r);
    }
    expect((await list(collection, query, 'su')).status).toBe(200);
  });

  it('@request in a client sort is refused for everyone but superusers', async () => {
    for (const who of ['guest', 'bob'] as const) expect((await list('posts', { sort: '@request.auth.id' }, who)).status).toBe(403);
  });

  it.each([
    // probes of data the caller cannot see: the count must not depend on the hidden value
    ['posts', "author.email = 'ann@example.com'", "author.email = 'nobody@example.com'"],
    ['posts', "author.email ~ 'ann'", "author.email ~ 'zzz'"],
    ['posts', "author.name = 'Ann'", "author.name = 'Nobody'"],
    ['comments', "post.title = 'Ann draft'", "post.title = 'No such post'"],
    ['comments', "post.published = false", "post.published = true && post.published = false"],
    ['comments', "post.views = 3", "post.views = 12345"],
    ['tags', "posts_via_tags.title ?= 'Ann draft'", "posts_via_tags.title ?= 'No such post'"],
    ['tags', "posts_via_tags.views ?> 2.5 && posts_via_tags.views ?< 3.5", "posts_via_tags.views ?= 12345"],
  ])('%s: %s finds as much as its negative control', async (collection, probe, control) => {
    for (const who of ['guest', 'bob'] as const) {
      const [hit, miss] = await Promise.all([list(collection, { filter: probe }, who), list(collection, { filter: control }, who)]);
      expect([200, 400]).toContain(hit.status);
      expect(count(hit), `${who}: ${probe}`).toBe(count(miss));
      expectNoSecrets(hit);
    }
    // the superuser shows the probe does match something
    expect(count(await list(collection, { filter: probe }, 'su'))).toBeGreaterThan(count(await list(collection, { filter: control }, 'su')));
  });

  it('sorting by a field of records the caller cannot see does not order by it', async () => {
    // comments sorted by their post's views: the draft's 3 must not place its comment
    const asc = await list('comments', { sort: 'post.views,created' }, 'guest');
    const desc = await list('comments', { sort: '-post.views,created' }, 'guest');
    expect(asc.status).toBe(200);
    expect(asc.body.items.map((i: { id: string }) => i.id)).toEqual(desc.body.items.map((i: { id: string }) => i.id));
  });
});

describe('expand, fields and back-relations never reach hidden records or fields', () => {
  it.each([
    ['posts', { expand: 'author' }],
    ['posts', { expand: 'author,tags', fields: '*,expand.author.email,expand.author.tokenKey' }],
    ['posts', { fields: 'id,secret,author' }],
    ['posts', { fields: 'secret:excerpt(5)' }],
    ['comments', { expand: 'post' }],
    ['comments', { expand: 'post.author,post.tags' }],
    ['comments', { expand: 'post', fields: 'expand.post.secret,expand.post.title' }],
    ['tags', { expand: 'posts_via_tags' }],
    ['tags', { expand: 'posts_via_tags.comments_via_post.post' }],
    ['users', { expand: 'posts_via_author' }],
    ['posts', { expand: 'comments_via_post.post' }],
    ['posts', { expand: 'author.posts_via_author' }],
  ] as const)('%s %j', async (collection, query) => {
    for (const who of ['guest', 'bob'] as const) {
      const r = await list(collection, query, who);
      expect(r.status, r.text).toBe(200);
      expectNoSecrets(r);
    }
  });

  it('a view of a hidden record is 404 whatever the query asks', async () => {
    for (const query of ['', '?expand=author', '?fields=id', '?expand=comments_via_post']) {
      const r = await h.req('GET', `/api/collections/posts/records/${b.posts.annDraft}${query}`, { token: b.users.bob.token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ status: 404, message: 'Not found.', data: {} });
    }
  });
});

describe('writes cannot cross the rules', () => {
  const annPost = (): string => `/api/collections/posts/records/${b.posts.annPublic}`;
  it.each([
    ['update another user\'s post', 'PATCH', (): string => annPost(), { title: 'pwned' }, 404],
    ['increment another user\'s post', 'PATCH', (): string => annPost(), { 'views+': 1000 }, 404],
    ['delete another user\'s post', 'DELETE', (): string => annPost(), undefined, 404],
    ['create a post in someone else\'s name', 'POST', (): string => '/api/collections/posts/records', { title: 'x', author: 'ANN' }, 400],
    ['update another user', 'PATCH', (): string => `/api/collections/users/records/${b.users.ann.id}`, { name: 'pwned' }, 404],
    ['list superusers', 'GET', (): string => '/api/collections/_superusers/records', undefined, 403],
    ['create a superuser', 'POST', (): string => '/api/collections/_superusers/records', { email: 'x@example.com', password: 'password123', passwordConfirm: 'password123' }, 403],
    ['manage collections', 'PATCH', (): string => '/api/collections/posts', { listRule: '' }, 403],
    ['reach a system table by name', 'GET', (): string => '/api/collections/_sessions/records', undefined, 404],
    ['escape the collection path', 'GET', (): string => '/api/collections/..%2F_superusers/records', undefined, 404],
  ] as const)('%s', async (_name, method, path, body, status) => {
    const concrete = body && 'author' in body ? { ...body, author: b.users.ann.id } : body;
    const r = await h.req(method, path(), { token: b.users.bob.token, body: concrete });
    expect(r.status, r.text).toBe(status);
    expectNoSecrets(r, ['ann@example.com']);
    const post = await h.req('GET', annPost(), { token: b.su });
    expect(post.body.title).toBe('Ann public');
    expect(post.body.views).toBe(10);
  });

  it('a user cannot verify itself, set hidden fields, or take another record\'s id', async () => {
    const self = await h.req('PATCH', `/api/collections/users/records/${b.users.bob.id}`, { token: b.users.bob.token, body: { verified: true } });
    expect(self.status).toBe(400);
    expect(self.body.data.verified.code).toBe('validation_values_mismatch');
    const hidden = await h.req('PATCH', `/api/collections/posts/records/${b.posts.bobPublic}`, { token: b.users.bob.token, body: { secret: 'mine', 'secret+': 'x' } });
    expect(hidden.status).toBe(200);
    expect((await h.req('GET', `/api/collections/posts/records/${b.posts.bobPublic}`, { token: b.su })).body.secret).toBe('');
    const taken = await h.req('POST', '/api/collections/posts/records', { token: b.users.bob.token, body: { id: b.posts.annPublic, title: 'x', author: b.users.bob.id } });
    expect(taken.status).toBe(400);
    expect(taken.body.data.id.code).toBe('validation_pk_invalid');
  });

  it('a sign-up cannot choose its verified flag or reach another collection', async () => {
    const r = await h.req('POST', '/api/collections/users/records', { body: { email: 'eve@example.com', password: 'password123', passwordConfirm: 'password123', verified: true } });
    expect(r.status).toBe(400);
    expect(r.body.data.verified.code).toBe('validation_values_mismatch');
  });
});
