// Moving from PocketBase: a data.db that this test builds in PocketBase's layout, through the API
// (POST /api/import/pocketbase) and the CLI (npm run import-pocketbase, files included); bcrypt sign-in
// and re-hash to scrypt; what could not come over, listed. The real sample data.db in shared/ when it is there.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createCore } from '../../server/core/index.js';
import { runImport } from '../../server/import-pocketbase.js';
import { openStore } from '../../server/store/db.js';
import { eachSuperuser, type Harness } from '../support/harness.js';
import { pocketBaseDb } from './pocketbase-db.js';
import { VIEWS_ON_ENGINE } from '../support/test-store.js';
import { SAMPLES } from './pocketbase-fixtures.js';
import { pocketBaseData, writePocketBaseFolder } from './pocketbase-storage.js';

async function upload(h: Harness, token: string, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const r = await h.app.request('http://localhost:8090/api/import/pocketbase', {
    method: 'POST', headers: { host: 'localhost:8090', authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: new Blob([new Uint8Array(bytes)]),
  });
  return { status: r.status, body: JSON.parse(await r.text()) };
}

describe('moving from PocketBase', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  it('brings collections, records and auth records over; users keep their passwords (bcrypt, then scrypt)', async () => {
    const pb = await pocketBaseDb();
    const r = await upload(h, su, pb.bytes);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.records).toEqual(expect.arrayContaining([{ collection: 'users', count: 2, files: 0 }, { collection: 'posts', count: 2, files: 0 }, { collection: '_superusers', count: 1, files: 0 }]));
    const posts = await h.req('GET', '/api/collections/posts/records?sort=created', { token: su });
    expect(posts.body.items[0]).toMatchObject({
      id: 'post00000000001', title: 'First', author: 'adaada000000001', status: 'published', related: ['post00000000002'], views: 10, created: '2023-06-01T10:00:00.000Z', updated: '2023-06-02T10:00:00.000Z',
      cover: 'cover_k3l9p0qz1a.png', attachments: ['notes_8fj2k1l0qa.txt', 'photo_2b9x0c7v1m.jpg'],
    });
    const notes = r.body.notes as { collection: string; item: string; reason: string }[];
    const reasons = notes.map((n) => `${n.collection}/${n.item}`);
    expect(reasons).toEqual(expect.arrayContaining(['users/OAuth2', '*/_externalAuths', '*/settings', '*/hooks and migrations', '_externalAuths/collection']));
    // file fields come over (no note leaves them out); a data.db alone carries no files: each collection says which it lacks
    expect(reasons.filter((x) => x.includes('field'))).toEqual([]);
    expect(notes.find((n) => n.collection === 'posts' && n.item === 'files')?.reason).toMatch(/^3 file\(s\) its records name are not in the upload .*: cover_k3l9p0qz1a\.png, notes_8fj2k1l0qa\.txt, photo_2b9x0c7v1m\.jpg\./);
    expect(notes.find((n) => n.collection === 'users' && n.item === 'files')?.reason).toMatch(/^1 file\(s\).*ada_q7w3e5r8t1\.png/);
    expect(notes.find((n) => n.collection === '*' && n.item === 'storage/')?.reason).toMatch(/backup zip/);
    const schema = (await h.req('GET', '/api/collections/posts', { token: su })).body;
    expect(schema.fields.find((f: { name: string }) => f.name === 'attachments')).toMatchObject({ type: 'file', maxSelect: 5 });

    // the bcrypt hash signs in, then is replaced by scrypt; the new hash signs in too
    const stored = async () => String((await h.core.store.get<{ password: string }>(`SELECT password FROM users WHERE id = 'adaada000000001'`))?.password);
    expect(await stored()).toMatch(/^\$2[aby]\$04\$/);
    expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ada@example.com', password: 'wrong password' } })).status).toBe(400);
    expect(await stored()).toMatch(/^\$2/);
    const ok = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ada@example.com', password: pb.passwords['ada@example.com'] } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.record).toMatchObject({ id: 'adaada000000001', name: 'Ada', verified: true });
    expect(await stored()).toMatch(/^scrypt\$/);
    expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ada@example.com', password: pb.passwords['ada@example.com'] } })).status).toBe(200);
    // PocketBase's superuser joins Deskbase's
    expect((await h.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'root@example.com', password: pb.passwords['root@example.com'] } })).status).toBe(200);
  });

  it('a file that is not a PocketBase database is a 400 and changes nothing', async () => {
    const before = (await h.req('GET', '/api/collections', { token: su })).body.totalItems;
    const r = await upload(h, su, new TextEncoder().encode('not a database at all'));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Failed to read the PocketBase database: the upload is neither a data.db (SQLite) nor a PocketBase backup zip.');
    expect((await h.req('GET', '/api/collections', { token: su })).body.totalItems).toBe(before);
    const signedOut = await h.app.request('http://localhost:8090/api/import/pocketbase', { method: 'POST', headers: { host: 'localhost:8090' }, body: 'x' });
    expect(signedOut.status).toBe(401);
  });

  it('a record that cannot be stored fails the whole import: schema and records stay as they were', async () => {
    const pb = await pocketBaseDb();
    await upload(h, su, pb.bytes);
    await h.req('DELETE', '/api/collections/posts/truncate', { token: su });
    await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: 'keep me' } });
    // the same users again: their ids are taken now
    const r = await upload(h, su, pb.bytes);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/records of "users": record adaada000000001/);
    const posts = await h.req('GET', '/api/collections/posts/records', { token: su });
    expect(posts.body.items.map((p: { title: string }) => p.title)).toEqual(['keep me']);
  });

  describe('the CLI', () => {
    const root = mkdtempSync(join(tmpdir(), 'deskbase-pb-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('imports a pb_data folder with its files into a Deskbase data folder and lists what did not come over', async () => {
      const pbData = join(root, 'pb_data');
      const pb = await pocketBaseData();
      await writePocketBaseFolder(pbData, pb, ['photo_2b9x0c7v1m.jpg']);
      const before = readdirSync(join(pbData, 'storage'), { recursive: true }).sort();
      const lines: string[] = [];
      const code = await runImport([pbData, '--dir', join(root, 'deskbase'), '--yes'], (l) => lines.push(l));
      expect(code, lines.join('\n')).toBe(0);
      const out = lines.join('\n');
      expect(out).toContain('posts: collection added, 2 records, 2 files');
      expect(out).toContain('users: collection changed, 2 records, 1 file');
      expect(out).toMatch(/posts: files: 1 file\(s\) its records name are not in the folder's storage\/: photo_2b9x0c7v1m\.jpg\./);
      expect(out).not.toContain('not imported: Deskbase has no file fields');
      // the PocketBase folder is only read
      expect(readdirSync(join(pbData, 'storage'), { recursive: true }).sort()).toEqual(before);
      const store = await openStore({ dir: join(root, 'deskbase') });
      try {
        const core = await createCore(store);
        const posts = core.registry.get('posts')!;
        expect((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM users'))?.n).toBe(2);
        // originals only (no .attrs sidecars, no old thumbnails), byte for byte
        const dir = join(root, 'deskbase', 'storage', posts.id, 'post00000000001');
        expect(readdirSync(dir).sort()).toEqual(['cover_k3l9p0qz1a.png', 'notes_8fj2k1l0qa.txt']);
        expect(readFileSync(join(dir, 'notes_8fj2k1l0qa.txt'))).toEqual(pb.byName.get('notes_8fj2k1l0qa.txt'));
      } finally {
        await store.close();
      }
      // the same folder again: its records are there now, so it fails, and every file stays
      const again: string[] = [];
      const errors = vi.spyOn(console, 'error').mockImplementation((l: string) => void again.push(l));
      try {
        expect(await runImport([pbData, '--dir', join(root, 'deskbase'), '--yes'], () => {})).toBe(1);
      } finally {
        errors.mockRestore();
      }
      expect(again.join('\n')).toMatch(/Import failed, nothing was changed: .*record/);
      expect(readdirSync(join(root, 'deskbase', 'storage'), { recursive: true }).filter((n) => String(n).endsWith('.png') || String(n).endsWith('.txt')).length).toBe(3);
      expect(await runImport([join(root, 'nowhere')], () => {})).toBe(1);
    });
  });

  const sample = join(SAMPLES, 'pb_data', 'data.db');
  it.skipIf(!existsSync(sample) || !VIEWS_ON_ENGINE)('imports PocketBase’s own test data folder', async () => {
    const r = await upload(h, su, readFileSync(sample));
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    const counts = Object.fromEntries((r.body.records as { collection: string; count: number }[]).map((x) => [x.collection, x.count]));
    expect(counts.demo1).toBeGreaterThan(0);
    expect(counts.users).toBeGreaterThan(0);
    const list = await h.req('GET', '/api/collections/demo1/records?perPage=1', { token: su });
    expect(list.body.totalItems).toBe(counts.demo1);
    // its three views come over as views (issue 20), a view over a view included, and list
    for (const name of ['view1', 'view2', 'numeric_id_view']) {
      expect(h.core.registry.get(name)?.type, name).toBe('view');
      const rows = await h.req('GET', `/api/collections/${name}/records?perPage=1`, { token: su });
      expect(rows.status, rows.text).toBe(200);
    }
    expect((await h.req('GET', '/api/collections/view2/records?perPage=1', { token: su })).body.totalItems).toBe(counts.demo1);
    expect(h.core.registry.get('view2')!.fields.map((f) => [f.name, f.type])).toEqual([['id', 'text'], ['state', 'bool'], ['file_many', 'file'], ['rel_many', 'relation']]);
  });

  it.skipIf(!existsSync(sample) || !VIEWS_ON_ENGINE)('imports PocketBase’s own test data folder with its files (the CLI’s way)', async () => {
    const r = await h.core.transfer.importPocketBaseFolder(join(SAMPLES, 'pb_data'));
    const files = Object.fromEntries(r.records.map((x) => [x.collection, x.files]));
    // every file the imported records name is in its storage/ (counted from the folder by hand)
    expect(files).toMatchObject({ users: 2, demo1: 7, demo3: 4, demo5: 2 });
    expect(r.notes.filter((n) => n.item === 'files')).toEqual([]);
    const demo5 = h.core.registry.get('demo5')!;
    const served = await h.app.request(`http://localhost:8090/api/files/${demo5.id}/qjeql998mtp1azp/logo_vcf_jjg5_tah_9MtIHytOmZ.svg`, { headers: { host: 'localhost:8090', authorization: `Bearer ${su}` } });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(readFileSync(join(SAMPLES, 'pb_data', 'storage', '9n89pl5vkct6330', 'qjeql998mtp1azp', 'logo_vcf_jjg5_tah_9MtIHytOmZ.svg')));
  });
});
