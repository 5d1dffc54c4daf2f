// Uploads through the official SDK over a real socket: single and multiple fields, the `+field`,
// `field+` and `field-` modifiers, kept names, unknown names, size and type limits, stored names.
import { request } from 'node:http';
import type PocketBase from 'pocketbase';
import { ClientResponseError } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, fileServer, png, type FileServer } from './fixture.js';

let fx: FileServer;
let pb: PocketBase;
let docsId: string;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  const docs = await pb.collections.create({
    name: 'docs',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'cover', type: 'file', maxSelect: 1, mimeTypes: ['image/png', 'image/jpeg'] },
      { name: 'attachments', type: 'file', maxSelect: 4, maxSize: 1000 },
    ],
    listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '',
  });
  docsId = docs.id;
});
afterAll(async () => { await fx.close(); });

/** Polls until the record's folder holds exactly `names` (deletions run after the write is durable). */
async function eventually(recordId: string, names: string[]): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (JSON.stringify(await fx.stored(docsId, recordId)) === JSON.stringify([...names].sort())) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(await fx.stored(docsId, recordId)).toEqual([...names].sort());
}

describe('uploads', () => {
  it('stores a single file under storage/<collectionId>/<recordId>/ with a sanitized, suffixed name', async () => {
    const rec = await pb.collection('docs').create({ title: 'a', cover: file(await png(4, 4), 'My Photo.PNG') });
    expect(rec.cover).toMatch(/^my_photo_[a-z0-9]{10}\.PNG$/);
    expect(await fx.stored(docsId, rec.id)).toEqual([rec.cover]);
    const back = await pb.collection('docs').getOne(rec.id);
    expect(back.cover).toBe(rec.cover);
  });

  it('stores several files in order, appends, prepends and removes by name', async () => {
    const rec = await pb.collection('docs').create({ title: 'b', attachments: [file('one', 'one.txt'), file('two', 'two.txt')] });
    expect(rec.attachments).toHaveLength(2);
    expect(rec.attachments[0]).toMatch(/^one_[a-z0-9]{10}\.txt$/);
    expect(rec.attachments[1]).toMatch(/^two_/);
    const appended = await pb.collection('docs').update(rec.id, { 'attachments+': file('three', 'three.txt') });
    expect(appended.attachments.slice(0, 2)).toEqual(rec.attachments);
    expect(appended.attachments[2]).toMatch(/^three_/);
    const prepended = await pb.collection('docs').update(rec.id, { '+attachments': file('zero', 'zero.txt') });
    expect(prepended.attachments[0]).toMatch(/^zero_/);
    expect(prepended.attachments.slice(1)).toEqual(appended.attachments);
    const removed = await pb.collection('docs').update(rec.id, { 'attachments-': [rec.attachments[0]] });
    expect(removed.attachments).toEqual(prepended.attachments.filter((n: string) => n !== rec.attachments[0]));
    await eventually(rec.id, removed.attachments);
  });

  it('a plain upload replaces the value; resent names keep their files; an empty value clears', async () => {
    const rec = await pb.collection('docs').create({ title: 'c', attachments: [file('1', 'a.txt'), file('2', 'b.txt')] });
    const form = new FormData();
    form.append('attachments', rec.attachments[1]);
    form.append('attachments', new File(['3'], 'cee.txt'));
    const kept = await pb.collection('docs').update(rec.id, form);
    expect(kept.attachments[0]).toBe(rec.attachments[1]);
    expect(kept.attachments[1]).toMatch(/^cee_[a-z0-9]{10}\.txt$/);
    await eventually(rec.id, kept.attachments);
    const cleared = await pb.collection('docs').update(rec.id, { attachments: [] });
    expect(cleared.attachments).toEqual([]);
    await eventually(rec.id, []);
  });

  it('refuses names the record does not hold (validation_invalid_file) and leaves no file', async () => {
    const other = await pb.collection('docs').create({ title: 'd', cover: file(await png(2, 2), 'x.png') });
    const err = await pb.collection('docs').create({ title: 'e', cover: other.cover, attachments: file('x', 'x.txt') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientResponseError);
    expect((err as ClientResponseError).status).toBe(400);
    expect((err as ClientResponseError).response.data.cover.code).toBe('validation_invalid_file');
    const list = await pb.collection('docs').getFullList({ filter: 'title = "e"' });
    expect(list).toHaveLength(0);
  });

  it('refuses a file under a field that holds no files (or no field), naming it, and stores nothing', async () => {
    for (const key of ['title', 'nosuchfield']) {
      const err = (await pb.collection('docs').create({ title: `nf-${key}`, [key]: file('x', 'x.txt') }).catch((e: unknown) => e)) as ClientResponseError;
      expect(err.status).toBe(400);
      expect(err.response.data[key].code).toBe('validation_invalid_file');
      expect(await pb.collection('docs').getFullList({ filter: `title = "nf-${key}"` })).toHaveLength(0);
    }
    // an endpoint that takes no files at all refuses one too, naming its key
    const form = new FormData();
    form.append('identity', 'a@b.co');
    form.append('password', 'whatever-123');
    form.append('avatar', new Blob(['x']), 'x.txt');
    const res = await fetch(`${fx.server.url}/api/collections/users/auth-with-password`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { data: Record<string, { code: string }> }).data.avatar.code).toBe('validation_invalid_file');
  });

  it('refuses a file over maxSize with a field error, keeping nothing of it', async () => {
    const err = (await pb.collection('docs').create({ title: 'f', attachments: file('x'.repeat(1001), 'big.txt') }).catch((e: unknown) => e)) as ClientResponseError;
    expect(err.status).toBe(400);
    expect(err.response.data.attachments.code).toBe('validation_file_size_limit');
  });

  it('refuses a type outside mimeTypes, judged by content and not by the name or the client type', async () => {
    const err = (await pb.collection('docs').create({ title: 'g', cover: file('<html><script>alert(1)</script>', 'evil.png', 'image/png') }).catch((e: unknown) => e)) as ClientResponseError;
    expect(err.status).toBe(400);
    expect(err.response.data.cover.code).toBe('validation_invalid_mime_type');
  });

  it('refuses more files than maxSelect', async () => {
    const err = (await pb.collection('docs').create({ title: 'h', attachments: [1, 2, 3, 4, 5].map((i) => file(String(i), `${i}.txt`)) }).catch((e: unknown) => e)) as ClientResponseError;
    expect(err.status).toBe(400);
    expect(err.response.data.attachments.code).toBe('validation_too_many_files');
  });

  it('a refused write (a rule) leaves no file behind', async () => {
    await pb.collections.update('docs', { createRule: 'title = "ok"' });
    try {
      const guest = fx.client();
      // every file the collection holds, compared whole: a stored name is not known beforehand (a base
      // under 3 characters gets random ones, `p.png` → `p<10 random>_<10 random>.png`)
      const before = await fx.storedIn(docsId);
      const err = (await guest.collection('docs').create({ title: 'no', cover: file(await png(2, 2), 'p.png') }).catch((e: unknown) => e)) as ClientResponseError;
      expect(err.status).toBe(400);
      expect(await fx.storedIn(docsId)).toEqual(before);
      expect(await fx.temp()).toEqual([]);
    } finally {
      await pb.collections.update('docs', { createRule: '' });
    }
  });

  it('a write its rule locks to superusers is refused before any file of its body is received', async () => {
    // a guest streaming a large file to a collection only superusers write: the 403 comes from the
    // request's head, so the client is answered (and nothing is written to disk) while its body is unsent
    await pb.collections.update('docs', { createRule: null, updateRule: null });
    const rec = await pb.collection('docs').create({ title: 'locked' });
    try {
      for (const [method, path] of [['POST', `/api/collections/docs/records`], ['PATCH', `/api/collections/docs/records/${rec.id}`]]) {
        const boundary = 'deskbase-locked-boundary';
        const req = request(`${fx.server.url}${path}`, { method, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
        const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
          req.once('response', (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (c: string) => (body += c)).once('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.once('error', reject);
        });
        // the head of a file part and its first 256 KiB; the rest never comes
        req.write(`--${boundary}\r\ncontent-disposition: form-data; name="attachments"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
        req.write(Buffer.alloc(256 * 1024, 7));
        const { status, body } = await answered;
        req.destroy();
        expect(status).toBe(403);
        expect(JSON.parse(body)).toEqual({ status: 403, message: 'Only superusers can perform this action.', data: {} });
        expect(await fx.temp()).toEqual([]);
      }
    } finally {
      await pb.collections.update('docs', { createRule: '', updateRule: '' });
    }
  });

  it('a write refused inside its transaction (a unique index) removes the files it placed before its answer', async () => {
    // placed before the transaction, the INSERT then refused: the rollback's unplace runs before the 400
    await pb.collections.create({ name: 'uniq', fields: [{ name: 'code', type: 'text' }, { name: 'f', type: 'file', maxSelect: 1 }], indexes: ['CREATE UNIQUE INDEX idx_uniq_code ON uniq (code)'], createRule: '' });
    const uniqId = (await pb.collections.getOne('uniq')).id;
    const first = await pb.collection('uniq').create({ code: 'same', f: file('one', 'one.txt') });
    const before = await fx.storedIn(uniqId);
    expect(before).toEqual([first.f]);
    const err = (await pb.collection('uniq').create({ code: 'same', f: file('two', 'two.txt') }).catch((e: unknown) => e)) as ClientResponseError;
    expect(err.status).toBe(400);
    expect(err.response.data.code.code).toBe('validation_not_unique');
    expect(await fx.storedIn(uniqId)).toEqual(before);
    expect(await fx.temp()).toEqual([]);
  });
});
