// F5: what one answer holds is bounded in bytes, and a list reads only the columns `fields` picks. Rows
// are counted as they are read, so past the limit reading stops with a 400 that says what to change
// (200 rows of a 5 MB field used to be read whole, a gigabyte, before JSON.stringify failed with a
// 500). An expand weighs its records as the JSON repeats them (F3): a 5 MB post expanded from 1,000
// comments answered 513 MB after 14 s. The limit is lowered to 1 MiB here to prove it with 200 KB rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';

const LIMIT = 1024 * 1024;
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, limits: { responseBytes: LIMIT } });
  const su = await setupSuperuser(server.url, (await server.setupToken())!);
  const r = await http(server.url, 'POST', '/api/collections', {
    token: su, body: { name: 'notes', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'text', type: 'editor', maxSize: 1_000_000 }] },
  });
  expect(r.status, r.text).toBe(200);
  const posts = await http(server.url, 'POST', '/api/collections', {
    token: su, body: { name: 'posts', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'body', type: 'text', max: 1_000_000 }] },
  });
  const comments = await http(server.url, 'POST', '/api/collections', {
    token: su, body: { name: 'comments', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'post', type: 'relation', collectionId: posts.body.id, maxSelect: 1 }, { name: 'n', type: 'number' }] },
  });
  expect(comments.status, comments.text).toBe(200);
  const post = await http(server.url, 'POST', '/api/collections/posts/records', { body: { body: 'p'.repeat(100_000) } });
  for (let n = 0; n < 20; n++) await http(server.url, 'POST', '/api/collections/comments/records', { body: { post: post.body.id, n } });
  for (let i = 0; i < 8; i++) {
    const n = await http(server.url, 'POST', '/api/collections/notes/records', { body: { title: `n${i}`, text: `<p>note ${i}</p>${'x'.repeat(200_000)}` } });
    expect(n.status, n.text.slice(0, 200)).toBe(200);
  }
});
afterAll(async () => { await server.close(); });

const list = (query: string) => http(server.url, 'GET', `/api/collections/notes/records?${query}`);

describe('F5: page bytes', () => {
  it.each([
    ['a page of whole rows past the limit', 'perPage=8'],
    ['the same sorted on the large field', 'perPage=8&sort=text'],
    ['every field excerpted (whole rows are read)', 'perPage=8&fields=*:excerpt(3)'],
  ])('%s: a 400 saying what to change, never a 500', async (_name, query) => {
    const r = await list(query);
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.body.message).toBe('The response would hold more than 1 MiB: ask for fewer records (perPage), only the fields you need (fields), or a smaller expand.');
  });

  it('fields that leave the large column out read only what they pick', async () => {
    const r = await list('perPage=8&fields=id,title&sort=title');
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    expect(r.body.items.map((i: { title: string }) => i.title)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7']);
    expect(Object.keys(r.body.items[0]).sort()).toEqual(['id', 'title']);
  });

  it('a page under the limit answers exactly as without the pushed-down columns', async () => {
    const whole = await list('perPage=3&sort=title');
    const picked = await list('perPage=3&sort=title&fields=id,collectionName,text:excerpt(8,true)');
    expect(whole.status).toBe(200);
    expect(picked.body.items).toEqual(whole.body.items.map((i: { id: string; collectionName: string }) => ({ id: i.id, collectionName: i.collectionName, text: expect.stringMatching(/^note \d x\.\.\.$/) })));
    expect(picked.body.totalItems).toBe(8);
  });
});

describe('F3: expand bytes, as the JSON repeats them', () => {
  const comments = (query: string) => http(server.url, 'GET', `/api/collections/comments/records?${query}`);

  it('one 100 KB post expanded from 20 comments (2 MB as repeated): a 400 before it is built', async () => {
    const r = await comments('perPage=20&expand=post');
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.body.message).toMatch(/^The response would hold more than 1 MiB/);
    // the same back-relation round trip from the post's side
    const back = await http(server.url, 'GET', '/api/collections/posts/records?expand=comments_via_post.post');
    expect(back.status).toBe(400);
  });

  it('under the limit the expand answers in full', async () => {
    const r = await comments('perPage=5&sort=n&expand=post');
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    expect(r.body.items.map((c: { expand: { post: { body: string } } }) => c.expand.post.body.length)).toEqual([100_000, 100_000, 100_000, 100_000, 100_000]);
  });

  it('after a write, an expand past the limit leaves the answer unexpanded (the write is done)', async () => {
    const post = (await comments('perPage=1')).body.items[0].post;
    const many = await http(server.url, 'GET', `/api/collections/posts/records/${post}?expand=comments_via_post.post`);
    expect(many.status).toBe(400);
    const created = await http(server.url, 'POST', '/api/collections/comments/records?expand=post.comments_via_post.post', { body: { post, n: 99 } });
    expect(created.status, created.text.slice(0, 200)).toBe(200);
    expect(created.body.expand).toBeUndefined();
  });
});
