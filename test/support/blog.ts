// A small blog schema shared by the record scenario tests: users (auth), tags, posts with an author
// relation, a multiple tags relation, a multiple select, json and numbers, and comments on posts.
import { afterEach, beforeEach, expect } from 'vitest';
import { harness, type Harness } from './harness.js';

export interface Blog {
  su: string;
  ids: { posts: string; tags: string; comments: string };
  users: { ann: { id: string; token: string }; bob: { id: string; token: string } };
  tags: Record<string, string>;
  posts: Record<string, string>;
}

export async function blog(h: Harness): Promise<Blog> {
  const su = await h.superuser();
  const mk = async (body: Record<string, unknown>) => {
    const r = await h.req('POST', '/api/collections', { token: su, body });
    if (r.status !== 200) throw new Error(`collection ${String(body.name)}: ${r.text}`);
    return r.body.id as string;
  };
  const usersId = h.core.registry.get('users')!.id;
  const tags = await mk({ name: 'tags', listRule: '', viewRule: '', fields: [{ name: 'name', type: 'text', required: true }, { name: 'created', type: 'autodate', onCreate: true }] });
  const posts = await mk({
    name: 'posts',
    fields: [
      { name: 'title', type: 'text', required: true, max: 200 },
      { name: 'body', type: 'editor' },
      { name: 'published', type: 'bool' },
      { name: 'views', type: 'number' },
      { name: 'labels', type: 'select', values: ['news', 'tech', 'life'], maxSelect: 3 },
      { name: 'author', type: 'relation', collectionId: usersId, maxSelect: 1 },
      { name: 'tags', type: 'relation', collectionId: tags, maxSelect: 10 },
      { name: 'meta', type: 'json' },
      { name: 'secret', type: 'text', hidden: true },
      { name: 'created', type: 'autodate', onCreate: true },
      { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
    ],
    listRule: 'published = true || author = @request.auth.id',
    viewRule: 'published = true || author = @request.auth.id',
    createRule: '@request.auth.id != "" && author = @request.auth.id',
    updateRule: 'author = @request.auth.id',
    deleteRule: 'author = @request.auth.id',
  });
  const comments = await mk({
    name: 'comments',
    fields: [
      { name: 'post', type: 'relation', collectionId: posts, maxSelect: 1, cascadeDelete: true },
      { name: 'message', type: 'text' },
      { name: 'created', type: 'autodate', onCreate: true },
    ],
    listRule: '', viewRule: '', createRule: '@request.auth.id != ""',
  });
  const user = async (email: string, name: string) => {
    const r = await h.req('POST', '/api/collections/users/records', { body: { email, name, password: 'password123', passwordConfirm: 'password123' } });
    if (r.status !== 200) throw new Error(r.text);
    return { id: r.body.id as string, token: await h.signIn('users', email, 'password123') };
  };
  const ann = await user('ann@example.com', 'Ann');
  const bob = await user('bob@example.com', 'Bob');
  const tagIds: Record<string, string> = {};
  for (const name of ['js', 'db', 'ui']) {
    tagIds[name] = (await h.req('POST', '/api/collections/tags/records', { token: su, body: { name } })).body.id;
  }
  const postIds: Record<string, string> = {};
  const post = async (key: string, token: string, body: Record<string, unknown>) => {
    const r = await h.req('POST', '/api/collections/posts/records', { token, body });
    if (r.status !== 200) throw new Error(`${key}: ${r.text}`);
    postIds[key] = r.body.id;
  };
  await post('annPublic', ann.token, { title: 'Ann public', published: true, views: 10, labels: ['news', 'tech'], author: ann.id, tags: [tagIds.js, tagIds.db], meta: { level: 2 } });
  await post('annDraft', ann.token, { title: 'Ann draft', published: false, views: 3, labels: ['life'], author: ann.id, tags: [tagIds.js], meta: { level: 1 } });
  await post('bobPublic', bob.token, { title: 'Bob public', published: true, views: 7, labels: [], author: bob.id, tags: [], meta: null });
  await post('bobDraft', bob.token, { title: 'Bob draft', published: false, views: 0, author: bob.id, tags: [tagIds.ui] });
  // hidden fields are dropped from non-superusers' bodies: the superuser sets the secret
  await h.req('PATCH', `/api/collections/posts/records/${postIds.annPublic}`, { token: su, body: { secret: 's1' } });
  return { su, ids: { posts, tags, comments }, users: { ann, bob }, tags: tagIds, posts: postIds };
}

/** A fresh harness and blog before each test of the enclosing describe (handed to `set`), closed after it. */
export function eachBlog(set: (h: Harness, b: Blog) => void): void {
  let current: Harness | null = null;
  beforeEach(async () => {
    current = await harness();
    set(current, await blog(current));
  });
  afterEach(async () => { await current?.close(); });
}

/** Who a scenario row calls as: a guest, one of the blog's users, or its superuser. */
export type Caller = 'guest' | 'ann' | 'bob' | 'su';

/** The bearer token of `who` on the blog (undefined for a guest). */
export const tokenOf = (b: Blog, who: Caller): string | undefined =>
  who === 'guest' ? undefined : who === 'su' ? b.su : b.users[who].token;

/** PATCH /api/collections/{name} as the blog's superuser, expecting a 200; answers the collection. */
export async function patchAsSuperuser(h: Harness, b: Blog, name: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await h.req('PATCH', `/api/collections/${name}`, { token: b.su, body });
  expect(r.status, r.text).toBe(200);
  return r.body;
}
