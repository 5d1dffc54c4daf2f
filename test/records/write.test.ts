// Creating and updating records through the API: field validation with PocketBase's codes, ids,
// modifiers (`views+`, `labels-`, `+tags`), hidden fields, and the record's response shape. The write
// funnel's steps are in write-funnel.test.ts, deletes in cascade.test.ts, races in concurrency.test.ts.

import { describe, expect } from 'vitest';
import { blog, type Blog } from '../support/blog.js';
import { scenarios } from '../support/scenario.js';

const POSTS = '/api/collections/posts/records';
const TAGS = '/api/collections/tags/records';
const post = (key: string) => (b: Blog) => `${POSTS}/${b.posts[key]}`;
const code = (c: string) => ({ code: c, message: expect.any(String) });

describe('creating and updating records', () => {
  scenarios(blog, [
    {
      name: 'validation errors come with field codes',
      method: 'POST', url: POSTS, token: (b) => b.users.ann.token, body: (b) => ({ author: b.users.ann.id, labels: ['nope'], tags: ['missingmissing1'] }),
      status: 400,
      match: { status: 400, data: { title: code('validation_required'), labels: code('validation_invalid_value'), tags: code('validation_missing_rel_records') } },
    },
    { name: 'a given id is used', method: 'POST', url: TAGS, token: (b) => b.su, body: { id: 'abcdefghij12345', name: 'x' }, status: 200, match: { id: 'abcdefghij12345', name: 'x' } },
    {
      name: 'a duplicate id is refused, naming the id',
      before: async (h, b) => { expect((await h.req('POST', TAGS, { token: b.su, body: { id: 'abcdefghij12345', name: 'x' } })).status).toBe(200); },
      method: 'POST', url: TAGS, token: (b) => b.su, body: { id: 'abcdefghij12345', name: 'y' },
      status: 400, match: { status: 400, data: { id: code('validation_pk_invalid') } },
    },
    { name: 'a malformed id is refused', method: 'POST', url: TAGS, token: (b) => b.su, body: { id: 'BAD', name: 'y' }, status: 400, match: { status: 400, data: { id: { code: expect.any(String) } } } },
    {
      name: 'updateRule answers 404 before validation',
      method: 'PATCH', url: post('annPublic'), token: (b) => b.users.bob.token, body: { title: '' },
      status: 404, json: { status: 404, message: 'Not found.', data: {} },
    },
    {
      name: 'modifiers apply: views+, labels-, +tags',
      method: 'PATCH', url: post('annPublic'), token: (b) => b.users.ann.token, body: (b) => ({ 'views+': 5, 'labels-': 'news', '+tags': b.tags.ui }),
      status: 200, match: (b) => ({ views: 15, labels: ['tech'], tags: [b.tags.ui, b.tags.js, b.tags.db] }),
      after: (r) => { expect(r.body.updated >= r.body.created).toBe(true); },
    },
    {
      name: 'only superusers set hidden fields: a user\'s value is dropped',
      method: 'PATCH', url: post('annDraft'), token: (b) => b.users.ann.token, body: { secret: 'mine' },
      status: 200,
      after: async (r, h, b) => {
        expect(r.body.secret).toBeUndefined();
        expect((await h.req('GET', `${POSTS}/${b.posts.annDraft}`, { token: b.su })).body.secret).toBe('');
      },
    },
    {
      name: 'hidden fields are not shown to users',
      method: 'GET', url: post('annPublic'), token: (b) => b.users.ann.token, status: 200,
      after: (r) => { expect(r.body).not.toHaveProperty('secret'); },
    },
    { name: 'hidden fields are shown to superusers', method: 'GET', url: post('annPublic'), token: (b) => b.su, status: 200, match: { secret: 's1' } },
    {
      name: 'records have collectionId, collectionName and alphabetical keys',
      method: 'GET', url: post('annPublic'), status: 200,
      match: (b) => ({ collectionName: 'posts', collectionId: b.ids.posts, published: true, views: 10, labels: ['news', 'tech'], meta: { level: 2 } }),
      after: (r) => {
        expect(Object.keys(r.body)).toEqual([...Object.keys(r.body)].sort());
        expect(r.body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      },
    },
  ]);
});
