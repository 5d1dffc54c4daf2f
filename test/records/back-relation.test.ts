// One reading of a back-relation `<collection>_via_<field>` (server/model/back-relation.ts) for expand
// and for filters: the same names reach the same records, a single relation under a unique index is one
// record in both (PocketBase's exception), and a name that reaches nothing is nothing in expand and a
// 400 in a filter.
import { describe, expect, it } from 'vitest';
import { type Harness } from '../support/harness.js';
import { type Blog, eachBlog, patchAsSuperuser } from '../support/blog.js';

describe('back-relations', () => {
  let h: Harness;
  let b: Blog;
  eachBlog((fresh, data) => ((h = fresh), (b = data)));

  const comment = async (post: string, message: string) => {
    const r = await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post, message } });
    expect(r.status, r.text).toBe(200);
  };

  it('expand and filter read the same name: many records, or one under a unique index', async () => {
    await comment(b.posts.annPublic, 'first');
    await comment(b.posts.annPublic, 'second');
    const many = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}?expand=comments_via_post`);
    expect(many.body.expand.comments_via_post.map((c: { message: string }) => c.message).sort()).toEqual(['first', 'second']);
    // a back-relation of several records: `?=` is "any", `=` is "all"
    const any = await h.req('GET', `/api/collections/posts/records?filter=${encodeURIComponent("comments_via_post.message ?= 'first'")}`);
    expect(any.body.items.map((p: { id: string }) => p.id)).toEqual([b.posts.annPublic]);
    const all = await h.req('GET', `/api/collections/posts/records?filter=${encodeURIComponent("comments_via_post.message = 'first'")}`);
    expect(all.body.items).toEqual([]);

    await comment(b.posts.bobPublic, 'only');
    await h.req('DELETE', `/api/collections/posts/records/${b.posts.annPublic}`, { token: b.users.ann.token });
    await patchAsSuperuser(h, b, 'comments', { indexes: ['CREATE UNIQUE INDEX idx_comments_post ON comments (post)'] });
    const one = await h.req('GET', `/api/collections/posts/records/${b.posts.bobPublic}?expand=comments_via_post`);
    expect(one.body.expand.comments_via_post).toMatchObject({ message: 'only' });
    // one record at most: `=` reads it as a single value
    const single = await h.req('GET', `/api/collections/posts/records?filter=${encodeURIComponent("comments_via_post.message = 'only'")}`);
    expect(single.body.items.map((p: { id: string }) => p.id)).toEqual([b.posts.bobPublic]);
  });

  it('a name that reaches no relation pointing here: nothing in expand, a 400 in a filter (naming it to a superuser)', async () => {
    await comment(b.posts.annPublic, 'x');
    for (const name of ['comments_via_message', 'nothing_via_post', 'tags_via_post']) {
      const r = await h.req('GET', `/api/collections/posts/records/${b.posts.annPublic}?expand=${name}`);
      expect(r.status, name).toBe(200);
      expect(r.body.expand ?? {}, name).toEqual({});
      const f = await h.req('GET', `/api/collections/posts/records?filter=${encodeURIComponent(`${name}.id != ''`)}`, { token: b.su });
      expect(f.status, name).toBe(400);
      expect(f.body.data.filter.message.toLowerCase(), name).toContain(`invalid back-relation "${name}"`);
    }
  });
});
