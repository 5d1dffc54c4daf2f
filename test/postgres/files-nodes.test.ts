// Files on a team server: two nodes on one PostgreSQL database, each with a folder of its own (its
// temporary uploads), sharing nothing else. A file uploaded through one is served by the other, with
// its thumbnails (made once, kept in the database) and ranges; a node starting never removes another
// node's uploads in flight, and sweeps what crashed nodes left.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import PocketBase from 'pocketbase';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { file, png } from '../files/fixture.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN, startSdkServer } from '../support/sdk-server.js';

let db: FreshDatabase;
const dirs: string[] = [];
const servers: RunningServer[] = [];
let a: RunningServer;
let pbA: PocketBase;
let postsId = '';

/** A node on the test database, with a folder of its own. */
async function node(): Promise<RunningServer> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-node-'));
  dirs.push(dir);
  const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openPostgresStore({ url: db.url, max: 4, dir }) });
  servers.push(server);
  return server;
}

async function signedIn(server: RunningServer): Promise<PocketBase> {
  const pb = new PocketBase(server.url);
  pb.autoCancellation(false);
  await pb.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
  return pb;
}

const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

describePostgres('files on two nodes of one database', () => {
  beforeAll(async () => {
    db = await freshDatabase('files_nodes');
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-node-'));
    dirs.push(dir);
    const first = await startSdkServer({ dir: null, openStore: () => openPostgresStore({ url: db.url, max: 4, dir }) });
    a = first.server;
    servers.push(a);
    pbA = first.admin;
    const posts = await pbA.collections.create({
      name: 'posts',
      fields: [{ name: 'image', type: 'file', maxSelect: 1, maxSize: 100 * 1024 * 1024, thumbs: ['40x20'] }],
      listRule: '', viewRule: '', createRule: '',
    });
    postsId = posts.id;
    await pbA.collections.create({ name: 'vault', fields: [{ name: 'secret', type: 'file', maxSelect: 1, protected: true }], viewRule: '@request.auth.id != ""' });
  });
  afterAll(async () => {
    for (const s of servers.reverse()) await s.close().catch(() => undefined);
    await db?.drop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('a file uploaded through node A is downloaded through node B: the original, a range, its thumbnail made once for both', async () => {
    const image = await png(160, 80);
    const big = Buffer.alloc(2 * 1024 * 1024 + 300 * 1024 + 13); // past two chunks of _file_chunks
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    const rec = await pbA.collection('posts').create({ image: file(image, 'wide.png') });
    const blob = await pbA.collection('posts').create({ image: file(big, 'data.bin') });
    // a thumbnail asked of A first: B serves it without making it again
    expect((await fetch(pbA.files.getURL(rec, rec.image, { thumb: '40x20' }))).status).toBe(200);
    const b = await node();
    const pbB = await signedIn(b);
    const original = await fetch(pbB.files.getURL(rec, rec.image));
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/png');
    expect((await bytesOf(original)).equals(image)).toBe(true);
    const thumb = await fetch(pbB.files.getURL(rec, rec.image, { thumb: '40x20' }));
    expect(thumb.status).toBe(200);
    expect(await sharp(await bytesOf(thumb)).metadata()).toMatchObject({ width: 40, height: 20 });
    expect(b.core.files.thumbs.generated).toBe(0);
    const whole = await fetch(pbB.files.getURL(blob, blob.image));
    expect((await bytesOf(whole)).equals(big)).toBe(true);
    // a range across a chunk boundary, and one inside the last chunk
    for (const [start, end] of [[1_000_000, 2_200_000], [big.length - 10, big.length - 1], [0, 0]]) {
      const part = await fetch(pbB.files.getURL(blob, blob.image), { headers: { range: `bytes=${start}-${end}` } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes ${start}-${end}/${big.length}`);
      expect((await bytesOf(part)).equals(big.subarray(start, end + 1))).toBe(true);
    }
    // the same ETag from both nodes: a cache filled from one is good for the other
    const etagA = (await fetch(pbA.files.getURL(blob, blob.image), { method: 'HEAD' })).headers.get('etag');
    expect((await fetch(pbB.files.getURL(blob, blob.image), { method: 'HEAD' })).headers.get('etag')).toBe(etagA);
    // deleted through B, gone for A
    await pbB.collection('posts').delete(blob.id);
    await expect.poll(async () => (await fetch(pbA.files.getURL(blob, blob.image))).status).toBe(404);
    await expect.poll(async () => (await db.sql`SELECT count(*)::int AS n FROM "_files" WHERE "recordId" = ${blob.id}`)[0].n).toBe(0);
  });

  it('a protected file uploaded through A is served by B with a file token from either node', async () => {
    const rec = await pbA.collection('vault').create({ secret: file('top secret', 'secret.txt') });
    const b = servers.length > 1 ? servers[1] : await node();
    const pbB = await signedIn(b);
    expect((await fetch(pbB.files.getURL(rec, rec.secret))).status).toBe(404);
    // B's own token, and A's: the file-token secret is the database's (core/file-tokens.ts)
    for (const token of [await pbB.files.getToken(), await pbA.files.getToken()]) {
      const res = await fetch(pbB.files.getURL(rec, rec.secret, { token }));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('top secret');
    }
  });

  it('a node starting keeps another node\'s upload in flight, and sweeps what crashed nodes left', async () => {
    // node A: an upload placed for a write that has not committed yet (the funnel between prepare and commit)
    const posts = a.core.registry.get(postsId)!;
    const upload = await a.core.files.receive(Readable.from([await png(8, 8)]), 'in-flight.png', 1 << 20);
    if (!('tempPath' in upload)) throw new Error('not received');
    const prepared = await a.core.records.writes.prepareCreate(posts, { image: upload }, a.core.internalContext());
    const staged = await db.sql<{ id: number; name: string }[]>`SELECT "id", "name" FROM "_files" WHERE "staged" IS NOT NULL`;
    expect(staged).toHaveLength(1);
    // what crashed nodes left: a staged file older than the lease, an adopted file no record names,
    // this host's temporary folder of a process that is gone (and one of a live process)
    const kept = await pbA.collection('posts').create({ image: file(await png(4, 4), 'kept.png') });
    await db.sql`INSERT INTO "_files" ("collectionId", "recordId", "name", "size", "staged", "stagedAt") VALUES (${postsId}, 'crashed0000001', 'old.png', 1, 'x', 0)`;
    await db.sql`INSERT INTO "_files" ("collectionId", "recordId", "name", "size") VALUES (${postsId}, ${kept.id}, 'unnamed.png', 1)`;
    const dir = await mkdtemp(join(tmpdir(), 'deskbase-node-'));
    dirs.push(dir);
    const host = hostname().replace(/[^A-Za-z0-9.]/g, '_');
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const live = process.pid;
    await mkdir(join(dir, 'upload-temp', `node-${host}-${dead}-abc123`), { recursive: true });
    await mkdir(join(dir, 'upload-temp', `node-${host}-${live}-abc123`), { recursive: true });
    await mkdir(join(dir, 'upload-temp', `node-otherhost-${dead}-abc123`), { recursive: true });
    // node C starts on the same database: its sweep runs before it listens
    const c = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openPostgresStore({ url: db.url, max: 4, dir }) });
    servers.push(c);
    const rows = await db.sql<{ name: string; staged: string | null }[]>`SELECT "name", "staged" FROM "_files" WHERE "thumb" = '' ORDER BY "name"`;
    const names = rows.map((r) => r.name);
    expect(names).toContain(staged[0].name); // A's upload in flight stays
    expect(names).toContain(kept.image);
    expect(names).not.toContain('old.png');
    expect(names).not.toContain('unnamed.png');
    expect((await readdir(join(dir, 'upload-temp'))).sort()).toEqual([`node-${host}-${live}-abc123`, 'node-otherhost-' + dead + '-abc123'].sort());
    // A's write commits; C serves its file
    const [row] = await a.core.records.writes.commit([prepared]);
    expect(row.image).toBe(staged[0].name);
    const pbC = await signedIn(c);
    const res = await fetch(pbC.files.getURL({ collectionId: postsId, id: String(row.id) }, String(row.image)));
    expect(res.status).toBe(200);
    expect((await db.sql`SELECT "staged" FROM "_files" WHERE "id" = ${staged[0].id}`)[0].staged).toBeNull();
  });

  it('a write that rolls back leaves no file; one whose placed file was swept fails instead of naming it', async () => {
    const posts = a.core.registry.get(postsId)!;
    const before = (await db.sql`SELECT count(*)::int AS n FROM "_files"`)[0].n;
    // refused inside the transaction (a unique id taken): the placed file goes with the rollback
    const taken = await pbA.collection('posts').create({});
    const err = await pbA.collection('posts').create({ id: taken.id, image: file(await png(4, 4), 'dup.png') }).catch((e: unknown) => e as { status: number });
    expect(err.status).toBe(400);
    expect((await db.sql`SELECT count(*)::int AS n FROM "_files"`)[0].n).toBe(before);
    // a placed file removed before the commit (as a sweep does once its lease is over)
    const upload = await a.core.files.receive(Readable.from([Buffer.from('late')]), 'late.txt', 1 << 20);
    if (!('tempPath' in upload)) throw new Error('not received');
    const prepared = await a.core.records.writes.prepareCreate(posts, { image: upload }, a.core.internalContext());
    await db.sql`DELETE FROM "_files" WHERE "staged" IS NOT NULL`;
    await expect(a.core.records.writes.commit([prepared])).rejects.toThrow(/removed before the write committed/);
    expect((await db.sql`SELECT count(*)::int AS n FROM "posts" WHERE "image" LIKE 'late%'`)[0].n).toBe(0);
  });

  it('a running node removes crashed nodes\' staged files past their lease as it places files, at most every 10 minutes', async () => {
    await db.sql`INSERT INTO "_files" ("collectionId", "recordId", "name", "size", "staged", "stagedAt") VALUES (${postsId}, 'crashed0000002', 'left.png', 1, 'y', 0)`;
    const left = async () => (await db.sql`SELECT count(*)::int AS n FROM "_files" WHERE "name" = 'left.png'`)[0].n;
    await pbA.collection('posts').create({ image: file('a', 'a.txt') });
    expect(await left()).toBe(1); // A started moments ago: not yet
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 11 * 60 * 1000 });
    try {
      await pbA.collection('posts').create({ image: file('b', 'b.txt') });
    } finally {
      vi.useRealTimers();
    }
    expect(await left()).toBe(0);
  });
});
