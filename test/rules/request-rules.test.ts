// Rules that read the request through the API: @request.body after the write resolved its modifiers,
// :changed and :isset, @request.method, query and headers, back-relations and @collection. The
// compiler's own tables of @request values are in filter/request-values.test.ts.

import { describe, expect, it } from 'vitest';
import { type Harness } from '../support/harness.js';
import { type Blog, eachBlog, patchAsSuperuser } from '../support/blog.js';

describe('rules reading the request', () => {
  // Rules that read the request: @request.body with modifiers, :changed, :isset, back-relations,
  // @collection, manageRule.

  let h: Harness;
  let b: Blog;
  eachBlog((fresh, data) => ((h = fresh), (b = data)));

  const patchCollection = (name: string, body: Record<string, unknown>) => patchAsSuperuser(h, b, name, body);

  describe('@request.body in rules', () => {
    it(':changed = false forbids changing a field (404), other changes pass', async () => {
      await patchCollection('posts', { updateRule: 'author = @request.auth.id && @request.body.author:changed = false' });
      const id = b.posts.annPublic;
      const steal = await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.users.ann.token, body: { author: b.users.bob.id } });
      expect(steal.status).toBe(404);
      const same = await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.users.ann.token, body: { author: b.users.ann.id, title: 'renamed' } });
      expect(same.status, same.text).toBe(200);
      expect(same.body.title).toBe('renamed');
    });

    it('modifiers are resolved before the rule reads @request.body', async () => {
      await patchCollection('posts', { updateRule: 'author = @request.auth.id && @request.body.views <= 12' });
      const id = b.posts.annPublic; // views 10
      expect((await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.users.ann.token, body: { 'views+': 2 } })).status).toBe(200);
      expect((await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.users.ann.token, body: { 'views+': 1 } })).status).toBe(404);
    });

    it(':isset on create', async () => {
      await patchCollection('tags', { createRule: '@request.body.name:isset = true && @request.body.name != "forbidden"' });
      expect((await h.req('POST', '/api/collections/tags/records', { body: { name: 'ok' } })).status).toBe(200);
      expect((await h.req('POST', '/api/collections/tags/records', { body: { name: 'forbidden' } })).status).toBe(400);
      expect((await h.req('POST', '/api/collections/tags/records', { body: {} })).status).toBe(400);
    });

    it('@request.method, @request.query and @request.headers', async () => {
      await patchCollection('tags', { listRule: '@request.method = "GET" && @request.headers.x_app = "deskbase" && @request.query.k = "1"' });
      expect((await h.req('GET', '/api/collections/tags/records?k=1', { headers: { 'x-app': 'deskbase' } })).body.totalItems).toBe(3);
      expect((await h.req('GET', '/api/collections/tags/records?k=1')).body.totalItems).toBe(0);
    });
  });

  it('a back-relation rule: posts commented by the caller', async () => {
    await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.annDraft, message: 'hi' } });
    const fields = (await h.req('GET', '/api/collections/comments', { token: b.su })).body.fields;
    const withAuthor = [...fields, { name: 'by', type: 'relation', collectionId: h.core.registry.get('users')!.id, maxSelect: 1 }];
    await patchCollection('comments', { fields: withAuthor });
    const c = await h.req('POST', '/api/collections/comments/records', { token: b.su, body: { post: b.posts.bobDraft, message: 'yo', by: b.users.ann.id } });
    expect(c.status, c.text).toBe(200);
    await patchCollection('posts', { listRule: 'published = true || comments_via_post.by ?= @request.auth.id' });
    const r = await h.req('GET', '/api/collections/posts/records', { token: b.users.ann.token });
    expect(r.body.items.map((i: { title: string }) => i.title).sort()).toEqual(['Ann public', 'Bob draft', 'Bob public']);
  });

  it('@collection joins in a rule, with ?= meaning "at least one"', async () => {
    await patchCollection('tags', { listRule: "@collection.posts.tags ?~ id && @collection.posts.published ?= true" });
    const r = await h.req('GET', '/api/collections/tags/records');
    expect(r.body.totalItems).toBeGreaterThan(0);
  });

  it('superusers may filter by @collection; others get 403', async () => {
    const f = encodeURIComponent("@collection.tags.name ?= 'db'");
    expect((await h.req('GET', `/api/collections/posts/records?filter=${f}`, { token: b.su })).status).toBe(200);
    const r = await h.req('GET', `/api/collections/posts/records?filter=${f}`, { token: b.users.ann.token });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('Only superusers can filter by @collection.');
  });
});
