// Files leave the disk only after the write that stopped naming them: record deletes, cascades,
// removed fields, fields made single and deleted collections, through the SDK over a real socket.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, fileServer, png, type FileServer } from './fixture.js';

let fx: FileServer;
let pb: PocketBase;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
});
afterAll(async () => { await fx.close(); });

async function gone(path: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    try {
      await access(path);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

const exists = (path: string) => access(path).then(() => true, () => false);

describe('deleting files', () => {
  it('a record delete removes its files and thumbnails; a cascade removes the referrers\' files', async () => {
    const parents = await pb.collections.create({ name: 'parents', fields: [{ name: 'pic', type: 'file', maxSelect: 1 }], listRule: '', viewRule: '' });
    const kids = await pb.collections.create({
      name: 'kids',
      fields: [{ name: 'parent', type: 'relation', collectionId: parents.id, cascadeDelete: true, maxSelect: 1 }, { name: 'att', type: 'file', maxSelect: 2 }],
    });
    const parent = await pb.collection('parents').create({ pic: file(await png(120, 120), 'p.png') });
    await (await fetch(pb.files.getURL(parent, parent.pic, { thumb: '100x100' }))).arrayBuffer();
    const kid = await pb.collection('kids').create({ parent: parent.id, att: [file('a', 'a.txt'), file('b', 'b.txt')] });
    const parentDir = join(fx.dir, 'storage', parents.id, parent.id);
    const kidDir = join(fx.dir, 'storage', kids.id, kid.id);
    expect(await exists(join(parentDir, `thumbs_${parent.pic}`))).toBe(true);
    await pb.collection('parents').delete(parent.id);
    expect(await gone(parentDir)).toBe(true);
    expect(await gone(kidDir)).toBe(true);
  });

  it('removing a file field, or making it single, drops the files it no longer holds', async () => {
    const c = await pb.collections.create({ name: 'albums', fields: [{ name: 'cover', type: 'file', maxSelect: 1 }, { name: 'photos', type: 'file', maxSelect: 3 }] });
    const rec = await pb.collection('albums').create({ cover: file('c', 'cover.txt'), photos: [file('1', 'one.txt'), file('2', 'two.txt')] });
    const dir = join(fx.dir, 'storage', c.id, rec.id);
    const photos = c.fields.find((f) => f.name === 'photos')!;
    await pb.collections.update(c.id, { fields: c.fields.map((f) => (f.id === photos.id ? { ...f, maxSelect: 1 } : f)) });
    const now = await pb.collection('albums').getOne(rec.id);
    expect(now.photos).toBe(rec.photos[1]); // the last item stays, as PocketBase
    expect(await gone(join(dir, rec.photos[0]))).toBe(true);
    expect(await exists(join(dir, rec.photos[1]))).toBe(true);
    await pb.collections.update(c.id, { fields: c.fields.filter((f) => f.name !== 'cover').map((f) => (f.id === photos.id ? { ...f, maxSelect: 1 } : f)) });
    expect(await gone(join(dir, rec.cover))).toBe(true);
    expect(await exists(join(dir, rec.photos[1]))).toBe(true);
  });

  it('deleting a collection removes its storage folder', async () => {
    const c = await pb.collections.create({ name: 'scratch', fields: [{ name: 'f', type: 'file' }] });
    await pb.collection('scratch').create({ f: file('x', 'x.txt') });
    expect(await exists(join(fx.dir, 'storage', c.id))).toBe(true);
    await pb.collections.delete(c.id);
    expect(await gone(join(fx.dir, 'storage', c.id))).toBe(true);
  });

  it('a delete the rules refuse keeps the files', async () => {
    const c = await pb.collections.create({ name: 'locked', fields: [{ name: 'f', type: 'file' }], deleteRule: null });
    const rec = await pb.collection('locked').create({ f: file('x', 'x.txt') });
    const guest = fx.client();
    await expect(guest.collection('locked').delete(rec.id)).rejects.toMatchObject({ status: 403 });
    expect(await exists(join(fx.dir, 'storage', c.id, rec.id, rec.f))).toBe(true);
  });
});
