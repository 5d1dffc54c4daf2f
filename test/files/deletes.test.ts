// Files leave the storage only after the write that stopped naming them: record deletes, cascades,
// removed fields, fields made single and deleted collections, through the SDK over a real socket (on
// both engines: the desktop's storage/ folder, the team server's database).
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, file, fileServer, png, type FileServer } from './fixture.js';

let fx: FileServer;
let pb: PocketBase;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
});
afterAll(async () => { await fx.close(); });

const has = async (collectionId: string, recordId: string, entry: string) => (await fx.stored(collectionId, recordId)).includes(entry);
const gone = (collectionId: string, recordId: string, entry?: string) =>
  eventually(async () => (entry === undefined ? (await fx.stored(collectionId, recordId)).length === 0 : !(await has(collectionId, recordId, entry))));

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
    expect(await fx.stored(parents.id, parent.id)).toEqual([parent.pic, `thumbs_${parent.pic}`].sort());
    expect(await fx.stored(kids.id, kid.id)).toHaveLength(2);
    await pb.collection('parents').delete(parent.id);
    expect(await gone(parents.id, parent.id)).toBe(true);
    expect(await gone(kids.id, kid.id)).toBe(true);
  });

  it('removing a file field, or making it single, drops the files it no longer holds', async () => {
    const c = await pb.collections.create({ name: 'albums', fields: [{ name: 'cover', type: 'file', maxSelect: 1 }, { name: 'photos', type: 'file', maxSelect: 3 }] });
    const rec = await pb.collection('albums').create({ cover: file('c', 'cover.txt'), photos: [file('1', 'one.txt'), file('2', 'two.txt')] });
    const photos = c.fields.find((f) => f.name === 'photos')!;
    await pb.collections.update(c.id, { fields: c.fields.map((f) => (f.id === photos.id ? { ...f, maxSelect: 1 } : f)) });
    const now = await pb.collection('albums').getOne(rec.id);
    expect(now.photos).toBe(rec.photos[1]); // the last item stays, as PocketBase
    expect(await gone(c.id, rec.id, rec.photos[0])).toBe(true);
    expect(await has(c.id, rec.id, rec.photos[1])).toBe(true);
    await pb.collections.update(c.id, { fields: c.fields.filter((f) => f.name !== 'cover').map((f) => (f.id === photos.id ? { ...f, maxSelect: 1 } : f)) });
    expect(await gone(c.id, rec.id, rec.cover)).toBe(true);
    expect(await has(c.id, rec.id, rec.photos[1])).toBe(true);
  });

  it('deleting a collection removes its files', async () => {
    const c = await pb.collections.create({ name: 'scratch', fields: [{ name: 'f', type: 'file' }] });
    await pb.collection('scratch').create({ f: file('x', 'x.txt') });
    expect(await fx.storedIn(c.id)).toHaveLength(1);
    await pb.collections.delete(c.id);
    expect(await eventually(async () => (await fx.storedIn(c.id)).length === 0)).toBe(true);
  });

  it('a delete the rules refuse keeps the files', async () => {
    const c = await pb.collections.create({ name: 'locked', fields: [{ name: 'f', type: 'file' }], deleteRule: null });
    const rec = await pb.collection('locked').create({ f: file('x', 'x.txt') });
    const guest = fx.client();
    await expect(guest.collection('locked').delete(rec.id)).rejects.toMatchObject({ status: 403 });
    expect(await has(c.id, rec.id, rec.f)).toBe(true);
  });
});
