// GET /api/backup streams one zip with data.db and storage/, consistent while writes go on; POST
// /api/backup/restore checks an archive, swaps it in and keeps the previous data beside it; invalid
// archives are refused with nothing changed. Through the SDK and fetch over a real socket.
import { existsSync, watch } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { ADMIN, file, fileServer, type FileServer } from './fixture.js';
import { unzip, zipOf } from './zip-read.js';

let fx: FileServer;
let pb: PocketBase;
let colId: string;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  colId = (await pb.collections.create({ name: 'docs', fields: [{ name: 'title', type: 'text' }, { name: 'att', type: 'file', maxSelect: 3 }], listRule: '', viewRule: '' })).id;
});
afterAll(async () => { await fx.close(); });

const auth = () => ({ authorization: pb.authStore.token });
/** Renames entries in a zip's bytes (yazl refuses unsafe names, as a hostile tool would not). */
function patched(zip: Buffer, from: string, to: string): Buffer {
  return Buffer.from(zip.toString('latin1').split(from).join(to), 'latin1');
}

const exists = (path: string) => access(path).then(() => true, () => false);

async function backup(): Promise<Buffer> {
  const res = await fetch(`${fx.server.url}/api/backup`, { headers: auth() });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/zip');
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="deskbase-.*\.zip"$/);
  return Buffer.from(await res.arrayBuffer());
}

async function restore(bytes: Buffer): Promise<Response> {
  return fetch(`${fx.server.url}/api/backup/restore`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/zip' }, body: new Uint8Array(bytes) });
}

describe('backup', () => {
  it('holds a consistent data.db and every file the records name', async () => {
    const rec = await pb.collection('docs').create({ title: 'one', att: [file('first', 'a.txt'), file('second', 'b.txt')] });
    const entries = await unzip(await backup());
    expect(entries.get(`storage/${colId}/${rec.id}/${rec.att[0]}`)?.toString()).toBe('first');
    expect(entries.get(`storage/${colId}/${rec.id}/${rec.att[1]}`)?.toString()).toBe('second');
    const SQL = await loadSqlJs();
    const db = new SQL.Database(entries.get('data.db'));
    expect(db.exec(`SELECT title FROM docs WHERE id = '${rec.id}'`)[0].values).toEqual([['one']]);
    db.close();
  });

  it('is refused to everyone but superusers', async () => {
    expect((await fetch(`${fx.server.url}/api/backup`)).status).toBe(401);
    expect((await fetch(`${fx.server.url}/api/backup/restore`, { method: 'POST', body: 'x' })).status).toBe(401);
  });

  it('keeps a file a write deletes while the backup streams, and deletes it once the stream ends', async () => {
    // files large enough that the archive cannot have read the last one when the first chunk arrives
    const big = Buffer.alloc(4 * 1024 * 1024, 7);
    await pb.collection('docs').create({ title: 'big', att: [file(big, '1.bin'), file(big, '2.bin'), file(big, '3.bin')] });
    const rec = await pb.collection('docs').create({ title: 'doomed', att: file('keep me', 'k.txt') });
    const path = join(fx.dir, 'storage', colId, rec.id, rec.att[0]);
    // the file's removal, seen by the kernel (inotify), at whatever moment it happens
    let streamed = false;
    let removedWhileStreaming = false;
    const removed = new Promise<void>((resolve) => {
      const watcher = watch(dirname(path), (_event, name) => {
        if (name !== rec.att[0] || existsSync(path)) return;
        removedWhileStreaming = !streamed;
        watcher.close();
        resolve();
      });
    });
    // the server hands a deletion's files to the storage before it tells realtime subscribers
    // (core/index.ts subscribes dropReleasedFiles to the change feed first)
    let announced!: () => void;
    const deleted = new Promise<void>((resolve) => (announced = resolve));
    const unsubscribe = await pb.collection('docs').subscribe(rec.id, (e) => { if (e.action === 'delete') announced(); });
    const res = await fetch(`${fx.server.url}/api/backup`, { headers: auth() });
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    if (first.value) chunks.push(first.value);
    await pb.collection('docs').delete(rec.id);
    await deleted;
    await unsubscribe();
    // an unheld removal is a few syscalls already queued: it lands before 12 MB have been read
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    streamed = true;
    expect(removedWhileStreaming, 'the file was removed while the backup streamed').toBe(false);
    const entries = await unzip(Buffer.concat(chunks));
    expect(entries.get(`storage/${colId}/${rec.id}/${rec.att[0]}`)?.toString()).toBe('keep me');
    await removed; // released once the stream ended (the test's timeout bounds the wait)
    expect(removedWhileStreaming).toBe(false);
    expect(await exists(path)).toBe(false);
  });
});

describe('restore', () => {
  it('swaps an archive in, keeps the previous data beside it and removes files the archive does not name', async () => {
    const kept = await pb.collection('docs').create({ title: 'kept', att: file('old bytes', 'old.txt') });
    const archive = await backup();
    await pb.collection('docs').delete(kept.id);
    const later = await pb.collection('docs').create({ title: 'later', att: file('new', 'new.txt') });
    const res = await restore(archive);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.missingFiles).toEqual([]);
    expect(body.previous).toMatch(/^backups\/before-restore-.*\.zip$/);
    expect(await exists(join(fx.dir, body.previous))).toBe(true);
    const back = await pb.collection('docs').getOne(kept.id);
    expect(back.title).toBe('kept');
    expect(await (await fetch(pb.files.getURL(back, back.att[0]))).text()).toBe('old bytes');
    await expect(pb.collection('docs').getOne(later.id)).rejects.toMatchObject({ status: 404 });
    expect(await exists(join(fx.dir, 'storage', colId, later.id))).toBe(false);
    // the previous data can itself be restored
    const previous = await unzip(await import('node:fs/promises').then((fs) => fs.readFile(join(fx.dir, body.previous))));
    expect([...previous.keys()].some((k) => k.includes(later.id))).toBe(true);
    expect((await readdir(fx.dir)).filter((n) => n.startsWith('restore'))).toEqual([]);
  });

  it('survives a restart: the restored data is what the folder holds', async () => {
    const rec = await pb.collection('docs').create({ title: 'before restart', att: file('x', 'x.txt') });
    const archive = await backup();
    await pb.collection('docs').update(rec.id, { title: 'changed' });
    expect((await restore(archive)).status).toBe(200);
    await fx.server.close();
    const { startServer } = await import('../../server/index.js');
    fx.server = await startServer({ dir: fx.dir, port: 0, uiDir: null, log: () => undefined });
    pb.baseURL = fx.server.url;
    expect((await pb.collection('docs').getOne(rec.id)).title).toBe('before restart');
  });

  it('reports files the records name that the archive lacks', async () => {
    const rec = await pb.collection('docs').create({ title: 'partial', att: file('y', 'y.txt') });
    const entries = await unzip(await backup());
    const without = [...entries].filter(([name]) => !name.endsWith(rec.att[0]));
    const res = await restore(await zipOf(without));
    expect(res.status).toBe(200);
    expect((await res.json()).missingFiles).toEqual([`${colId}/${rec.id}/${rec.att[0]}`]);
  });

  it('an archive from before sessions kept `issued` restores, and sign-in and refresh work after it', async () => {
    const entries = await unzip(await backup());
    const SQL = await loadSqlJs();
    const older = new SQL.Database(entries.get('data.db')!);
    older.run('ALTER TABLE "_sessions" DROP COLUMN "issued"');
    const bytes = await zipOf([['data.db', Buffer.from(older.export())]]);
    older.close();
    expect((await restore(bytes)).status).toBe(200);
    const again = new PocketBase(fx.server.url);
    await again.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    expect((await again.collection('_superusers').authRefresh()).record.email).toBe(ADMIN.email);
    expect((await pb.collection('_superusers').authRefresh()).record.email).toBe(ADMIN.email);
  });

  it('refuses invalid archives with nothing changed', async () => {
    const rec = await pb.collection('docs').create({ title: 'stays', att: file('z', 'z.txt') });
    const entries = await unzip(await backup());
    const db = entries.get('data.db')!;
    const SQL = await loadSqlJs();
    const foreign = new SQL.Database();
    foreign.run('CREATE TABLE t (x)');
    const cases: [string, Buffer][] = [
      ['not a zip', Buffer.from('hello')],
      ['no data.db', await zipOf([['storage/a/b/c.txt', 'x']])],
      ['zip-slip', patched(await zipOf([['data.db', db], ['storage/AA/AA/evil.txt', 'x']]), 'storage/AA/AA/', 'storage/../../')],
      ['absolute', patched(await zipOf([['data.db', db], ['xstorage/a/b/c.txt', 'x']]), 'xstorage/', '/storage/')],
      ['outside storage', await zipOf([['data.db', db], ['evil.txt', 'x']])],
      ['hidden segment', await zipOf([['data.db', db], ['storage/a/.b/c.txt', 'x']])],
      ['not sqlite', await zipOf([['data.db', 'not a database at all']])],
      ['not deskbase', await zipOf([['data.db', Buffer.from(foreign.export())]])],
    ];
    foreign.close();
    for (const [what, bytes] of cases) {
      const res = await restore(bytes);
      const body = await res.json();
      expect(res.status, what).toBe(400);
      expect(body.message, what).toMatch(/^Invalid backup archive/);
    }
    expect((await pb.collection('docs').getOne(rec.id)).title).toBe('stays');
    expect(await exists(join(fx.dir, 'storage', colId, rec.id, rec.att[0]))).toBe(true);
    expect(await exists(join(fx.dir, 'evil.txt'))).toBe(false);
    expect((await readdir(fx.dir)).filter((n) => n.startsWith('restore'))).toEqual([]);
  });

  it('runs one at a time: a second restore while one is receiving is refused, and the first completes', async () => {
    const archive = await backup();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // the first restore's body arrives in two halves, the second half once the other restore was answered
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new Uint8Array(archive.subarray(0, 1000)));
        await held;
        controller.enqueue(new Uint8Array(archive.subarray(1000)));
        controller.close();
      },
    });
    const first = fetch(`${fx.server.url}/api/backup/restore`, {
      method: 'POST', headers: { ...auth(), 'content-type': 'application/zip' }, body, duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    // the first one is receiving once its staging folder exists
    for (let i = 0; i < 100 && !(await exists(join(fx.dir, 'restore-staging'))); i++) await new Promise((r) => setTimeout(r, 20));
    const second = await restore(archive);
    expect(second.status).toBe(400);
    expect((await second.json()).message).toMatch(/another restore is running/);
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect((await readdir(fx.dir)).filter((n) => n.startsWith('restore'))).toEqual([]);
    expect((await restore(archive)).status).toBe(200); // free again
  });
});
