// Moving from PocketBase with files, over a real socket onto a data folder: POST /api/import/pocketbase
// takes a PocketBase backup zip (its Backups page's download) as well as a bare data.db, streamed to
// disk and extracted with every entry checked; the records' files are served byte for byte after it,
// files the zip lacks are noted, and a failed or refused import leaves no file behind.
import { request } from 'node:http';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type PocketBase from 'pocketbase';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSdkServer } from '../support/sdk-server.js';
import { startServer, type RunningServer } from '../../server/index.js';
import { adoptFiles } from '../../server/files/adopt.js';
import { DiskFileStorage } from '../../server/files/storage.js';
import { derivedId } from '../../server/core/transfer/schema-plan.js';
import { zipOf } from '../files/zip-read.js';
import { pocketBaseData, pocketBaseZip, type PocketBaseFolder } from './pocketbase-storage.js';

let dir: string;
let server: RunningServer;
let admin: PocketBase;
let fresh: () => PocketBase;
let pb: PocketBaseFolder;

async function start(): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'deskbase-pbfiles-'));
  ({ server, admin, client: fresh } = await startSdkServer({ dir }));
}

beforeEach(async () => {
  pb ??= await pocketBaseData();
});
afterEach(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function upload(bytes: Buffer | Uint8Array): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/api/import/pocketbase`, { method: 'POST', headers: { authorization: admin.authStore.token, 'content-type': 'application/zip' }, body: new Uint8Array(bytes) });
  return { status: res.status, body: await res.json() };
}

/** Every file under a folder, relative to it ([] when it does not exist). */
async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(path.length + 1)).sort();
}

/** An import's upload has reached the server: it holds the import and streams the body under upload-temp/. */
async function receiving(): Promise<void> {
  await expect.poll(() => filesUnder(join(dir, 'upload-temp')), { timeout: 10_000, interval: 5 }).not.toEqual([]);
}

/** Our collection id for PocketBase's. */
async function ourId(pbCollection: string): Promise<string> {
  return (await admin.collections.getOne(pbCollection === '_pb_users_auth_' ? 'users' : 'posts')).id;
}

describe('moving from PocketBase with files', () => {
  it('a backup zip brings records and their files: served byte for byte, thumbnails made again, passwords kept', async () => {
    await start();
    const r = await upload(await pocketBaseZip(pb));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.records).toEqual(expect.arrayContaining([{ collection: 'posts', count: 2, files: 3 }, { collection: 'users', count: 2, files: 1 }]));
    expect(r.body.notes.filter((n: { item: string }) => n.item === 'files' || n.item === 'storage/')).toEqual([]);
    for (const f of pb.files) {
      const res = await fetch(`${server.url}/api/files/${await ourId(f.collection)}/${f.record}/${f.name}`);
      expect(res.status, f.name).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()), f.name).toEqual(f.bytes);
    }
    // originals only: PocketBase's .attrs sidecars, old thumbnails and auxiliary.db stay behind
    const usersId = await ourId('_pb_users_auth_');
    expect(await filesUnder(join(dir, 'storage', usersId))).toEqual(['adaada000000001/ada_q7w3e5r8t1.png']);
    expect(await filesUnder(join(dir, 'upload-temp'))).toEqual([]);
    const thumb = await fetch(`${server.url}/api/files/${usersId}/adaada000000001/ada_q7w3e5r8t1.png?thumb=100x100`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/png');
    expect(await filesUnder(join(dir, 'storage', usersId))).toContain('adaada000000001/thumbs_ada_q7w3e5r8t1.png/100x100_ada_q7w3e5r8t1.png');
    // the bcrypt password signs in; the record names its avatar
    const ada = await fresh().collection('users').authWithPassword('ada@example.com', pb.passwords['ada@example.com']);
    expect(ada.record.avatar).toBe('ada_q7w3e5r8t1.png');
  });

  it('files a record names that the zip lacks are noted, never a failure', async () => {
    await start();
    const r = await upload(await pocketBaseZip(pb, { omit: ['photo_2b9x0c7v1m.jpg', 'ada_q7w3e5r8t1.png'] }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const note = (c: string) => (r.body.notes as { collection: string; item: string; reason: string }[]).find((n) => n.collection === c && n.item === 'files')?.reason;
    expect(note('posts')).toMatch(/^1 file\(s\) its records name are not in the backup zip's storage\/: photo_2b9x0c7v1m\.jpg\. The records keep the names/);
    expect(note('users')).toMatch(/ada_q7w3e5r8t1\.png/);
    expect(r.body.records).toEqual(expect.arrayContaining([{ collection: 'posts', count: 2, files: 2 }]));
    const postsId = await ourId('pbc_1125843985');
    expect((await fetch(`${server.url}/api/files/${postsId}/post00000000001/photo_2b9x0c7v1m.jpg`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/files/${postsId}/post00000000001/notes_8fj2k1l0qa.txt`)).status).toBe(200);
    expect((await admin.collection('posts').getOne('post00000000001')).attachments).toEqual(['notes_8fj2k1l0qa.txt', 'photo_2b9x0c7v1m.jpg']);
  });

  it('a failed import leaves no file behind and changes nothing', async () => {
    await start();
    // a record with one of the zip's ids is here already: the records' insert fails after the files were placed
    await admin.collection('users').create({ id: 'adaada000000001', email: 'other@example.com', password: 'password123', passwordConfirm: 'password123' });
    const r = await upload(await pocketBaseZip(pb));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/records of "users": record adaada000000001/);
    expect(await filesUnder(join(dir, 'storage'))).toEqual([]);
    expect(await readdir(join(dir, 'storage')).catch(() => [])).toEqual([]);
    expect(await filesUnder(join(dir, 'upload-temp'))).toEqual([]);
    await expect(admin.collections.getOne('posts')).rejects.toMatchObject({ status: 404 });
  });

  it('refuses what is not a PocketBase backup or data.db, with nothing changed', async () => {
    await start();
    const before = (await admin.collections.getFullList()).length;
    const whole = await pocketBaseZip(pb);
    const cases: [string, Buffer, RegExp][] = [
      ['no data.db', await zipOf([['pb_data/data.db', Buffer.from(pb.bytes)], ['storage/a/b/c.txt', 'x']]), /^Invalid PocketBase backup zip: it has no data\.db at its root\.$/],
      ['writes still in the WAL', await pocketBaseZip(pb, { wal: Buffer.from('wal frames') }), /data\.db-wal file holds writes that are not in data\.db yet/],
      ['a link in storage/', await zipOf([['data.db', Buffer.from(pb.bytes)], ['storage/pbc_1125843985/post00000000001/cover_k3l9p0qz1a.png', '/etc/passwd', 0o120777]]), /^Invalid PocketBase backup zip: links are not allowed/],
      // the same length, so the zip's offsets still hold
      ['zip-slip', Buffer.from(whole.toString('latin1').replaceAll('storage/pbc_1125843985/', 'storage/../../../../xx/'), 'latin1'), /^Invalid PocketBase backup zip/],
      ['data.db not SQLite', await zipOf([['data.db', 'not a database']]), /^Failed to read the PocketBase database/],
      ['neither', Buffer.from('hello'), /neither a data\.db \(SQLite\) nor a PocketBase backup zip/],
    ];
    for (const [what, bytes, message] of cases) {
      const r = await upload(bytes);
      expect(r.status, what).toBe(400);
      expect(r.body.message, what).toMatch(message);
    }
    expect((await admin.collections.getFullList()).length).toBe(before);
    expect(await filesUnder(join(dir, 'storage'))).toEqual([]);
    expect(await filesUnder(join(dir, 'upload-temp'))).toEqual([]);
    expect(await filesUnder(join(dir, '..', 'xx'))).toEqual([]);
  });

  it('one import at a time; a declared body over the limit is refused before it is read', async () => {
    await start();
    // a first upload whose body is still arriving
    let send: (chunk: Uint8Array | null) => void = () => {};
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = (chunk) => (chunk === null ? c.close() : c.enqueue(chunk))) });
    const zip = await pocketBaseZip(pb);
    const first = fetch(`${server.url}/api/import/pocketbase`, { method: 'POST', headers: { authorization: admin.authStore.token }, body, duplex: 'half' } as RequestInit);
    send(zip.subarray(0, 1000));
    await receiving();
    const second = await upload(zip);
    expect(second.status).toBe(400);
    expect(second.body.message).toBe('Another PocketBase import is running; try again once it has finished.');
    send(zip.subarray(1000));
    send(null);
    expect((await first).status).toBe(200);

    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/import/pocketbase`, { method: 'POST', headers: { authorization: admin.authStore.token, 'content-length': String(65 * 1024 ** 3) } }, (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });

  it('an upload the client abandons midway frees the import for the next one and leaves nothing behind', async () => {
    await start();
    const zip = await pocketBaseZip(pb);
    const gone = new AbortController();
    const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(zip.subarray(0, 1000)) });
    const first = fetch(`${server.url}/api/import/pocketbase`, { method: 'POST', headers: { authorization: admin.authStore.token }, body, duplex: 'half', signal: gone.signal } as RequestInit);
    await receiving();
    gone.abort();
    await first.catch(() => undefined);
    let r = await upload(zip);
    for (let i = 0; i < 40 && r.body.message?.startsWith('Another PocketBase import'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      r = await upload(zip);
    }
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await filesUnder(join(dir, 'upload-temp'))).toEqual([]);
  });

  it('an import that works longer than the connection inactivity limit still gets its answer', async () => {
    await start();
    // the same folder (and the superuser's session) on a server whose connections go after 40 ms without a byte
    await server.close();
    server = await startServer({ dir, port: 0, uiDir: null, log: () => undefined, limits: { idleMs: 40 } });
    const r = await upload(await pocketBaseZip(pb));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('files an import placed before a crash, for records that never committed, go at the next start', async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskbase-pbfiles-'));
    await writeFile(join(dir, 'source.bin'), 'bytes');
    // what the import's before step does, then the process dies before the transaction
    const placed = await adoptFiles(new DiskFileStorage(dir, () => undefined), [{ collectionId: derivedId('pbc_1125843985'), recordId: 'post00000000001', name: 'cover.png', source: join(dir, 'source.bin') }], 'copy');
    expect(placed.placed).toBe(1);
    expect(await filesUnder(join(dir, 'storage'))).toHaveLength(1);
    server = await startServer({ dir, port: 0, uiDir: null, log: () => undefined });
    expect(await filesUnder(join(dir, 'storage'))).toEqual([]);
  });
});
