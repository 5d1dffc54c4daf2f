// F5: what one answer holds is bounded in bytes, and a list reads only the columns `fields` picks. Rows
// are counted as they are read, so past the limit reading stops with a 400 that says what to change
// (200 rows of a 5 MB field used to be read whole, a gigabyte, before JSON.stringify failed with a
// 500). The limit is lowered to 1 MiB here to prove it with 200 KB rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../server/index.js';
import { http, setupSuperuser } from './fixtures/hardening-http.js';

const LIMIT = 1024 * 1024;
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, limits: { responseBytes: LIMIT } });
  const su = await setupSuperuser(server.url, server.setupToken()!);
  const r = await http(server.url, 'POST', '/api/collections', {
    token: su, body: { name: 'notes', listRule: '', viewRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'text', type: 'editor', maxSize: 1_000_000 }] },
  });
  expect(r.status, r.text).toBe(200);
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
