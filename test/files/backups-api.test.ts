// The backups folder through PocketBase's backups API (apis/backup.go), with the official SDK over a
// real socket: list, create (named or not), download with a superuser's file token, restore one by its
// key (the previous data kept as a before-restore zip that the list then shows), delete; names that
// could leave the folder and callers who are not superusers are refused.
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, fileServer, type FileServer } from './fixture.js';
import { unzip } from './zip-read.js';

let fx: FileServer;
let pb: PocketBase;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  await pb.collections.create({ name: 'notes', fields: [{ name: 'title', type: 'text' }], listRule: '', viewRule: '' });
});
afterAll(async () => { await fx.close(); });

const keys = async () => (await pb.backups.getFullList()).map((b) => b.key);

describe('backups API', () => {
  it('lists nothing, then the zips written by create (named and unnamed), newest first, with size and date', async () => {
    expect(await pb.backups.getFullList()).toEqual([]);
    await pb.collection('notes').create({ title: 'before' });
    expect(await pb.backups.create('first_backup.zip')).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    await pb.send('/api/backups', { method: 'POST', body: {} });
    const list = await pb.backups.getFullList();
    expect(list).toHaveLength(2);
    expect(list[1]!.key).toBe('first_backup.zip');
    expect(list[0]!.key).toMatch(/^deskbase-.*\.zip$/);
    for (const b of list) {
      expect(b.size).toBeGreaterThan(100);
      expect(b.modified).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('refuses a name that exists, is not a .zip file name, or could leave the folder; and unknown fields', async () => {
    for (const name of ['first_backup.zip', '../escape.zip', 'a/b.zip', 'no-extension', '.hidden.zip']) {
      const err = await pb.backups.create(name).then(() => null, (e: { status: number; response: { message: string } }) => e);
      expect(err?.status, name).toBe(400);
    }
    const extra = await pb.send('/api/backups', { method: 'POST', body: { name: 'x.zip', compress: true } }).then(() => null, (e: { status: number; response: { message: string } }) => e);
    expect(extra?.status).toBe(400);
    expect(extra?.response.message).toMatch(/compress/);
    expect(await keys()).not.toContain('x.zip');
  });

  it('downloads a backup with a superuser file token only', async () => {
    const token = await pb.files.getToken();
    const res = await fetch(pb.backups.getDownloadURL(token, 'first_backup.zip'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="first_backup.zip"');
    expect((await unzip(Buffer.from(await res.arrayBuffer()))).has('data.db')).toBe(true);
    expect((await fetch(pb.backups.getDownloadURL('', 'first_backup.zip'))).status).toBe(403);
    expect((await fetch(pb.backups.getDownloadURL(token, 'nope.zip'))).status).toBe(404);
    expect((await fetch(`${fx.server.url}/api/backups/..%2Fdata.db?token=${token}`)).status).toBe(400);
    // a user's file token is not a superuser's
    const users = fx.client();
    await pb.collection('users').create({ email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' });
    await users.collection('users').authWithPassword('u@example.com', 'password123');
    expect((await fetch(pb.backups.getDownloadURL(await users.files.getToken(), 'first_backup.zip'))).status).toBe(403);
    expect((await users.backups.getFullList().then(() => 200, (e: { status: number }) => e.status))).toBe(403);
    expect((await new PocketBase(fx.server.url).backups.getFullList().then(() => 200, (e: { status: number }) => e.status))).toBe(401);
  });

  it('restores a backup by its key; the data before it is kept as a zip the list shows', async () => {
    await pb.collection('notes').create({ title: 'after' });
    expect((await pb.collection('notes').getFullList()).map((r) => r.title).sort()).toEqual(['after', 'before']);
    expect(await pb.backups.restore('first_backup.zip')).toBe(true);
    const fresh = new PocketBase(fx.server.url);
    await fresh.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    expect((await fresh.collection('notes').getFullList()).map((r) => r.title)).toEqual(['before']);
    const list = await fresh.backups.getFullList();
    expect(list.some((b) => /^before-restore-.*\.zip$/.test(b.key))).toBe(true);
    expect(list.some((b) => b.key === 'first_backup.zip')).toBe(true);
  });

  it('deletes a backup; a missing one is a 404', async () => {
    const fresh = new PocketBase(fx.server.url);
    await fresh.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    expect(await fresh.backups.delete('first_backup.zip')).toBe(true);
    expect((await fresh.backups.getFullList()).map((b) => b.key)).not.toContain('first_backup.zip');
    expect(await fresh.backups.delete('first_backup.zip').then(() => 204, (e: { status: number }) => e.status)).toBe(404);
  });
});
