// Records out (GET /api/collections/{c}/records/export: CSV, JSON, NDJSON, streamed, under the list
// rule, filter and sort) and in (POST /api/collections/{c}/records/import: the API's validation, all
// rows or none, errors by row and field, ids kept, relations within the import).
import { describe, expect, it } from 'vitest';
import { eachSuperuser, signUpUser, type Harness } from '../support/harness.js';
import { parseCsv } from '../../server/core/transfer/csv.js';

describe('records export and import', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  async function makePosts(): Promise<void> {
    const r = await h.req('POST', '/api/collections', { token: su, body: {
      name: 'posts', listRule: 'published = true',
      fields: [
        { name: 'title', type: 'text', required: true, max: 20 },
        { name: 'published', type: 'bool' },
        { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
        { name: 'meta', type: 'json' },
        { name: 'secret', type: 'text', hidden: true },
        { name: 'created', type: 'autodate', onCreate: true },
      ],
    } });
    expect(r.status, r.text).toBe(200);
    const posts = r.body;
    const rel = await h.req('PATCH', '/api/collections/posts', { token: su, body: { fields: [...posts.fields, { name: 'parent', type: 'relation', collectionId: posts.id, maxSelect: 1 }] } });
    expect(rel.status, rel.text).toBe(200);
  }
  const importAs = (format: string, raw: string, type: string) =>
    h.req('POST', `/api/collections/posts/records/import?format=${format}`, { token: su, raw, headers: { 'content-type': type } });
  const all = async () => (await h.req('GET', '/api/collections/posts/records?perPage=500&sort=title', { token: su })).body.items as any[];

  it('imports CSV with ids kept, JSON cells for lists, relations to later rows, and created times kept', async () => {
    await makePosts();
    const csv = [
      'id,title,published,tags,meta,parent,created',
      'aaaaaaaaaaaaaa1,"Hello, world",true,"[""a"",""b""]","{""n"":1}",bbbbbbbbbbbbbb2,2020-01-02 03:04:05.000Z',
      'bbbbbbbbbbbbbb2,"Line one\nline two",false,,,,',
    ].join('\r\n');
    const r = await importAs('csv', csv, 'text/csv');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ imported: 2 });
    const [first, second] = await all();
    expect(first).toMatchObject({ id: 'aaaaaaaaaaaaaa1', title: 'Hello, world', published: true, tags: ['a', 'b'], meta: { n: 1 }, parent: 'bbbbbbbbbbbbbb2', created: '2020-01-02T03:04:05.000Z' });
    expect(second).toMatchObject({ id: 'bbbbbbbbbbbbbb2', title: 'Line one\nline two', published: false, tags: [] });
  });

  it('one bad row fails the whole import with errors by row and field, and nothing is stored', async () => {
    await makePosts();
    const json = JSON.stringify([
      { title: 'ok' },
      { title: 'x'.repeat(30) },
      { title: 'ok too', tags: ['zzz'] },
      'not an object',
      { title: 'dangling', parent: 'nosuchrecord123' },
    ]);
    const r = await importAs('json', json, 'application/json');
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^Failed to import records: 4 rows have errors \(row 2, title: /);
    expect(r.body.data.rows['2'].title.code).toBe('validation_max_text_constraint');
    expect(r.body.data.rows['3'].tags.code).toBe('validation_invalid_value');
    expect(r.body.data.rows['4'].row.code).toBe('validation_invalid_value');
    expect(r.body.data.rows['5'].parent.code).toBe('validation_missing_rel_records');
    expect(r.body.data.rows['1']).toBeUndefined();
    expect(await all()).toEqual([]);
  });

  it('a row the transaction refuses (an id already stored) names its row and rolls every row back', async () => {
    await makePosts();
    await h.req('POST', '/api/collections/posts/records', { token: su, body: { id: 'cccccccccccccc3', title: 'stored' } });
    const ndjson = '{"title":"new"}\n{"id":"cccccccccccccc3","title":"clash"}\n';
    const r = await importAs('ndjson', ndjson, 'application/x-ndjson');
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.rows['2'].id.code).toBe('validation_pk_invalid');
    expect((await all()).map((p) => p.title)).toEqual(['stored']);
    const dup = await importAs('ndjson', '{"id":"dddddddddddddd4","title":"a"}\n{"id":"dddddddddddddd4","title":"b"}', 'application/x-ndjson');
    expect(dup.body.data.rows['2'].id.code).toBe('validation_pk_invalid');
  });

  it('import is for superusers; bad formats and bodies are 400s', async () => {
    await makePosts();
    await signUpUser(h, 'u@example.com');
    const user = await h.signIn('users', 'u@example.com', 'password123');
    expect((await h.req('POST', '/api/collections/posts/records/import', { token: user, raw: '[]' })).status).toBe(403);
    expect((await importAs('xml', '<a/>', 'text/xml')).status).toBe(400);
    expect((await importAs('json', '[{"title":"a"}', 'application/json')).body.message).toMatch(/not closed/);
    expect((await importAs('csv', 'title\n"open', 'text/csv')).body.message).toMatch(/row 1 \(line 2\): Quote Not Closed/);
  });

  it('exports CSV, JSON and NDJSON under the list rule, with the filter and sort, hidden fields for superusers only', async () => {
    await makePosts();
    const rows = [
      { title: 'b, quoted "x"', published: true, tags: ['a'], secret: 's1' },
      { title: 'a', published: true, meta: { k: [1, 2] } },
      { title: 'hidden', published: false },
    ];
    expect((await importAs('json', JSON.stringify(rows), 'application/json')).status).toBe(200);

    const guestCsv = await h.req('GET', '/api/collections/posts/records/export?format=csv&sort=title');
    expect(guestCsv.status).toBe(200);
    expect(guestCsv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(guestCsv.headers.get('content-disposition')).toBe('attachment; filename="posts.csv"');
    const table = [...parseCsv(guestCsv.text)];
    expect(table[0]).toEqual(['id', 'title', 'published', 'tags', 'meta', 'created', 'parent']);
    expect(table.slice(1).map((r) => r[1])).toEqual(['a', 'b, quoted "x"']);
    expect(table[2][3]).toBe('["a"]');
    expect(table[1][4]).toBe('{"k":[1,2]}');

    const suJson = await h.req('GET', '/api/collections/posts/records/export?format=json&filter=title%20~%20%27b%27', { token: su });
    expect(suJson.body.map((r: any) => r.title)).toEqual(['b, quoted "x"']);
    expect(suJson.body[0].secret).toBe('s1');

    const nd = await h.req('GET', '/api/collections/posts/records/export?format=ndjson&sort=-title', { token: su });
    const lines = nd.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.title)).toEqual(['hidden', 'b, quoted "x"', 'a']);

    const bad = await h.req('GET', '/api/collections/posts/records/export?filter=nope%20=%201');
    expect(bad.status).toBe(400);
    expect((await h.req('GET', '/api/collections/posts/records/export?format=xls')).status).toBe(400);
  });

  it('export → import round trip keeps every value, across more rows than one chunk', async () => {
    await makePosts();
    const rows = Array.from({ length: 600 }, (_, i) => ({ title: `t${String(i).padStart(4, '0')}`, published: i % 2 === 0, tags: i % 3 === 0 ? ['a', 'c'] : [], meta: { i } }));
    expect((await importAs('json', JSON.stringify(rows), 'application/json')).status).toBe(200);
    for (const format of ['csv', 'json', 'ndjson'] as const) {
      const out = await h.req('GET', `/api/collections/posts/records/export?format=${format}`, { token: su });
      expect(out.status).toBe(200);
      const before = await h.req('GET', '/api/collections/posts/records/export?format=json', { token: su });
      await h.req('DELETE', '/api/collections/posts/truncate', { token: su });
      const type = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' }[format];
      const back = await importAs(format, out.text, type);
      expect(back.status, back.text.slice(0, 300)).toBe(200);
      const after = await h.req('GET', '/api/collections/posts/records/export?format=json', { token: su });
      expect(after.body, format).toEqual(before.body);
      expect(after.body).toHaveLength(600);
    }
  });
});
