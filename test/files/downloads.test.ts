// Serving files through the SDK's URLs over a real socket: content type sniffed from the bytes,
// disposition, CSP and nosniff, ETag and Last-Modified with their 304s, ranges, HEAD, 404s in the
// envelope, thumbnails generated once and cached, protected files with file tokens and the viewRule.
import type PocketBase from 'pocketbase';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, fileServer, png, type FileServer } from './fixture.js';

let fx: FileServer;
let pb: PocketBase;
let mediaId: string;

beforeAll(async () => {
  fx = await fileServer();
  pb = fx.admin;
  const media = await pb.collections.create({
    name: 'media',
    fields: [
      { name: 'owner', type: 'text' },
      { name: 'image', type: 'file', maxSelect: 1, thumbs: ['50x20', '50x20t', '50x20b', '50x20f', '0x30', '30x0'] },
      { name: 'doc', type: 'file', maxSelect: 3 },
      { name: 'secret', type: 'file', maxSelect: 1, protected: true },
    ],
    listRule: '', viewRule: 'owner = @request.auth.id', createRule: '', updateRule: '', deleteRule: '',
  });
  mediaId = media.id;
});
afterAll(async () => { await fx.close(); });

describe('downloads', () => {
  it('serves the bytes with the sniffed type, inline for images, attachment with ?download=1', async () => {
    const bytes = await png(40, 20);
    const rec = await pb.collection('media').create({ image: file(bytes, 'pic.bin', 'text/plain') });
    const url = pb.files.getURL(rec, rec.image);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${rec.image}"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    const down = await fetch(pb.files.getURL(rec, rec.image, { download: true }));
    expect(down.headers.get('content-disposition')).toBe(`attachment; filename="${rec.image}"`);
    await down.arrayBuffer();
  });

  it('never serves SVG or HTML inline: attachment, a sandboxing CSP and nosniff', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const rec = await pb.collection('media').create({ doc: [file(svg, 'x.svg', 'image/svg+xml'), file('<!doctype html><script>alert(1)</script>', 'x.html', 'text/html')] });
    for (const name of rec.doc) {
      const res = await fetch(pb.files.getURL(rec, name));
      expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; sandbox");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      await res.arrayBuffer();
    }
    expect((await fetch(pb.files.getURL(rec, rec.doc[0]))).headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers ETag and Last-Modified revalidation with 304, a range with 206, HEAD without a body', async () => {
    const rec = await pb.collection('media').create({ doc: file('0123456789', 'digits.txt') });
    const url = pb.files.getURL(rec, rec.doc[0]);
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(first.headers.get('cache-control')).toContain('max-age=');
    expect(await first.text()).toBe('0123456789');
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'if-modified-since': first.headers.get('last-modified')! } })).status).toBe(304);
    const part = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await part.text()).toBe('2345');
    const tail = await fetch(url, { headers: { range: 'bytes=-3' } });
    expect(await tail.text()).toBe('789');
    const bad = await fetch(url, { headers: { range: 'bytes=20-30' } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe('bytes */10');
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10');
    expect(await head.text()).toBe('');
  });

  it('answers 404 in the envelope for a missing collection, record or file name', async () => {
    const rec = await pb.collection('media').create({ doc: file('x', 'x.txt') });
    for (const path of [`/api/files/nope/${rec.id}/${rec.doc[0]}`, `/api/files/media/missing/${rec.doc[0]}`, `/api/files/media/${rec.id}/other.txt`, `/api/files/media/${rec.id}/..%2F..%2Fdata.db`]) {
      const res = await fetch(`${fx.server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ status: 404, message: 'Not found.', data: {} });
    }
  });
});

describe('thumbnails', () => {
  it('makes each listed size once, with the crop and fit it names, and caches it beside the file', async () => {
    const rec = await pb.collection('media').create({ image: file(await png(100, 50), 'wide.png') });
    const sizes: Record<string, [number, number]> = { '50x20': [50, 20], '50x20t': [50, 20], '50x20b': [50, 20], '50x20f': [40, 20], '0x30': [60, 30], '30x0': [30, 15], '100x100': [100, 100] };
    for (const [size, [w, h]] of Object.entries(sizes)) {
      const res = await fetch(pb.files.getURL(rec, rec.image, { thumb: size }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="${size}_${rec.image}"`);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([meta.width, meta.height], size).toEqual([w, h]);
    }
    expect(await fx.thumbsOf(mediaId, rec.id, rec.image)).toEqual(Object.keys(sizes).map((s) => `${s}_${rec.image}`).sort());
  });

  it('answers the original for a size the field does not list, and for a file that is no image', async () => {
    const bytes = await png(64, 64);
    const rec = await pb.collection('media').create({ image: file(bytes, 'sq.png'), doc: file('text', 't.txt') });
    const other = await fetch(pb.files.getURL(rec, rec.image, { thumb: '10x10' }));
    expect(Buffer.from(await other.arrayBuffer()).equals(bytes)).toBe(true);
    const text = await fetch(pb.files.getURL(rec, rec.doc[0], { thumb: '100x100' }));
    expect(await text.text()).toBe('text');
  });

  it('tries a thumbnail that cannot be made once: later requests get the original without decoding it again', async () => {
    // an image cut short: its header reads as a PNG, its pixels cannot be decoded (a large interlaced
    // one costs seconds of CPU and hundreds of MiB per try, so a client asking again and again must not
    // make the server try again and again)
    const whole = await png(200, 100);
    const cut = whole.subarray(0, 80);
    const rec = await pb.collection('media').create({ image: file(cut, 'cut.png') });
    const thumbs = fx.server.core.files.thumbs;
    const before = thumbs.tried;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(pb.files.getURL(rec, rec.image, { thumb: '50x20' }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="${rec.image}"`);
      expect(Buffer.from(await res.arrayBuffer()).equals(cut)).toBe(true);
    }
    expect(thumbs.tried - before).toBe(1);
    expect(await fx.thumbsOf(mediaId, rec.id, rec.image)).toEqual([]);
  });

  it('generates a thumbnail once for concurrent first requests', async () => {
    const rec = await pb.collection('media').create({ image: file(await png(300, 200), 'big.png') });
    const before = fx.server.core.files.thumbs.generated;
    const all = await Promise.all(Array.from({ length: 8 }, () => fetch(pb.files.getURL(rec, rec.image, { thumb: '50x20' })).then((r) => r.arrayBuffer())));
    expect(new Set(all.map((b) => Buffer.from(b).toString('base64'))).size).toBe(1);
    expect(fx.server.core.files.thumbs.generated - before).toBe(1);
  });
});

describe('protected files', () => {
  it('need a file token whose owner passes the viewRule; getToken and getURL carry it', async () => {
    const users = fx.client();
    const alice = await users.collection('users').create({ email: 'alice@example.com', password: 'password123', passwordConfirm: 'password123' });
    await users.collection('users').create({ email: 'bob@example.com', password: 'password123', passwordConfirm: 'password123' });
    const rec = await pb.collection('media').create({ owner: alice.id, secret: file('top secret', 's.txt') });
    const noToken = await fetch(pb.files.getURL(rec, rec.secret));
    expect(noToken.status).toBe(404);
    await noToken.arrayBuffer();

    const asAlice = fx.client();
    await asAlice.collection('users').authWithPassword('alice@example.com', 'password123');
    const token = await asAlice.files.getToken();
    expect(token.split('.')).toHaveLength(3);
    const ok = await fetch(asAlice.files.getURL(rec, rec.secret, { token }));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('top secret');
    expect(ok.headers.get('cache-control')).toMatch(/^private/);

    const asBob = fx.client();
    await asBob.collection('users').authWithPassword('bob@example.com', 'password123');
    const bobs = await fetch(asBob.files.getURL(rec, rec.secret, { token: await asBob.files.getToken() }));
    expect(bobs.status).toBe(404);
    await bobs.arrayBuffer();

    const forged = await fetch(asAlice.files.getURL(rec, rec.secret, { token: token.slice(0, -2) + 'xx' }));
    expect(forged.status).toBe(404);
    await forged.arrayBuffer();

    // signing out ends the session the token names
    await fetch(`${fx.server.url}/api/session`, { method: 'DELETE', headers: { authorization: asAlice.authStore.token } });
    const after = await fetch(asAlice.files.getURL(rec, rec.secret, { token }));
    expect(after.status).toBe(404);
    await after.arrayBuffer();
  });

  it('a file token is only for signed-in callers', async () => {
    const res = await fetch(`${fx.server.url}/api/files/token`, { method: 'POST' });
    expect(res.status).toBe(401);
    await res.arrayBuffer();
  });
});
