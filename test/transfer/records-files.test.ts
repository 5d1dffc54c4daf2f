// Records export and import with file fields, over a real socket with the SDK: an export carries the
// stored names as PocketBase's API shows them (CSV: a multiple field as a JSON array, as other
// multi-valued fields), and an import cannot bring bytes, so a row naming files is refused on that
// row and field, while rows with the file fields empty import.
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../server/core/transfer/csv.js';
import { file, fileServer, type FileServer } from '../files/fixture.js';

let fx: FileServer;
let pb: PocketBase;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  await pb.collections.create({ name: 'docs', listRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'cover', type: 'file', maxSelect: 1 }, { name: 'scans', type: 'file', maxSelect: 3 }] });
});
afterAll(async () => {
  await fx.close();
});

const auth = () => ({ authorization: pb.authStore.token });
const exportAs = async (format: string) => {
  const res = await fetch(`${fx.server.url}/api/collections/docs/records/export?format=${format}&sort=title`, { headers: auth() });
  expect(res.status).toBe(200);
  return res.text();
};
const importAs = async (type: string, body: string) => {
  const res = await fetch(`${fx.server.url}/api/collections/docs/records/import`, { method: 'POST', headers: { ...auth(), 'content-type': type }, body });
  return { status: res.status, body: await res.json() };
};

describe('records export and import with file fields', () => {
  it('exports the stored names; an import naming files is refused per row and field; empty file fields import', async () => {
    const a = await pb.collection('docs').create({ title: 'a', cover: file('c', 'cover.txt'), scans: [file('1', 'one.txt'), file('2', 'two.txt')] });
    await pb.collection('docs').create({ title: 'b' });

    const table = [...parseCsv(await exportAs('csv'))];
    expect(table[0]).toEqual(['id', 'title', 'cover', 'scans']);
    expect(table[1].slice(1)).toEqual(['a', a.cover, JSON.stringify(a.scans)]);
    expect(table[2].slice(1)).toEqual(['b', '', '[]']);
    const json = JSON.parse(await exportAs('json')) as Record<string, unknown>[];
    expect(json[0]).toMatchObject({ cover: a.cover, scans: a.scans });
    expect(json[1]).toMatchObject({ cover: '', scans: [] });
    const ndjson = (await exportAs('ndjson')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(ndjson).toEqual(json);

    // back in, after emptying the collection: the bytes cannot come with the names
    const csv = await exportAs('csv');
    await fetch(`${fx.server.url}/api/collections/docs/truncate`, { method: 'DELETE', headers: auth() });
    const refused = await importAs('text/csv', csv);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^Failed to import records: 1 rows have errors \(row 1, cover: Files cannot be imported from CSV or JSON/);
    expect(refused.body.data.rows['1'].cover.code).toBe('validation_invalid_file');
    expect(refused.body.data.rows['1'].scans.message).toMatch(/leave this field empty and upload the files to the records afterwards/);
    expect(refused.body.data.rows['2']).toBeUndefined();
    expect((await importAs('application/json', JSON.stringify([{ title: 'x', scans: ['one.txt'] }]))).body.data.rows['1'].scans.code).toBe('validation_invalid_file');
    expect(await pb.collection('docs').getFullList()).toEqual([]);

    const emptied = [table[0].join(','), ...table.slice(1).map((r) => `${r[0]},${r[1]},,[]`)].join('\r\n');
    const ok = await importAs('text/csv', emptied);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await pb.collection('docs').getFullList({ sort: 'title' })).map((r) => [r.id, r.cover, r.scans])).toEqual([[a.id, '', []], [table[2][0], '', []]]);
  });
});
