// Page numbers a client makes up over HTTP: however large, a list answers a page (empty past the data,
// with the real totals, as PocketBase does), never a 500 from SQLite's OFFSET.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

let server: RunningServer;
let su: string;
beforeAll(async () => {
  ({ server, su } = await liveServer());
  await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text' }], listRule: '' } });
  for (let i = 0; i < 3; i++) await http(server.url, 'POST', '/api/collections/notes/records', { token: su, body: { text: `n${i}` } });
});
afterAll(async () => { await server.close(); });

describe('F13: huge page numbers', () => {
  it.each(['99999999999999999999', '9007199254740993', '9007199254740', String(2 ** 63)])('page=%s on records: an empty page with the totals', async (page) => {
    for (const perPage of ['1', '30', '1000']) {
      const r = await http(server.url, 'GET', `/api/collections/notes/records?page=${page}&perPage=${perPage}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.items).toEqual([]);
      expect(r.body.totalItems).toBe(3);
      expect(Number.isSafeInteger((r.body.page - 1) * r.body.perPage)).toBe(true);
    }
  });

  it('the same on the collections list and with skipTotal', async () => {
    const c = await http(server.url, 'GET', '/api/collections?page=99999999999999999999', { token: su });
    expect(c.status, c.text).toBe(200);
    expect(c.body.items).toEqual([]);
    const s = await http(server.url, 'GET', '/api/collections/notes/records?page=99999999999999999999&skipTotal=1');
    expect(s.status, s.text).toBe(200);
    expect(s.body.items).toEqual([]);
  });

  it('ordinary pages are unchanged', async () => {
    const r = await http(server.url, 'GET', '/api/collections/notes/records?page=2&perPage=2&sort=text');
    expect(r.body).toMatchObject({ page: 2, perPage: 2, totalItems: 3, totalPages: 2 });
    expect(r.body.items.map((i: { text: string }) => i.text)).toEqual(['n2']);
  });
});
