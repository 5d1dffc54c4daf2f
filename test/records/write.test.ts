// Creating and updating records through the API: field validation with PocketBase's codes, ids,
// modifiers (`views+`, `labels-`, `+tags`), hidden fields, and the record's response shape. The write
// funnel's steps are in write-funnel.test.ts, deletes in cascade.test.ts, races in concurrency.test.ts.

import { describe, expect, it } from 'vitest';
import { type Harness } from '../support/harness.js';
import { eachBlog, type Blog } from '../support/blog.js';

describe('creating and updating records', () => {
  let h: Harness;
  let b: Blog;
  eachBlog((fresh, data) => ((h = fresh), (b = data)));

  it('validation errors come with field codes', async () => {
    const r = await h.req('POST', '/api/collections/posts/records', { token: b.users.ann.token, body: { author: b.users.ann.id, labels: ['nope'], tags: ['missingmissing1'] } });
    expect(r.status).toBe(400);
    expect(r.body.data.title.code).toBe('validation_required');
    expect(r.body.data.labels.code).toBe('validation_invalid_value');
    expect(r.body.data.tags.code).toBe('validation_missing_rel_records');
  });

  it('a given id is used, a bad or duplicate one refused', async () => {
    const ok = await h.req('POST', '/api/collections/tags/records', { token: b.su, body: { id: 'abcdefghij12345', name: 'x' } });
    expect(ok.body.id).toBe('abcdefghij12345');
    const dup = await h.req('POST', '/api/collections/tags/records', { token: b.su, body: { id: 'abcdefghij12345', name: 'y' } });
    expect(dup.status).toBe(400);
    expect(dup.body.data.id).toBeDefined();
    const bad = await h.req('POST', '/api/collections/tags/records', { token: b.su, body: { id: 'BAD', name: 'y' } });
    expect(bad.status).toBe(400);
  });

  it('updateRule answers 404 before validation; modifiers apply', async () => {
    const id = b.posts.annPublic;
    const bob = await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.users.bob.token, body: { title: '' } });
    expect(bob.status).toBe(404);
    const r = await h.req('PATCH', `/api/collections/posts/records/${id}`, { token: b.users.ann.token, body: { 'views+': 5, 'labels-': 'news', '+tags': b.tags.ui } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.views).toBe(15);
    expect(r.body.labels).toEqual(['tech']);
    expect(r.body.tags).toEqual([b.tags.ui, b.tags.js, b.tags.db]);
    expect(r.body.updated >= r.body.created).toBe(true);
  });

  it('hidden fields are shown to superusers only, and only they can set them', async () => {
    const set = await h.req('PATCH', `/api/collections/posts/records/${b.posts.annDraft}`, { token: b.users.ann.token, body: { secret: 'mine' } });
    expect(set.status).toBe(200);
    expect((await h.req('GET', `/api/collections/posts/records/${b.posts.annDraft}`, { token: b.su })).body.secret).toBe('');
    const r1 = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}`, { token: b.users.ann.token });
    expect(r1.body.secret).toBeUndefined();
    const r2 = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}`, { token: b.su });
    expect(r2.body.secret).toBe('s1');
  });

  it('records have collectionId, collectionName and alphabetical keys', async () => {
    const r = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}`);
    expect(r.body.collectionName).toBe('posts');
    expect(r.body.collectionId).toBe(b.ids.posts);
    expect(Object.keys(r.body)).toEqual([...Object.keys(r.body)].sort());
    expect(r.body).toMatchObject({ published: true, views: 10, labels: ['news', 'tech'], meta: { level: 2 } });
    expect(r.body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
