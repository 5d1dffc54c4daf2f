// Races: many clients changing the same records at once. Modifiers (`views+`, `tags+`) are resolved
// again inside the write transaction when another write changed the record since the request read it
// (core/writes/prepare-update.ts), so concurrent increments add up exactly;
// unique constraints (records, sign-up e-mails, collection names) hold whatever the interleaving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { blog, type Blog } from '../support/blog.js';
import { harness, type Harness } from '../support/harness.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { SOAK } from '../fixtures/hardening-soak.js';

// One blog for the in-process tests: each works on records and names of its own.
let h: Harness;
let b: Blog;
beforeAll(async () => {
  h = await harness();
  b = await blog(h);
});
afterAll(async () => { await h.close(); });

const post = (id: string) => `/api/collections/posts/records/${id}`;

describe('modifiers under concurrency (in process)', () => {
  it('concurrent views+ and views- by many requests give exactly the sum', async () => {
    const n = 300 * SOAK;
    const deltas = Array.from({ length: n }, (_, i) => ((i * 7919) % 23) - 11);
    const results = await Promise.all(deltas.map((d) =>
      h.req('PATCH', post(b.posts.annPublic), { token: b.users.ann.token, body: d >= 0 ? { 'views+': d } : { 'views-': -d } })));
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const final = await h.req('GET', post(b.posts.annPublic));
    expect(final.body.views).toBe(10 + deltas.reduce((a, c) => a + c, 0));
  });

  it('concurrent tags+ / labels+ append every value once; tags- removes exactly those', async () => {
    const extra: string[] = [];
    for (let i = 0; i < 8; i++) extra.push((await h.req('POST', '/api/collections/tags/records', { token: b.su, body: { name: `t${i}` } })).body.id);
    const adds = await Promise.all([
      ...extra.map((id) => h.req('PATCH', post(b.posts.bobPublic), { token: b.users.bob.token, body: { 'tags+': id } })),
      ...['news', 'tech', 'life'].map((label) => h.req('PATCH', post(b.posts.bobPublic), { token: b.users.bob.token, body: { 'labels+': label } })),
    ]);
    expect(adds.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const after = (await h.req('GET', post(b.posts.bobPublic))).body;
    expect([...after.tags].sort()).toEqual([...extra].sort());
    expect([...after.labels].sort()).toEqual(['life', 'news', 'tech']);
    await Promise.all(extra.slice(0, 4).map((id) => h.req('PATCH', post(b.posts.bobPublic), { token: b.users.bob.token, body: { 'tags-': id } })));
    expect([...(await h.req('GET', post(b.posts.bobPublic))).body.tags].sort()).toEqual(extra.slice(4).sort());
  });

  it('updates racing a delete never answer 500 and never bring the record back', async () => {
    const rs = await Promise.all([
      ...Array.from({ length: 20 }, () => h.req('PATCH', post(b.posts.annDraft), { token: b.users.ann.token, body: { 'views+': 1 } })),
      h.req('DELETE', post(b.posts.annDraft), { token: b.users.ann.token }),
      ...Array.from({ length: 20 }, () => h.req('PATCH', post(b.posts.annDraft), { token: b.users.ann.token, body: { 'views+': 1 } })),
    ]);
    for (const r of rs) expect([200, 204, 404]).toContain(r.status);
    expect((await h.req('GET', post(b.posts.annDraft), { token: b.su })).status).toBe(404);
  });
});

describe('unique constraints under races (in process)', () => {
  it('one of many concurrent creates with the same unique value wins; the rest are validation_not_unique', async () => {
    const tags = h.core.registry.get('tags')!;
    const nameId = tags.fields.find((f) => f.name === 'name')!.id;
    expect((await h.req('PATCH', '/api/collections/tags', { token: b.su, body: { indexes: [{ name: 'tags_name', fields: [nameId], unique: true }] } })).status).toBe(200);
    const rs = await Promise.all(Array.from({ length: 40 }, () => h.req('POST', '/api/collections/tags/records', { token: b.su, body: { name: 'same' } })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body.data.name.code).toBe('validation_not_unique');
    }
    // and renames of different records to one value
    const others = await Promise.all(['a', 'b', 'c', 'd'].map((name) => h.req('POST', '/api/collections/tags/records', { token: b.su, body: { name } })));
    const renames = await Promise.all(others.map((o) => h.req('PATCH', `/api/collections/tags/records/${o.body.id}`, { token: b.su, body: { name: 'taken-by-one' } })));
    expect(renames.filter((r) => r.status === 200)).toHaveLength(1);
    const list = await h.req('GET', `/api/collections/tags/records?filter=${encodeURIComponent('name = "taken-by-one" || name = "same"')}`, { token: b.su });
    expect(list.body.totalItems).toBe(2);
  });

  it('concurrent sign-ups with one e-mail (in any case) create one account', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => (i % 2 ? 'Race@Example.com' : 'race@example.com'));
    const rs = await Promise.all(emails.map((email) =>
      h.req('POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 200)) expect(r.body.data.email.code).toBe('validation_not_unique');
  });

  it('concurrent collection creates with one name create one collection', async () => {
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      h.req('POST', '/api/collections', { token: b.su, body: { name: i % 2 ? 'Racers' : 'racers' } })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 200)) expect(r.body.data.name.code).toBe('validation_not_unique');
  });

  it('concurrent failed sign-ins all count: the account is blocked after them', async () => {
    const rs = await Promise.all(Array.from({ length: 15 }, () =>
      h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'wrong-password' } })));
    expect(rs.every((r) => r.status === 400)).toBe(true);
    const right = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'password123' } });
    expect(right.status).toBe(400);
  });
});

describe('many clients over a real socket', () => {
  let server: RunningServer;
  let su: string;
  beforeAll(async () => {
    server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined });
    su = await setupSuperuser(server.url, (await server.setupToken())!);
    const c = await http(server.url, 'POST', '/api/collections', {
      token: su, body: { name: 'counters', fields: [{ name: 'hits', type: 'number' }, { name: 'code', type: 'text' }], viewRule: '', updateRule: '', createRule: '' },
    });
    const codeId = c.body.fields.find((f: { name: string }) => f.name === 'code').id;
    await http(server.url, 'PATCH', '/api/collections/counters', { token: su, body: { indexes: [{ name: 'counters_code', fields: [codeId], unique: true }] } });
  });
  afterAll(async () => { await server.close(); });

  it('50 clients x 10 increments each on one record add up exactly; one unique code wins', async () => {
    const id = (await http(server.url, 'POST', '/api/collections/counters/records', { body: { hits: 0, code: 'first' } })).body.id as string;
    const clients = 50, each = 10 * SOAK;
    const statuses: number[] = [];
    await Promise.all(Array.from({ length: clients }, async () => {
      for (let i = 0; i < each; i++) statuses.push((await http(server.url, 'PATCH', `/api/collections/counters/records/${id}`, { body: { 'hits+': 1 } })).status);
    }));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect((await http(server.url, 'GET', `/api/collections/counters/records/${id}`)).body.hits).toBe(clients * each);

    const codes = await Promise.all(Array.from({ length: clients }, () => http(server.url, 'POST', '/api/collections/counters/records', { body: { code: 'contested' } })));
    expect(codes.filter((r) => r.status === 200)).toHaveLength(1);
    expect(codes.filter((r) => r.status === 400 && r.body.data.code?.code === 'validation_not_unique')).toHaveLength(clients - 1);
  });
});
