// PocketBase's $filesystem from a real pb_hooks folder, through the official SDK over a real socket: a
// file made from bytes, a path or a URL, set on a file field and saved ($app.save, or e.record.set in a
// record event before e.next()), is stored through the files layer's upload path and served back; the
// field's own checks (maxSize, mimeTypes) and the URL's timeout apply; nothing else is accepted.
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';
import { workWatch } from '../fixtures/health-poll.js';

/** A full garbage collection, without starting the process with --expose-gc. */
const fullGc = () => {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
};

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0];

const dir = hooksFolder({
  'assets/notes.txt': 'notes from a path',
  'files.pb.js': `
routerAdd("POST", "/api/make", (e) => {
  const b = e.requestInfo().body;
  const r = new Record($app.findCollectionByNameOrId("docs"), { title: b.title || "made" });
  let f;
  if (b.kind === "bytes") f = $filesystem.fileFromBytes(b.bytes, b.name);
  if (b.kind === "path") f = $filesystem.fileFromPath(b.path);
  if (b.kind === "url") f = $filesystem.fileFromURL(b.url, b.timeout || 0);
  if (b.kind === "object") f = { name: "x.txt" };
  if (b.kind === "oldname") f = $filesystem.fileFromUrl(b.url);
  if (b.kind === "multipart") f = $filesystem.fileFromMultipart({});
  r.set(b.field || "single", f);
  $app.save(r);
  return e.json(200, { id: r.id, single: r.get("single"), many: r.get("many"), png: r.get("png"), size: f.size, originalName: f.originalName });
}, $apis.requireSuperuserAuth());

routerAdd("POST", "/api/append/{id}", (e) => {
  const r = $app.findRecordById("docs", e.request.pathValue("id"));
  r.set("many+", $filesystem.fileFromBytes("appended", "b.txt"));
  $app.save(r);
  return e.json(200, { many: r.get("many") });
}, $apis.requireSuperuserAuth());

onRecordCreate((e) => {
  if (e.record.getString("title") === "hooked") e.record.set("single", $filesystem.fileFromBytes("set by a create hook", "hook.txt"));
  e.next();
}, "docs");

onRecordUpdate((e) => {
  if (e.record.getString("title") === "add one") e.record.set("many+", $filesystem.fileFromBytes("set by an update hook", "upd.txt"));
  e.next();
}, "docs");
`,
});

const sdk = sdkSuite({ hooksDir: dir });
let web: Server;
let webUrl = '';

beforeAll(async () => {
  await sdk.admin.collections.create({
    name: 'docs',
    type: 'base',
    listRule: '',
    viewRule: '',
    createRule: '',
    updateRule: '',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'single', type: 'file', maxSelect: 1, maxSize: 1000 },
      { name: 'many', type: 'file', maxSelect: 5, maxSize: 1000 },
      { name: 'png', type: 'file', maxSelect: 1, maxSize: 1000, mimeTypes: ['image/png'] },
    ],
  });
  web = createServer((req, res) => {
    if (req.url === '/small.txt') return void res.end('downloaded bytes');
    if (req.url === '/big.bin') return void res.end(Buffer.alloc(50_000, 7));
    if (req.url === '/later.txt') return void setTimeout(() => res.end('answered later'), 100);
    if (req.url === '/missing') {
      res.statusCode = 404;
      return void res.end('no');
    }
    // /slow: never answers within the hook's timeout; a full garbage collection runs while the hook's
    // download waits for it (a loaded machine's run had one there: the timeout must survive it)
    setTimeout(() => res.end('late'), 5000).unref();
    setImmediate(fullGc);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});

afterAll(async () => {
  web.closeAllConnections();
  await new Promise((r) => web.close(r));
});

interface Made { id: string; single: string; many: string[]; png: string; size: number; originalName: string }
const make = (body: Record<string, unknown>) => sdk.admin.send<Made>('/api/make', { method: 'POST', body });
const served = async (id: string, name: string) => {
  const res = await fetch(sdk.admin.files.getURL({ id, collectionId: 'docs', collectionName: 'docs' }, name));
  return { status: res.status, text: await res.text() };
};

describe('$filesystem', () => {
  it('fileFromBytes: saved with $app.save, stored under its own name and served back', async () => {
    const m = await make({ kind: 'bytes', bytes: 'hello from bytes', name: 'Hello World.txt' });
    expect(m.single).toMatch(/^hello_world_[a-z0-9]{10}\.txt$/);
    expect([m.size, m.originalName]).toEqual([16, 'Hello World.txt']);
    expect(await served(m.id, m.single)).toEqual({ status: 200, text: 'hello from bytes' });
    expect((await sdk.admin.collection('docs').getOne(m.id)).single).toBe(m.single);
  });

  it('fileFromPath (relative to pb_hooks) and fileFromURL', async () => {
    const p = await make({ kind: 'path', path: 'assets/notes.txt' });
    expect(p.size).toBe(17);
    expect(await served(p.id, p.single)).toEqual({ status: 200, text: 'notes from a path' });
    const u = await make({ kind: 'url', url: `${webUrl}/small.txt`, timeout: 5 });
    expect(u.single).toMatch(/^small_[a-z0-9]{10}\.txt$/);
    expect(await served(u.id, u.single)).toEqual({ status: 200, text: 'downloaded bytes' });
    // a timeout longer than a timer holds (2^31-1 ms, ~24.8 days; PocketBase takes any): no timeout
    // in practice, not a timer cut to 1 ms (Node's TimeoutOverflowWarning)
    const long = await make({ kind: 'url', url: `${webUrl}/later.txt`, timeout: 3_000_000 });
    expect(await served(long.id, long.single)).toEqual({ status: 200, text: 'answered later' });
    const old = await make({ kind: 'oldname', url: `${webUrl}/small.txt` });
    expect(await served(old.id, old.single)).toEqual({ status: 200, text: 'downloaded bytes' });
  });

  it('appends to a multi-file field, keeping the stored files', async () => {
    const m = await make({ kind: 'bytes', bytes: 'first', name: 'a.txt', field: 'many' });
    expect(m.many).toHaveLength(1);
    const { many } = await sdk.admin.send<{ many: string[] }>(`/api/append/${m.id}`, { method: 'POST' });
    expect(many).toHaveLength(2);
    expect(many[0]).toBe(m.many[0]);
    expect(await served(m.id, many[1])).toEqual({ status: 200, text: 'appended' });
  });

  it("applies the field's maxSize and mimeTypes, and the URL's timeout; refuses what is no file", async () => {
    const big = await failure(make({ kind: 'bytes', bytes: 'x'.repeat(1001), name: 'big.txt' }));
    expect([big.status, big.response.data.single?.code]).toEqual([400, 'validation_file_size_limit']);
    const bigUrl = await failure(make({ kind: 'url', url: `${webUrl}/big.bin` }));
    expect([bigUrl.status, bigUrl.response.data.single?.code]).toEqual([400, 'validation_file_size_limit']);
    const text = await failure(make({ kind: 'bytes', bytes: 'not an image', name: 'x.png', field: 'png' }));
    expect([text.status, text.response.data.png?.code]).toEqual([400, 'validation_invalid_mime_type']);
    const png = await make({ kind: 'bytes', bytes: PNG, name: 'dot.png', field: 'png' });
    expect(png.png).toMatch(/^dot_[a-z0-9]{10}\.png$/);

    const took = workWatch(process.pid); // this process's work and waits, not what a busy machine adds
    const slow = await failure(make({ kind: 'url', url: `${webUrl}/slow`, timeout: 1 }));
    expect(slow.status).toBe(400);
    expect(slow.message).toContain('no answer within 1 s');
    expect(took().worked).toBeLessThan(4000);
    const missing = await failure(make({ kind: 'url', url: `${webUrl}/missing` }));
    expect([missing.status, missing.message]).toEqual([400, expect.stringContaining('status 404')]);
    const object = await failure(make({ kind: 'object' }));
    expect(object.status).toBe(400);
    expect((await failure(make({ kind: 'multipart' }))).status).toBe(400);
    // none of the refused saves left a received file behind, nor stored a record
    const temp = sdk.server.core.files.storage.tempDir;
    expect(existsSync(temp) ? readdirSync(temp) : []).toEqual([]);
    expect((await sdk.admin.collection('docs').getList(1, 1, { filter: 'title = "made" && single = "" && many:length = 0 && png = ""' })).totalItems).toBe(0);
  });

  it('e.record.set in onRecordCreate / onRecordUpdate before e.next()', async () => {
    const created = await sdk.client().collection('docs').create({ title: 'hooked' });
    expect(created.single).toMatch(/^hook_[a-z0-9]{10}\.txt$/);
    expect(await served(created.id, created.single)).toEqual({ status: 200, text: 'set by a create hook' });
    const updated = await sdk.client().collection('docs').update(created.id, { title: 'add one' });
    expect(updated.many).toHaveLength(1);
    expect(updated.single).toBe(created.single);
    expect(await served(created.id, updated.many[0])).toEqual({ status: 200, text: 'set by an update hook' });
  });

  it("a client's multipart upload beside a hook's file, in the same hooked write (placed in its transaction on the team server)", async () => {
    const form = new FormData();
    form.append('title', 'hooked');
    form.append('many', new Blob(['uploaded by the client']), 'client.txt');
    const created = await sdk.client().collection('docs').create(form);
    expect(created.many).toHaveLength(1);
    expect(await served(created.id, created.many[0])).toEqual({ status: 200, text: 'uploaded by the client' });
    expect(await served(created.id, created.single)).toEqual({ status: 200, text: 'set by a create hook' });
  });
});
