// Issue 21, item 3: large values and large batches must not stall everyone. Against a server in its own
// process while `/api/health` is polled (bound 250 ms here): oversized values are refused before anything
// reads them, one write (or one whole batch) stores at most 8 MiB, and a batch's prepare steps share one
// query budget, a turn of the loop apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpRes } from '../fixtures/hardening-http.js';
import { whilePolled } from '../fixtures/health-poll.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';

const BOUND_MS = 250;
let server: ChildServer;
let url: string;
let user: string;
const worst: Record<string, number> = {};

beforeAll(async () => {
  server = await startChildServer('write-budgets');
  url = server.url;
  const su = server.su;
  const r = await http(url, 'POST', '/api/collections', {
    token: su,
    body: {
      name: 'notes', listRule: '', viewRule: '', createRule: '@request.auth.id != ""', updateRule: '@request.auth.id != ""',
      fields: [{ name: 'title', type: 'text' }, { name: 'body', type: 'editor' }, { name: 'body2', type: 'editor' }, { name: 'meta', type: 'json' }],
    },
  });
  expect(r.status, r.text).toBe(200);
  // a create rule that reads every path of a 14 x 14 x 14 graph ("all" semantics scan them all):
  // well under the query budget once, far over it fifty times
  const nodes = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'nodes', listRule: '', viewRule: '', fields: [{ name: 'name', type: 'text' }] } });
  expect(nodes.status, nodes.text).toBe(200);
  const linked = await http(url, 'PATCH', '/api/collections/nodes', { token: su, body: { fields: [...nodes.body.fields, { name: 'links', type: 'relation', collectionId: nodes.body.id, maxSelect: 20 }] } });
  expect(linked.status, linked.text).toBe(200);
  const ids: string[] = [];
  for (let i = 0; i < 14; i++) ids.push((await http(url, 'POST', '/api/collections/nodes/records', { token: su, body: { name: `n${i}` } })).body.id);
  for (const id of ids) await http(url, 'PATCH', `/api/collections/nodes/records/${id}`, { token: su, body: { links: ids } });
  const inbox = await http(url, 'POST', '/api/collections', {
    token: su,
    body: { name: 'inbox', listRule: '', createRule: '@collection.nodes.links.links.name != @request.body.name', fields: [{ name: 'name', type: 'text' }] },
  });
  expect(inbox.status, inbox.text).toBe(200);
  // any signed-up user can send these
  const signUp = await http(url, 'POST', '/api/collections/users/records', { body: { email: 'eve@example.com', password: 'password123', passwordConfirm: 'password123' } });
  expect(signUp.status, signUp.text).toBe(200);
  user = (await http(url, 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'eve@example.com', password: 'password123' } })).body.token;
}, 60_000);

afterAll(async () => {
  console.log(`write-budgets: longest /api/health wait (ms) during each hostile request: ${JSON.stringify(worst)}`);
  await server?.stop();
});

async function polled(name: string, request: () => Promise<HttpRes>): Promise<HttpRes> {
  const { result, longest } = await whilePolled(url, request, server.child.proc.pid);
  worst[name] = Math.round(longest);
  expect(longest, `${name}: /api/health waited ${longest.toFixed(0)} ms`).toBeLessThan(BOUND_MS);
  return result;
}

const batchOf = (n: number, body: string) => ({
  requests: Array.from({ length: n }, (_, i) => ({ method: 'POST', url: '/api/collections/notes/records', body: { title: `n${i}`, body } })),
});
const notes = async () => (await http(url, 'GET', '/api/collections/notes/records?perPage=1&fields=id')).body.totalItems as number;

describe('a batch has one budget for its values', () => {
  const value = `<p>${'x'.repeat(600_000)}</p>`;

  it('50 creates of 600 KB each (30 MB) are refused before anything is written, naming the request that passes 8 MiB', async () => {
    const before = await notes();
    const r = await polled('batch-50x600KB', () => http(url, 'POST', '/api/batch', { token: user, body: batchOf(50, value) }));
    expect(r.status, r.text.slice(0, 300)).toBe(400);
    expect(r.body.message).toBe('Batch transaction failed.');
    const failed = r.body.data.requests['13'];
    expect(failed.code).toBe('batch_request_failed');
    expect(failed.response.status).toBe(400);
    expect(failed.response.message).toMatch(/more than 8 MiB/);
    expect(await notes()).toBe(before);
  });

  it('50 creates of 100 KB (5 MB, under the budget) are stored without holding the loop', async () => {
    const before = await notes();
    const r = await polled('batch-50x100KB', () => http(url, 'POST', '/api/batch', { token: user, body: batchOf(50, `<p>${'y'.repeat(100_000)}</p>`) }));
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body).toHaveLength(50);
    expect(await notes()).toBe(before + 50);
  });
});

describe('oversized values are refused before anything reads them', () => {
  it('a create with a 31 MB text: the field limit (5000 characters by default)', async () => {
    const r = await polled('create-31MB-text', () => http(url, 'POST', '/api/collections/notes/records', { token: user, body: { title: 'x'.repeat(31_000_000) } }));
    expect(r.status).toBe(400);
    expect(r.body.data.title.code).toBe('validation_max_text_constraint');
  });

  it('a create with a 31 MB editor value: the field limit (5 MiB by default)', async () => {
    const r = await polled('create-31MB-editor', () => http(url, 'POST', '/api/collections/notes/records', { token: user, body: { body: 'x'.repeat(31_000_000) } }));
    expect(r.status).toBe(400);
    expect(r.body.data.body).toEqual({ code: 'validation_content_size_limit', message: 'The maximum allowed content size is 5242880 bytes.', params: { maxSize: 5242880 } });
  });

  it('a create with 31 MB of JSON: the field limit (1 MiB by default), object or JSON text', async () => {
    const r = await polled('create-31MB-json', () => http(url, 'POST', '/api/collections/notes/records', { token: user, body: { meta: { a: 'x'.repeat(31_000_000) } } }));
    expect(r.status).toBe(400);
    expect(r.body.data.meta.code).toBe('validation_json_size_limit');
    const text = await polled('create-31MB-json-text', () => http(url, 'POST', '/api/collections/notes/records', { token: user, body: { meta: `[${'1,'.repeat(15_500_000)}1]` } }));
    expect(text.body.data.meta.code).toBe('validation_json_size_limit');
  });

  it('an update with a 31 MB text', async () => {
    const id = (await http(url, 'POST', '/api/collections/notes/records', { token: user, body: { title: 'small' } })).body.id;
    const r = await polled('update-31MB-text', () => http(url, 'PATCH', `/api/collections/notes/records/${id}`, { token: user, body: { title: 'x'.repeat(31_000_000) } }));
    expect(r.status).toBe(400);
    expect(r.body.data.title.code).toBe('validation_max_text_constraint');
  });

  it('a create whose values each pass their field but weigh 9 MB together', async () => {
    const r = await polled('create-2x4.5MB', () => http(url, 'POST', '/api/collections/notes/records', { token: user, body: { body: 'x'.repeat(4_500_000), body2: 'y'.repeat(4_500_000) } }));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/more than 8 MiB/);
  });

  it('a create with a 5 MB editor value (under its limit) is stored without holding the loop', async () => {
    const r = await polled('create-5MB-editor', () => http(url, 'POST', '/api/collections/notes/records', { token: user, body: { body: 'x'.repeat(5_000_000) } }));
    expect(r.status).toBe(200);
    expect(r.body.body).toHaveLength(5_000_000);
  });
});

describe('a batch has one query budget for its prepare steps', () => {
  it('fifty creates under a rule that costs a tenth of the budget each: refused once the batch spends it, without holding the loop', async () => {
    const t0 = performance.now();
    const one = await http(url, 'POST', '/api/collections/inbox/records', { token: user, body: { name: 'one' } });
    console.log(`write-budgets: one create under the heavy rule took ${Math.round(performance.now() - t0)} ms`);
    expect(one.status, one.text).toBe(200);
    const requests = Array.from({ length: 50 }, (_, i) => ({ method: 'POST', url: '/api/collections/inbox/records', body: { name: `m${i}` } }));
    const r = await polled('batch-50-heavy-rules', () => http(url, 'POST', '/api/batch', { token: user, body: { requests } }));
    expect(r.status, r.text.slice(0, 300)).toBe(400);
    const [index] = Object.keys(r.body.data.requests).map(Number);
    console.log(`write-budgets: the batch spent its query budget at request ${index}`);
    expect(index).toBeGreaterThan(0); // the first ones fit: the budget is the batch's, not each request's
    expect(r.body.data.requests[index].response.message).toMatch(/more than 150 ms of database time/);
    expect((await http(url, 'GET', '/api/collections/inbox/records?perPage=1')).body.totalItems).toBe(1);
  });
});
