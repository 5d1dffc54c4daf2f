// Rules that read the request through the API: @request.body after the write resolved its modifiers,
// :changed and :isset, @request.method, query and headers, back-relations and @collection. The
// compiler's own tables of @request values are in filter/request-values.test.ts.

import { describe, expect } from 'vitest';
import { type Harness } from '../support/harness.js';
import { blog, type Blog, patchAsSuperuser } from '../support/blog.js';
import { envelope, scenarios } from '../support/scenario.js';

const record = (collection: string, id: string) => `/api/collections/${collection}/records/${id}`;
const rule = (name: string, body: Record<string, unknown>) => (h: Harness, b: Blog) => patchAsSuperuser(h, b, name, body).then(() => undefined);
const ann = (b: Blog) => b.users.ann.token;

describe('@request.body in rules', () => {
  const authorFixed = rule('posts', { updateRule: 'author = @request.auth.id && @request.body.author:changed = false' });
  const viewsCapped = rule('posts', { updateRule: 'author = @request.auth.id && @request.body.views <= 12' });
  const nameSet = rule('tags', { createRule: '@request.body.name:isset = true && @request.body.name != "forbidden"' });
  scenarios(blog, [
    {
      name: ':changed = false forbids changing a field (404)', before: authorFixed,
      method: 'PATCH', url: (b) => record('posts', b.posts.annPublic), token: ann, body: (b) => ({ author: b.users.bob.id }),
      status: 404, json: envelope(404, 'Not found.'),
    },
    {
      name: ':changed = false lets other changes pass', before: authorFixed,
      method: 'PATCH', url: (b) => record('posts', b.posts.annPublic), token: ann, body: (b) => ({ author: b.users.ann.id, title: 'renamed' }),
      status: 200, match: { title: 'renamed' },
    },
    // annPublic has 10 views
    {
      name: 'modifiers are resolved before the rule reads @request.body: views+ 2 → 12 passes', before: viewsCapped,
      method: 'PATCH', url: (b) => record('posts', b.posts.annPublic), token: ann, body: { 'views+': 2 },
      status: 200, match: { views: 12 },
    },
    {
      name: 'modifiers are resolved before the rule reads @request.body: views+ 3 → 13 is refused', before: viewsCapped,
      method: 'PATCH', url: (b) => record('posts', b.posts.annPublic), token: ann, body: { 'views+': 3 },
      status: 404, json: envelope(404, 'Not found.'),
    },
    { name: ':isset on create: a name passes', before: nameSet, method: 'POST', url: '/api/collections/tags/records', body: { name: 'ok' }, status: 200, match: { name: 'ok' } },
    { name: ':isset on create: a refused name', before: nameSet, method: 'POST', url: '/api/collections/tags/records', body: { name: 'forbidden' }, status: 400 },
    { name: ':isset on create: no name', before: nameSet, method: 'POST', url: '/api/collections/tags/records', body: {}, status: 400 },
  ]);
});

describe('@request.method, @request.query and @request.headers', () => {
  const appOnly = rule('tags', { listRule: '@request.method = "GET" && @request.headers.x_app = "deskbase" && @request.query.k = "1"' });
  scenarios(blog, [
    { name: 'the header and query the rule names: every tag', before: appOnly, method: 'GET', url: '/api/collections/tags/records?k=1', headers: { 'x-app': 'deskbase' }, status: 200, match: { totalItems: 3 } },
    { name: 'without the header: none', before: appOnly, method: 'GET', url: '/api/collections/tags/records?k=1', status: 200, match: { totalItems: 0, items: [] } },
  ]);
});

describe('back-relations and @collection', () => {
  scenarios(blog, [
    {
      name: 'a back-relation rule: posts commented by the caller',
      before: async (h, b) => {
        await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.annDraft, message: 'hi' } });
        const fields = (await h.req('GET', '/api/collections/comments', { token: b.su })).body.fields;
        const withAuthor = [...fields, { name: 'by', type: 'relation', collectionId: h.core.registry.get('users')!.id, maxSelect: 1 }];
        await patchAsSuperuser(h, b, 'comments', { fields: withAuthor });
        const c = await h.req('POST', '/api/collections/comments/records', { token: b.su, body: { post: b.posts.bobDraft, message: 'yo', by: b.users.ann.id } });
        expect(c.status, c.text).toBe(200);
        await patchAsSuperuser(h, b, 'posts', { listRule: 'published = true || comments_via_post.by ?= @request.auth.id' });
      },
      method: 'GET', url: '/api/collections/posts/records', token: ann, status: 200,
      after: (r) => { expect(r.body.items.map((i: { title: string }) => i.title).sort()).toEqual(['Ann public', 'Bob draft', 'Bob public']); },
    },
    {
      name: '@collection joins in a rule, with ?= meaning "at least one"',
      before: rule('tags', { listRule: "@collection.posts.tags ?~ id && @collection.posts.published ?= true" }),
      method: 'GET', url: '/api/collections/tags/records', status: 200,
      after: (r) => { expect(r.body.totalItems).toBeGreaterThan(0); },
    },
    {
      name: 'superusers may filter by @collection',
      method: 'GET', url: `/api/collections/posts/records?filter=${encodeURIComponent("@collection.tags.name ?= 'db'")}`, token: (b) => b.su, status: 200,
    },
    {
      name: 'others get 403 for a filter by @collection',
      method: 'GET', url: `/api/collections/posts/records?filter=${encodeURIComponent("@collection.tags.name ?= 'db'")}`, token: ann,
      status: 403, match: { status: 403, message: 'Only superusers can filter by @collection.' },
    },
  ]);
});
