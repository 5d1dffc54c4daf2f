// The records export narrowed to `ids` (the admin grid's "export selected": still under the list rule,
// the filter and the sort; bad ids a 400 in the envelope), and the one CSV formula guard (csv.ts): text
// a spreadsheet would run gets one leading `'` on export, which the import takes off again.
import { describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness } from '../support/harness.js';
import { parseCsv } from '../../server/core/transfer/csv.js';

describe('records export by ids, and the CSV formula guard', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  async function makeNotes(rows: Array<Record<string, unknown>>): Promise<void> {
    const r = await h.req('POST', '/api/collections', { token: su, body: {
      name: 'notes', listRule: 'published = true',
      fields: [{ name: 'body', type: 'text' }, { name: 'n', type: 'number' }, { name: 'published', type: 'bool' }],
    } });
    expect(r.status, r.text).toBe(200);
    const imported = await h.req('POST', '/api/collections/notes/records/import?format=json', { token: su, raw: JSON.stringify(rows), headers: { 'content-type': 'application/json' } });
    expect(imported.status, imported.text).toBe(200);
  }
  const id = (k: number) => `note${String(k).padStart(11, '0')}`;
  const exportJson = async (query: string, token?: string) => {
    const r = await h.req('GET', `/api/collections/notes/records/export?format=json&${query}`, { token });
    expect(r.status, r.text).toBe(200);
    return (r.body as Array<{ id: string }>).map((x) => x.id);
  };

  it('exports only the named records, never one the caller could not list, with the filter and sort', async () => {
    await makeNotes([1, 2, 3, 4, 5].map((k) => ({ id: id(k), body: `b${k}`, n: k, published: k !== 3 })));
    const ids = `ids=${[id(1), id(3), id(4), 'missing0000000x'].join(',')}`;
    // the guest's list rule hides note 3 even when named
    expect(await exportJson(ids)).toEqual([id(1), id(4)]);
    expect(await exportJson(ids, su)).toEqual([id(1), id(3), id(4)]);
    expect(await exportJson(`${ids}&filter=${encodeURIComponent('n >= 3')}`, su)).toEqual([id(3), id(4)]);
    expect(await exportJson(`${ids}&sort=-n`, su)).toEqual([id(4), id(3), id(1)]);
    // repeated ids give a record once
    expect(await exportJson(`ids=${id(2)},${id(2)}`)).toEqual([id(2)]);
    const csv = await h.req('GET', `/api/collections/notes/records/export?format=csv&ids=${id(5)},${id(3)}`);
    expect([...parseCsv(csv.text)].slice(1).map((r) => r[0])).toEqual([id(5)]);
  });

  it('refuses bad ids with a 400 in the envelope, naming the parameter', async () => {
    await makeNotes([{ id: id(1), body: 'x', published: true }]);
    const bad = async (ids: string) => {
      const r = await h.req('GET', `/api/collections/notes/records/export?format=json&ids=${encodeURIComponent(ids)}`);
      expect(r.status, ids).toBe(400);
      expect(r.body.data.ids.code).toBe('validation_invalid_value');
      return r.body.message as string;
    };
    expect(await bad(Array.from({ length: 501 }, (_, k) => id(k)).join(','))).toMatch(/at most 500/);
    expect(await bad(`${id(1)}') OR 1=1 --`)).toMatch(/not a valid record id/);
    expect(await bad(`${id(1)},,${id(2)}`)).toMatch(/empty entry/);
    expect(await bad('')).toMatch(/empty entry/);
    expect(await bad('UPPERCASE')).toMatch(/not a valid record id/);
    // 500 distinct ids are allowed
    expect(await exportJson(`ids=${Array.from({ length: 500 }, (_, k) => id(k)).join(',')}`)).toEqual([id(1)]);
  });

  it('guards formula-like text on export and takes the guard off on import: a round trip returns every value', async () => {
    const texts = ['=1+1', "'=x", "'plain", '-5', '@user', 'a=b', '+1', '\tTab', "''@two", 'plain'];
    await makeNotes(texts.map((body, k) => ({ id: id(k), body, n: -5, published: true })));
    const out = await h.req('GET', '/api/collections/notes/records/export?format=csv&sort=id', { token: su });
    const table = [...parseCsv(out.text)];
    const column = table[0].indexOf('body');
    expect(table.slice(1).map((r) => r[column])).toEqual(["'=1+1", "''=x", "'plain", "'-5", "'@user", 'a=b', "'+1", "'\tTab", "'''@two", 'plain']);
    // numbers are values, not text: never guarded
    expect(table.slice(1).map((r) => r[table[0].indexOf('n')])).toEqual(texts.map(() => '-5'));

    expect((await h.req('DELETE', '/api/collections/notes/truncate', { token: su })).status).toBe(204);
    const back = await h.req('POST', '/api/collections/notes/records/import?format=csv', { token: su, raw: out.text, headers: { 'content-type': 'text/csv' } });
    expect(back.status, back.text).toBe(200);
    const again = await h.req('GET', '/api/collections/notes/records/export?format=json&sort=id', { token: su });
    expect(again.body.map((r: { body: string; n: number }) => [r.body, r.n])).toEqual(texts.map((t) => [t, -5]));
  });
});
