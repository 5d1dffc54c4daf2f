// A multipart batch with files (issue 20, section 3) through the official SDK's createBatch() over a
// real socket, with a data folder: files keyed `requests.N.<field>` are validated and placed as a single
// create or update would, served back, and removed again when the batch fails (before or inside its
// transaction); nothing is left in upload-temp/.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure } from '../support/sdk-server.js';
import { file, fileServer, png, type FileServer } from '../files/fixture.js';

let fx: FileServer;
let pb: PocketBase;
let docsId: string;

/** Every file under a folder, recursively, relative to it; [] when the folder is absent. */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
  } catch {
    return [];
  }
}
const storedDocs = () => filesUnder(join(fx.dir, 'storage', docsId));
const temp = () => filesUnder(join(fx.dir, 'upload-temp'));

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  const docs = await pb.collections.create({
    name: 'docs',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'code', type: 'text' },
      { name: 'cover', type: 'file', maxSelect: 1, mimeTypes: ['image/png'] },
      { name: 'attachments', type: 'file', maxSelect: 3, maxSize: 1000 },
    ],
    indexes: ['CREATE UNIQUE INDEX idx_docs_code ON docs (code)'],
    listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '',
  });
  docsId = docs.id;
});
afterAll(async () => { await fx.close(); });

describe('a multipart batch with files', () => {
  it('stores each request\'s files as a single create/update would, and serves them', async () => {
    const cover = await png(3, 3);
    const existing = await pb.collection('docs').create({ title: 'existing', attachments: [file('old', 'old.txt')] });
    const batch = pb.createBatch();
    batch.collection('docs').create({ title: 'made', code: 'm1', cover: file(cover, 'Cover.png'), attachments: [file('one', 'one.txt'), file('two', 'two.txt')] });
    batch.collection('docs').update(existing.id, { 'attachments+': file('three', 'three.txt') });
    batch.collection('docs').upsert({ title: 'upserted', code: 'u1', attachments: file('four', 'four.txt') });
    const [made, updated, upserted] = await batch.send();

    expect(made.status).toBe(200);
    expect(made.body.cover).toMatch(/^cover_[a-z0-9]{10}\.png$/);
    expect(made.body.attachments).toHaveLength(2);
    expect(made.body.attachments[0]).toMatch(/^one_[a-z0-9]{10}\.txt$/);
    expect(updated.body.attachments).toHaveLength(2);
    expect(updated.body.attachments[0]).toBe(existing.attachments[0]);
    expect(updated.body.attachments[1]).toMatch(/^three_/);
    expect(upserted.body.attachments).toEqual([expect.stringMatching(/^four_/)]);

    // on disk where a single write puts them, and served by the files API
    expect(await fx.stored(docsId, made.body.id)).toEqual([made.body.cover, ...made.body.attachments].sort());
    expect(await fx.stored(docsId, existing.id)).toEqual([...updated.body.attachments].sort());
    expect(await readFile(join(fx.dir, 'storage', docsId, made.body.id, made.body.cover))).toEqual(cover);
    const served = await fetch(pb.files.getURL(made.body, made.body.attachments[1]));
    expect(await served.text()).toBe('two');
    expect(await pb.collection('docs').getOne(made.body.id)).toMatchObject({ cover: made.body.cover, attachments: made.body.attachments });
    expect(await temp()).toEqual([]);
  });

  it('takes PocketBase\'s other key form, requests[N].<field>, too', async () => {
    const form = new FormData();
    form.append('requests[0].attachments', new Blob(['bracketed']), 'bracketed.txt');
    form.append('@jsonPayload', JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/docs/records', body: { title: 'bracketed', code: 'b1' } }] }));
    const [made] = await pb.send('/api/batch', { method: 'POST', body: form }) as { body: { id: string; attachments: string[] } }[];
    expect(made.body.attachments).toEqual([expect.stringMatching(/^bracketed_[a-z0-9]{10}\.txt$/)]);
    expect(await readFile(join(fx.dir, 'storage', docsId, made.body.id, made.body.attachments[0]), 'utf8')).toBe('bracketed');
  });

  it('validates the files as a single write does: a refused one fails the batch, naming its request, and no file stays', async () => {
    const before = await storedDocs();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ title: 'bad type', cover: file('not a png', 'x.png') }, 'cover', 'validation_invalid_mime_type'],
      [{ title: 'too big', attachments: file('x'.repeat(1001), 'big.txt') }, 'attachments', 'validation_file_size_limit'],
      [{ title: 'too many', attachments: [file('a', 'a.txt'), file('b', 'b.txt'), file('c', 'c.txt'), file('d', 'd.txt')] }, 'attachments', 'validation_too_many_files'],
    ];
    for (const [body, field, code] of cases) {
      const batch = pb.createBatch();
      batch.collection('docs').create({ title: 'fine', attachments: file('kept?', 'ok.txt') });
      batch.collection('docs').create(body);
      const err = await failure(batch.send());
      expect(err.status).toBe(400);
      expect(err.response.data.requests['1'].code).toBe('batch_request_failed');
      expect(err.response.data.requests['1'].response.data[field].code).toBe(code);
      // request 0's file was placed before request 1 failed: removed again
      expect(await storedDocs()).toEqual(before);
      expect(await temp()).toEqual([]);
    }
  });

  it('a batch that fails inside its transaction removes every file it placed', async () => {
    const before = await storedDocs();
    const count = (await pb.collection('docs').getList(1, 1)).totalItems;
    const batch = pb.createBatch();
    batch.collection('docs').create({ title: 'first', code: 'same', attachments: [file('one', 'one.txt')] });
    // prepared against the data before the batch, both pass; the unique index refuses the second in the transaction
    batch.collection('docs').create({ title: 'second', code: 'same', cover: file(await png(2, 2), 'c.png') });
    const err = await failure(batch.send());
    expect(err.response.data.requests['1'].response.data.code.code).toBe('validation_not_unique');
    expect((await pb.collection('docs').getList(1, 1)).totalItems).toBe(count);
    expect(await storedDocs()).toEqual(before);
    expect(await temp()).toEqual([]);

    // the same batch without the conflict keeps both records' files
    const again = pb.createBatch();
    again.collection('docs').create({ title: 'first', code: 'same', attachments: [file('one', 'one.txt')] });
    again.collection('docs').create({ title: 'second', code: 'other', cover: file(await png(2, 2), 'c.png') });
    const [first, second] = await again.send();
    expect(await fx.stored(docsId, first.body.id)).toEqual(first.body.attachments);
    expect(await fx.stored(docsId, second.body.id)).toEqual([second.body.cover]);
  });

  it('files for a field that holds no files, or for a request the batch lacks, are refused, not dropped', async () => {
    const before = await storedDocs();
    const onText = pb.createBatch();
    onText.collection('docs').create({ title: file('text', 'title.txt') });
    const err = await failure(onText.send());
    expect(err.response.data.requests['0'].response.data.title.code).toBe('validation_invalid_file');

    const form = new FormData();
    form.append('requests.3.attachments', new Blob(['x']), 'x.txt');
    form.append('@jsonPayload', JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/docs/records', body: { title: 'x' } }] }));
    const missing = await failure(pb.send('/api/batch', { method: 'POST', body: form }));
    expect(missing.status).toBe(400);
    expect(missing.response.data['requests.3.attachments'].message).toMatch(/no request 3/);

    const stray = new FormData();
    stray.append('attachments', new Blob(['x']), 'x.txt');
    stray.append('@jsonPayload', JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/docs/records', body: { title: 'x' } }] }));
    const refused = await failure(pb.send('/api/batch', { method: 'POST', body: stray }));
    expect(refused.response.data.attachments.message).toMatch(/requests\.N/);

    expect(await storedDocs()).toEqual(before);
    expect(await temp()).toEqual([]);
  });

  it('refuses file parts past what its requests could place, as they arrive, leaving nothing behind', async () => {
    // docs takes 4 files a record (cover 1, attachments 3), the most of any collection here: 50
    // requests place at most 200. Without the bound, 3,000 one-byte parts were each written and synced
    // to upload-temp/ before the batch refused them (held a separate process's /api/health 455 ms)
    const before = await storedDocs();
    const form = new FormData();
    form.append('@jsonPayload', JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/docs/records', body: { title: 'many' } }] }));
    for (let i = 0; i < 3000; i++) form.append(`requests.0.f${i}`, new Blob(['x']), `f${i}.txt`);
    const err = await failure(pb.send('/api/batch', { method: 'POST', body: form }));
    expect(err.status).toBe(400);
    expect(err.response.data.requests).toMatchObject({ code: 'validation_too_many_files', params: { maxFiles: 200 } });
    expect(await storedDocs()).toEqual(before);
    expect(await temp()).toEqual([]);
    // at the bound, the parts are read and the batch answers about the fields, as before
    const atBound = new FormData();
    atBound.append('@jsonPayload', JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/docs/records', body: { title: 'bound' } }] }));
    for (let i = 0; i < 200; i++) atBound.append('requests.0.attachments', new Blob(['x']), `a${i}.txt`);
    const fields = await failure(pb.send('/api/batch', { method: 'POST', body: atBound }));
    expect(fields.response.data.requests['0'].response.data.attachments.code).toBe('validation_too_many_files');
    expect(await temp()).toEqual([]);
  });
});
