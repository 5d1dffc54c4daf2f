// A restore that fails after its swap puts the previous data back itself (issue 21, item 10), and a
// backup stays whole when the data holds a stored file name that is not a plain path segment (item 8:
// such a name used to cut GET /api/backup mid-stream). A real server on a data folder, over a socket.
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, fileServer, type FileServer } from './fixture.js';
import { loadSqlJs } from '../../server/store/db.js';
import { unzip, zipOf } from './zip-read.js';
import { startSdkServer } from '../support/sdk-server.js';

let fx: FileServer;
let pb: PocketBase;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  await pb.collections.create({ name: 'docs', fields: [{ name: 'title', type: 'text' }, { name: 'att', type: 'file', maxSelect: 3 }] });
});
afterAll(async () => {
  await fx.close();
});

const auth = () => ({ authorization: pb.authStore.token });
async function backup(): Promise<Buffer> {
  const res = await fetch(`${fx.server.url}/api/backup`, { headers: auth() });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}
const restore = (bytes: Buffer) => fetch(`${fx.server.url}/api/backup/restore`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/zip' }, body: new Uint8Array(bytes) });

describe('a restore that fails after the swap', () => {
  it('puts the previous data back and answers why; the data and its files are as before', async () => {
    const old = await pb.collection('docs').create({ title: 'in the archive' });
    const archive = await backup();
    const kept = await pb.collection('docs').create({ title: 'made after the backup', att: [file('bytes', 'a.txt')] });
    // the swapped data fails to load once (what a reload listener throws is what start-up would meet)
    let failOnce = true;
    fx.server.core.store.onReload(() => {
      if (failOnce) {
        failOnce = false;
        throw new Error('injected load failure');
      }
    });
    const r = await restore(archive);
    const body = (await r.json()) as { status: number; message: string };
    expect(r.status, JSON.stringify(body)).toBe(400);
    expect(body.message).toBe('Invalid backup archive: the restored data could not be loaded (injected load failure); the previous data was put back, nothing changed.');
    // the previous data serves again: the record made after the backup, its file, the registry
    expect((await pb.collection('docs').getOne(kept.id)).title).toBe('made after the backup');
    expect(await access(join(fx.dir, 'storage', kept.collectionId, kept.id, kept.att[0])).then(() => true, () => false)).toBe(true);
    expect((await pb.collection('docs').getOne(old.id)).title).toBe('in the archive');
    const created = await pb.collection('docs').create({ title: 'writes go on' });
    expect(created.id).toMatch(/^[a-z0-9]{15}$/);
    // and the same archive restores once nothing fails
    const again = await restore(archive);
    expect(again.status, await again.clone().text()).toBe(200);
    await expect(pb.collection('docs').getOne(kept.id)).rejects.toMatchObject({ status: 404 });
  }, 60_000);
});

describe('a backup of data holding an unsafe stored name', () => {
  it('is whole: the name stays in data.db, no path is made of it', async () => {
    const good = await pb.collection('docs').create({ title: 'good', att: [file('good bytes', 'g.txt')] });
    // planted below the API (every way in refuses it now): data written before those checks
    await fx.server.core.store.write((tx) => tx.run(`INSERT INTO docs (id, title, att) VALUES ('bad000000000001', 'bad', '["../../../../etc/passwd"]')`));
    const entries = await unzip(await backup());
    expect(entries.has('data.db')).toBe(true);
    expect(entries.get(`storage/${good.collectionId}/${good.id}/${good.att[0]}`)?.toString()).toBe('good bytes');
    expect([...entries.keys()].some((k) => k.includes('..'))).toBe(false);
  }, 60_000);

  it('is put back as it was when a restore fails after the swap (its own oddities are not the archive\'s)', async () => {
    // a clean candidate: this data without the planted record
    const entries = await unzip(await backup());
    const SQL = await loadSqlJs();
    const db = new SQL.Database(entries.get('data.db'));
    db.run(`DELETE FROM docs WHERE id = 'bad000000000001'`);
    entries.set('data.db', Buffer.from(db.export()));
    db.close();
    let failOnce = true;
    fx.server.core.store.onReload(() => {
      if (failOnce) {
        failOnce = false;
        throw new Error('injected load failure');
      }
    });
    const r = await restore(await zipOf([...entries]));
    expect(r.status, await r.clone().text()).toBe(400);
    expect((await pb.collection('docs').getOne('bad000000000001')).title).toBe('bad');
  }, 60_000);
});

describe('a backup cut midway', () => {
  it('is logged with its reason (it used to end without a line)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-cut-'));
    const lines: string[] = [];
    const { server, admin } = await startSdkServer({ dir, log: (l) => void lines.push(l) });
    try {
      await admin.collections.create({ name: 'docs', fields: [{ name: 'att', type: 'file' }] });
      const rec = await admin.collection('docs').create({ att: file('bytes', 'a.txt') });
      // the named file is not a file any more: reading it fails while the zip streams
      const path = join(dir, 'storage', rec.collectionId, rec.id, rec.att as string);
      await rm(path);
      await mkdir(path);
      // cut: the body ends early or errors, or the connection closes before the headers when the read
      // fails at once (or, when it fails before the first byte went out, a 500)
      const res = await fetch(`${server.url}/api/backup`, { headers: { authorization: admin.authStore.token } }).catch(() => null);
      if (res) {
        expect([200, 500]).toContain(res.status);
        await res.arrayBuffer().catch(() => undefined);
      }
      for (let i = 0; i < 500 && !lines.some((l) => l.includes('A backup was cut midway')); i++) await new Promise((r) => setTimeout(r, 20));
      expect(lines.find((l) => l.includes('A backup was cut midway'))).toMatch(/^error: .*A backup was cut midway: /);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
