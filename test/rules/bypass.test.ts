// Rule bypass attempts through every door a client has: filter, sort, expand, fields, back-relations,
// @collection and @request, modifiers and body keys. Each is refused or answers as if the hidden data
// did not exist; a superuser control shows the probe would have found something.
import { describe, expect } from 'vitest';
import { blog, type Blog } from '../support/blog.js';
import type { Harness, Res } from '../support/harness.js';
import { envelope, scenarios, type Scenario } from '../support/scenario.js';

/** The blog, with a comment (listable by anyone) on Ann's draft and a hidden value on Ann's posts. */
async function probed(h: Harness): Promise<Blog> {
  const b = await blog(h);
  const c = await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.annDraft, message: 'psst' } });
  if (c.status !== 200) throw new Error(c.text);
  // a hidden value no random id can contain by chance
  for (const id of [b.posts.annPublic, b.posts.annDraft]) await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.su, body: { secret: 'hush-hush-value' } });
  return b;
}

type Who = 'guest' | 'bob' | 'su';
const tokenOf = (b: Blog, who: Who) => (who === 'guest' ? undefined : who === 'su' ? b.su : b.users.bob.token);
const listUrl = (collection: string, query: Record<string, string>) => `/api/collections/${collection}/records?${new URLSearchParams(query)}`;
const count = (r: Res) => (r.status === 200 ? (r.body.totalItems as number) : -r.status);

/**
 * Secrets no non-superuser answer may contain: the hidden field, the draft's content, Ann's e-mail
 * (emailVisibility false), password hashes. (The draft's id may show: a comment's own relation field
 * holds it.)
 */
const SECRETS = ['"secret"', 'hush-hush-value', 'Ann draft', 'ann@example.com', 'scrypt$', '"password"'];

/** A list as `who`: its status and, for guests and users, no secret in the answer. */
const listAs = (who: Who, collection: string, query: Record<string, string>, status: number, extra: Partial<Scenario<Blog>> = {}): Scenario<Blog> => ({
  name: `${who}: ${collection} ${JSON.stringify(query)} → ${status}`,
  method: 'GET', url: listUrl(collection, query), token: (b) => tokenOf(b, who), status,
  ...(who === 'su' ? {} : { notExpectedContent: SECRETS }),
  ...extra,
});
const USERS = ['guest', 'bob'] as const;

describe('filter and sort probes are refused (400/403) or find nothing', () => {
  const refused: [string, Record<string, string>, number][] = [
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
  ];
  // probes of data the caller cannot see: the count must not depend on the hidden value
  const probes: [string, string, string][] = [
    ['posts', "author.email = 'ann@example.com'", "author.email = 'nobody@example.com'"],
    ['posts', "author.email ~ 'ann'", "author.email ~ 'zzz'"],
    ['posts', "author.name = 'Ann'", "author.name = 'Nobody'"],
    ['comments', "post.title = 'Ann draft'", "post.title = 'No such post'"],
    ['comments', "post.published = false", "post.published = true && post.published = false"],
    ['comments', "post.views = 3", "post.views = 12345"],
    ['tags', "posts_via_tags.title ?= 'Ann draft'", "posts_via_tags.title ?= 'No such post'"],
    ['tags', "posts_via_tags.views ?> 2.5 && posts_via_tags.views ?< 3.5", "posts_via_tags.views ?= 12345"],
  ];
  /** The probe, and its negative control asked by the same caller: `compare(probe, control)` holds. */
  const probe = (who: Who, collection: string, filter: string, control: string, compare: (hit: number, miss: number) => void): Scenario<Blog> => ({
    name: `${who}: ${collection}: ${filter} ${who === 'su' ? 'finds more than' : 'finds as much as'} its negative control`,
    method: 'GET', url: listUrl(collection, { filter }), token: (b) => tokenOf(b, who),
    status: who === 'su' ? 200 : [200, 400], // refused, or answered as if the hidden data did not exist
    ...(who === 'su' ? {} : { notExpectedContent: SECRETS }),
    after: async (hit, h, b) => {
      const miss = await h.req('GET', listUrl(collection, { filter: control }), { token: tokenOf(b, who) });
      compare(count(hit), count(miss));
    },
  });
  const envelopeOnly = { after: (r: Res) => { expect(Object.keys(r.body).sort()).toEqual(['data', 'message', 'status']); } };
  scenarios(probed, [
    ...refused.flatMap(([collection, query, status]) => [
      ...USERS.map((who) => listAs(who, collection, query, status, envelopeOnly)),
      listAs('su', collection, query, 200),
    ]),
    ...USERS.map((who) => listAs(who, 'posts', { sort: '@request.auth.id' }, 403)),
    ...probes.flatMap(([collection, filter, control]) => [
      ...USERS.map((who) => probe(who, collection, filter, control, (hit, miss) => { expect(hit).toBe(miss); })),
      // the superuser shows the probe does match something
      probe('su', collection, filter, control, (hit, miss) => { expect(hit).toBeGreaterThan(miss); }),
    ]),
    {
      // comments sorted by their post's views: the draft's 3 must not place its comment
      name: 'sorting by a field of records the caller cannot see does not order by it',
      method: 'GET', url: listUrl('comments', { sort: 'post.views,created' }), status: 200,
      after: async (asc, h) => {
        const desc = await h.req('GET', listUrl('comments', { sort: '-post.views,created' }));
        expect(asc.body.items.map((i: { id: string }) => i.id)).toEqual(desc.body.items.map((i: { id: string }) => i.id));
      },
    },
  ]);
});

describe('expand, fields and back-relations never reach hidden records or fields', () => {
  const queries: [string, Record<string, string>][] = [
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
  ];
  scenarios(probed, [
    ...queries.flatMap(([collection, query]) => USERS.map((who) => listAs(who, collection, query, 200))),
    ...['', '?expand=author', '?fields=id', '?expand=comments_via_post'].map((query): Scenario<Blog> => ({
      name: `a view of a hidden record is 404 whatever the query asks: "${query}"`,
      method: 'GET', url: (b) => `/api/collections/posts/records/${b.posts.annDraft}${query}`, token: (b) => b.users.bob.token,
      status: 404, json: envelope(404, 'Not found.'),
    })),
  ]);
});

describe('writes cannot cross the rules', () => {
  const annPost = (b: Blog): string => `/api/collections/posts/records/${b.posts.annPublic}`;
  const attempts: [string, string, (b: Blog) => string, ((b: Blog) => Record<string, unknown>) | undefined, number][] = [
    ['update another user\'s post', 'PATCH', annPost, () => ({ title: 'pwned' }), 404],
    ['increment another user\'s post', 'PATCH', annPost, () => ({ 'views+': 1000 }), 404],
    ['delete another user\'s post', 'DELETE', annPost, undefined, 404],
    ['create a post in someone else\'s name', 'POST', () => '/api/collections/posts/records', (b) => ({ title: 'x', author: b.users.ann.id }), 400],
    ['update another user', 'PATCH', (b) => `/api/collections/users/records/${b.users.ann.id}`, () => ({ name: 'pwned' }), 404],
    ['list superusers', 'GET', () => '/api/collections/_superusers/records', undefined, 403],
    ['create a superuser', 'POST', () => '/api/collections/_superusers/records', () => ({ email: 'x@example.com', password: 'password123', passwordConfirm: 'password123' }), 403],
    ['manage collections', 'PATCH', () => '/api/collections/posts', () => ({ listRule: '' }), 403],
    ['reach a system table by name', 'GET', () => '/api/collections/_sessions/records', undefined, 404],
    ['escape the collection path', 'GET', () => '/api/collections/..%2F_superusers/records', undefined, 404],
  ];
  scenarios(probed, [
    ...attempts.map(([name, method, url, body, status]): Scenario<Blog> => ({
      name, method, url, body, token: (b) => b.users.bob.token, status,
      notExpectedContent: SECRETS.filter((s) => s !== 'ann@example.com'),
      // Ann's post is as it was
      after: async (_r, h, b) => {
        const post = await h.req('GET', annPost(b), { token: b.su });
        expect(post.body.title).toBe('Ann public');
        expect(post.body.views).toBe(10);
      },
    })),
    {
      name: 'a user cannot verify itself',
      method: 'PATCH', url: (b) => `/api/collections/users/records/${b.users.bob.id}`, token: (b) => b.users.bob.token, body: { verified: true },
      status: 400, match: { data: { verified: { code: 'validation_values_mismatch' } } },
    },
    {
      name: 'a user cannot set hidden fields: the write is done, the hidden field left as it was',
      method: 'PATCH', url: (b) => `/api/collections/posts/records/${b.posts.bobPublic}`, token: (b) => b.users.bob.token, body: { secret: 'mine', 'secret+': 'x' },
      status: 200,
      after: async (_r, h, b) => { expect((await h.req('GET', `/api/collections/posts/records/${b.posts.bobPublic}`, { token: b.su })).body.secret).toBe(''); },
    },
    {
      name: 'a user cannot take another record\'s id',
      method: 'POST', url: '/api/collections/posts/records', token: (b) => b.users.bob.token, body: (b) => ({ id: b.posts.annPublic, title: 'x', author: b.users.bob.id }),
      status: 400, match: { data: { id: { code: 'validation_pk_invalid' } } },
    },
    {
      name: 'a sign-up cannot choose its verified flag',
      method: 'POST', url: '/api/collections/users/records', body: { email: 'eve@example.com', password: 'password123', passwordConfirm: 'password123', verified: true },
      status: 400, match: { data: { verified: { code: 'validation_values_mismatch' } } },
    },
  ]);
});
