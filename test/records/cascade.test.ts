// Deleting a record: referring records are deleted (cascadeDelete) or keep their other ids, a required
// relation left empty refuses the whole delete, in PocketBase's order, however deep the chain.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness, type Res } from '../support/harness.js';
import { blog, type Blog } from '../support/blog.js';
import { envelope, scenarios } from '../support/scenario.js';
import { seedOf } from '../support/test-store.js';

const record = (collection: string, id: (b: Blog) => string) => (b: Blog) => `/api/collections/${collection}/records/${id(b)}`;
/** Bob's comment on Ann's public post. */
const comment = async (h: Harness, b: Blog) => {
  const r = await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.annPublic, message: 'c1' } });
  expect(r.status, r.text).toBe(200);
};

describe('on the blog', () => {
  scenarios(blog, [
    {
      name: 'a delete the deleteRule refuses is a 404, and the comments stay',
      before: comment,
      method: 'DELETE', url: record('posts', (b) => b.posts.annPublic), token: (b) => b.users.bob.token,
      status: 404, json: envelope(404, 'Not found.'),
      after: async (_r: Res, h) => { expect((await h.req('GET', '/api/collections/comments/records')).body.totalItems).toBe(1); },
    },
    {
      name: 'delete cascades to the comments',
      before: comment,
      method: 'DELETE', url: record('posts', (b) => b.posts.annPublic), token: (b) => b.users.ann.token,
      status: 204,
      after: async (_r, h) => { expect((await h.req('GET', '/api/collections/comments/records')).body.totalItems).toBe(0); },
    },
    {
      name: 'deleting a tag removes it from the posts\' tags',
      method: 'DELETE', url: record('tags', (b) => b.tags.js), token: (b) => b.su,
      status: 204,
      after: async (_r, h, b) => { expect((await h.req('GET', `/api/collections/posts/records/${b.posts.annDraft}`, { token: b.su })).body.tags).toEqual([]); },
    },
    {
      name: 'a required relation left empty blocks the delete and nothing changes',
      before: async (h, b) => {
        const fields = (await h.req('GET', '/api/collections/comments', { token: b.su })).body.fields.map((f: { name: string }) =>
          f.name === 'post' ? { ...f, cascadeDelete: false, required: true } : f);
        expect((await h.req('PATCH', '/api/collections/comments', { token: b.su, body: { fields } })).status).toBe(200);
        await h.req('POST', '/api/collections/comments/records', { token: b.users.bob.token, body: { post: b.posts.bobPublic, message: 'c' } });
      },
      method: 'DELETE', url: record('posts', (b) => b.posts.bobPublic), token: (b) => b.users.bob.token,
      status: 400,
      after: async (_r, h, b) => { expect((await h.req('GET', `/api/collections/posts/records/${b.posts.bobPublic}`)).status).toBe(200); },
    },
  ]);
});

describe('deep', () => {
  // Deleting through cascades walks an explicit stack, not the call stack: the head of a 6,000-deep chain
  // of cascadeDelete self-relations used to answer 500 (stack overflow). The walk keeps PocketBase's
  // order (PocketBase's: the record first, then referring records, collections by name, fields in
  // order, each cascade followed to its end before the next referrer) and stays one transaction.

  let h: Harness;
  let su: string;
  beforeEach(async () => {
    h = await harness();
    su = await h.superuser();
    const chain = await h.req('POST', '/api/collections', { token: su, body: { name: 'chain', fields: [{ name: 'n', type: 'number' }], listRule: '', viewRule: '' } });
    const fields = [...chain.body.fields, { name: 'parent', type: 'relation', collectionId: chain.body.id, maxSelect: 1, cascadeDelete: true }];
    expect((await h.req('PATCH', '/api/collections/chain', { token: su, body: { fields } })).status).toBe(200);
  });
  afterEach(async () => { await h.close(); });

  /** A chain of `length` records, each pointing at the one before (the first one is the head). */
  async function buildChain(length: number): Promise<string[]> {
    const ids = Array.from({ length }, (_, i) => `c${String(i).padStart(14, '0')}`);
    // one transaction straight into the table: 6,000 API creates would only slow the test down
    await h.core.store.write(async (tx) => {
      ids.forEach((id, i) => tx.run('INSERT INTO "chain" ("id", "n", "parent") VALUES (?, ?, ?)', [id, i, i === 0 ? '' : ids[i - 1]]));
    });
    return ids;
  }

  const count = async () => (await h.req('GET', '/api/collections/chain/records?perPage=1')).body.totalItems as number;

  describe('deep cascades', () => {
    it('deleting the head of a 6,000-deep chain answers 204 and deletes it all', async () => {
      const ids = await buildChain(6000);
      expect(await count()).toBe(6000);
      const r = await h.req('DELETE', `/api/collections/chain/records/${ids[0]}`, { token: su });
      expect(r.status, r.text).toBe(204);
      expect(await count()).toBe(0);
    });

    it('a required reference at the bottom of a deep chain refuses the whole delete: nothing changes', async () => {
      const ids = await buildChain(3000);
      const pins = await h.req('POST', '/api/collections', {
        token: su, body: { name: 'pins', fields: [{ name: 'to', type: 'relation', collectionId: h.core.registry.get('chain')!.id, maxSelect: 1, required: true }] },
      });
      expect(pins.status, pins.text).toBe(200);
      expect((await h.req('POST', '/api/collections/pins/records', { token: su, body: { to: ids[2999] } })).status).toBe(200);
      const r = await h.req('DELETE', `/api/collections/chain/records/${ids[0]}`, { token: su });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Failed to delete record. Make sure that the record is not part of a required relation reference.');
      expect(await count()).toBe(3000);
    });

    it('a truncate is charged its work, not its time: 6,000 records go under a 5 ms budget on both engines', async () => {
      // 6,000 records that refer to none: a statement each (the record as it is now) before its delete
      await h.core.store.write(async (tx) => {
        for (let i = 0; i < 6000; i++) void tx.run('INSERT INTO "chain" ("id", "n", "parent") VALUES (?, ?, ?)', [`r${String(i).padStart(14, '0')}`, i, '']);
      });
      // the same data under a server whose budget is 5 ms (the superuser's session comes with it)
      const seed = await seedOf(h.core.store);
      await h.close();
      h = await harness({ queryBudgetMs: 5 }, seed);
      const r = await h.req('DELETE', '/api/collections/chain/truncate', { token: su });
      // the desktop's budget counts the guarded SQL of filters and rules, PostgreSQL's the rows reads
      // copy out (store-postgres/budget.ts): a truncate's own statements are neither; their time (on
      // PostgreSQL seconds of round trips) is bounded by the far backstop alone, which no statement of
      // it comes near
      expect(r.status, r.text).toBe(204);
      expect(await h.core.store.get('SELECT COUNT(*) AS n FROM "chain"')).toEqual({ n: 0 });
    });

    it('a branching tree is deleted depth first, and a record with other ids left is only updated', async () => {
      const ids = await buildChain(3);
      const fields = (await h.req('GET', '/api/collections/chain', { token: su })).body.fields;
      const multi = [...fields, { name: 'also', type: 'relation', collectionId: h.core.registry.get('chain')!.id, maxSelect: 5, cascadeDelete: true }];
      expect((await h.req('PATCH', '/api/collections/chain', { token: su, body: { fields: multi } })).status).toBe(200);
      const keeper = await h.req('POST', '/api/collections/chain/records', { token: su, body: { n: 99, also: [ids[1], ids[0]] } });
      const other = await h.req('POST', '/api/collections/chain/records', { token: su, body: { n: 100 } });
      await h.req('PATCH', `/api/collections/chain/records/${keeper.body.id}`, { token: su, body: { 'also+': other.body.id } });
      expect((await h.req('DELETE', `/api/collections/chain/records/${ids[0]}`, { token: su })).status).toBe(204);
      const left = (await h.req('GET', '/api/collections/chain/records?perPage=10&sort=n')).body.items;
      expect(left.map((r: { n: number }) => r.n)).toEqual([99, 100]);
      expect(left[0].also).toEqual([other.body.id]);
    });
  });
});
