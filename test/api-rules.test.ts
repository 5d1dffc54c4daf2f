// Rules that read the request: @request.body with modifiers, :changed, :isset, back-relations,
// @collection, manageRule.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './support/harness.js';
import { blog, type Blog } from './support/blog.js';

let h: Harness;
let b: Blog;
beforeEach(async () => {
  h = await harness();
  b = await blog(h);
});
afterEach(async () => { await h.close(); });

const patchCollection = async (name: string, body: Record<string, unknown>) => {
  const r = await h.req('PATCH', `/api/collections/${name}`, { token: b.su, body });
  expect(r.status, r.text).toBe(200);
  return r.body;
};

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

describe('relations in rules and superuser filters', () => {
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

  it('expand follows the related collection\'s viewRule, not the parent\'s', async () => {
    await patchCollection('tags', { viewRule: "name != 'db'" });
    const r = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}?expand=tags`);
    expect(r.body.expand.tags.map((t: { name: string }) => t.name)).toEqual(['js']);
    await patchCollection('tags', { viewRule: null });
    const locked = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}?expand=tags`);
    expect(locked.body.expand).toEqual({});
  });
});

describe('manageRule', () => {
  it('managers may verify accounts and set passwords without oldPassword, and see emails', async () => {
    const usersC = (await h.req('GET', '/api/collections/users', { token: b.su })).body;
    await patchCollection('users', { fields: [...usersC.fields, { name: 'admin', type: 'bool' }] });
    await h.req('PATCH', `/api/collections/users/records/${b.users.ann.id}`, { token: b.su, body: { admin: true } });
    await patchCollection('users', { manageRule: '@request.auth.admin = true', updateRule: 'id = @request.auth.id || @request.auth.admin = true', listRule: '' });
    const bob = b.users.bob.id;
    const r = await h.req('PATCH', `/api/collections/users/records/${bob}`, { token: b.users.ann.token, body: { verified: true, password: 'brandnew123', passwordConfirm: 'brandnew123' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.verified).toBe(true);
    expect(r.body.email).toBe('bob@example.com');
    const asBob = await h.req('PATCH', `/api/collections/users/records/${bob}`, { token: b.users.bob.token, body: { name: 'B' } });
    expect(asBob.status).toBe(404); // Bob's session ended with the password change
    expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'bob@example.com', password: 'brandnew123' } })).status).toBe(200);
  });
});

describe('schema changes keep data', () => {
  it('single → multiple relation migrates stored values', async () => {
    const c = (await h.req('GET', '/api/collections/posts', { token: b.su })).body;
    const fields = c.fields.map((f: { name: string }) => (f.name === 'author' ? { ...f, maxSelect: 5 } : f));
    await patchCollection('posts', { fields });
    const r = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}`, { token: b.su });
    expect(r.body.author).toEqual([b.users.ann.id]);
    const back = fields.map((f: { name: string; maxSelect?: number }) => (f.name === 'author' ? { ...f, maxSelect: 1 } : f));
    await patchCollection('posts', { fields: back });
    expect((await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}`, { token: b.su })).body.author).toBe(b.users.ann.id);
  });

  it('fields applies to collection responses too', async () => {
    const r = await h.req('GET', '/api/collections/posts?fields=id,name', { token: b.su });
    expect(r.body).toEqual({ id: b.ids.posts, name: 'posts' });
  });
});
