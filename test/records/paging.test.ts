// Page numbers a client makes up over HTTP: however large, a list answers a page (empty past the data,
// with the real totals, as PocketBase does), never a 500 from SQLite's OFFSET.
import { describe, expect } from 'vitest';
import type { Harness } from '../support/harness.js';
import { scenarios, type Scenario } from '../support/scenario.js';

/** Three notes anyone may list, and the superuser's token. */
async function notes(h: Harness): Promise<{ su: string }> {
  const su = await h.superuser();
  expect((await h.req('POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text' }], listRule: '' } })).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await h.req('POST', '/api/collections/notes/records', { token: su, body: { text: `n${i}` } })).status).toBe(200);
  return { su };
}

const emptyPage = (page: string, perPage: string): Scenario<{ su: string }> => ({
  name: `page=${page}&perPage=${perPage} on records: an empty page with the totals`,
  method: 'GET', url: `/api/collections/notes/records?page=${page}&perPage=${perPage}`, status: 200,
  match: { items: [], totalItems: 3 },
  after: (r) => { expect(Number.isSafeInteger((r.body.page - 1) * r.body.perPage)).toBe(true); },
});

describe('F13: huge page numbers', () => {
  scenarios(notes, [
    ...['99999999999999999999', '9007199254740993', '9007199254740', String(2 ** 63)]
      .flatMap((page) => ['1', '30', '1000'].map((perPage) => emptyPage(page, perPage))),
    {
      name: 'the same on the collections list',
      method: 'GET', url: '/api/collections?page=99999999999999999999', token: (c) => c.su, status: 200, match: { items: [] },
    },
    {
      name: 'the same with skipTotal',
      method: 'GET', url: '/api/collections/notes/records?page=99999999999999999999&skipTotal=1', status: 200, match: { items: [] },
    },
    {
      name: 'ordinary pages are unchanged',
      method: 'GET', url: '/api/collections/notes/records?page=2&perPage=2&sort=text', status: 200,
      match: { page: 2, perPage: 2, totalItems: 3, totalPages: 2, items: [{ text: 'n2' }] },
      after: (r) => { expect(r.body.items).toHaveLength(1); },
    },
  ]);
});
