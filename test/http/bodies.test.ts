// Request bodies are read only as far as an endpoint needs: sign-in and setup take small bodies by
// nature (a 413 past 64 KiB, before the body is read), and every JSON or form body is refused with a
// 400 as soon as its raw bytes show more keys, values or nesting than MAX_BODY_KEYS, MAX_JSON_VALUES or
// MAX_JSON_DEPTH, before anything parses it (three 30 MB bodies of 2.4 million keys to sign-in stalled
// the server for 6 s). Large bodies are parsed off the event loop and give what small ones give.
// Multipart boundaries keep their case (browsers send `----WebKitFormBoundaryAbC...`).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_BODY_BYTES, COLLECTION_BODY_BYTES } from '../../server/http/body.js';
import { MAX_BODY_KEYS, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../server/http/body-shape.js';
import type { RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

let server: RunningServer;
let su: string;
beforeAll(async () => {
  ({ server, su } = await liveServer());
  const r = await http(server.url, 'POST', '/api/collections', {
    token: su,
    body: {
      name: 'notes', createRule: '', listRule: '', viewRule: '',
      fields: [{ name: 'text', type: 'text', max: 1_000_000 }, { name: 'data', type: 'json', maxSize: 4_000_000 }, { name: 'n', type: 'number' }, { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 }],
    },
  });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => { await server.close(); });

const notes = '/api/collections/notes/records';
const send = (path: string, raw: string, type: string) => http(server.url, 'POST', path, { raw, headers: { 'content-type': type } });
const json = (value: unknown) => JSON.stringify(value);
const nested = (depth: number) => `${'['.repeat(depth - 1)}{"k":1}${']'.repeat(depth - 1)}`;
const multipart = (boundary: string, parts: [string, string][]) =>
  parts.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`;

describe('endpoints read only the body they need', () => {
  it.each([
    ['sign-in', '/api/collections/users/auth-with-password'],
    ['setup', '/api/setup'],
  ])('%s: a body past 64 KiB is a 413', async (_name, path) => {
    const r = await send(path, json({ identity: 'a@b.co', password: 'x'.repeat(AUTH_BODY_BYTES) }), 'application/json');
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 413, message: 'Request entity too large.', data: {} });
  });

  it('sign-in and collection bodies under their limits are read', async () => {
    const r = await send('/api/collections/users/auth-with-password', json({ identity: 'nobody@example.com', password: 'wrong password', pad: 'x'.repeat(AUTH_BODY_BYTES - 200) }), 'application/json');
    expect(r.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    const big = await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'big', pad: 'y'.repeat(COLLECTION_BODY_BYTES) } });
    expect(big.status).toBe(413);
  });
});

describe('multipart bodies outside records: the same streaming parser and limits (http/multipart.ts)', () => {
  const type = 'multipart/form-data; boundary=XyZ';

  it('a sign-in sent as a form is read (a wrong password is the sign-in answer, not a malformed body)', async () => {
    const r = await send('/api/collections/users/auth-with-password', multipart('XyZ', [['identity', 'nobody@example.com'], ['password', 'wrong password']]), type);
    expect(r.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
  });

  it("past the endpoint's limit a 413, chunked or declared", async () => {
    const r = await send('/api/collections/users/auth-with-password', multipart('XyZ', [['identity', 'a@b.co'], ['password', 'x'.repeat(AUTH_BODY_BYTES)]]), type);
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 413, message: 'Request entity too large.', data: {} });
  });

  it('past 20,000 parts a 400 naming the bound; a form without a boundary is malformed', async () => {
    const parts = Array.from({ length: MAX_BODY_KEYS + 1 }, (_, i): [string, string] => [`k${i}`, '1']);
    const r = await http(server.url, 'POST', '/api/collections', { token: su, raw: multipart('XyZ', parts), headers: { 'content-type': type } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/more than 20000 form fields/);
    const bare = await send('/api/collections/users/auth-with-password', multipart('XyZ', [['identity', 'a@b.co']]), 'multipart/form-data');
    expect(bare.body).toEqual({ status: 400, message: 'Failed to load the submitted data due to invalid formatting.', data: {} });
  });
});

describe('the shape of a body is bounded before it is parsed', () => {
  const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;

  it.each([
    ['JSON keys', keys(MAX_BODY_KEYS), keys(MAX_BODY_KEYS + 1), 'application/json', /more than 20000 keys/],
    ['JSON values', json({ data: Array.from({ length: MAX_JSON_VALUES - 10 }, () => 0) }), json({ data: Array.from({ length: MAX_JSON_VALUES + 1 }, () => 0) }), 'application/json', /more than 200000 values/],
    ['JSON nesting', `{"data":${nested(MAX_JSON_DEPTH - 1)}}`, `{"data":${nested(MAX_JSON_DEPTH)}}`, 'application/json', /nested deeper than 64 levels/],
    ['urlencoded fields', 'k=1&'.repeat(MAX_BODY_KEYS), 'k=1&'.repeat(MAX_BODY_KEYS + 1), 'application/x-www-form-urlencoded', /more than 20000 form fields/],
  ])('%s: at the bound accepted, past it a 400', async (_name, atBound, past, type, message) => {
    const ok = await send(notes, atBound, type);
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    const refused = await send(notes, past, type);
    expect(refused.status).toBe(400);
    expect(refused.body.data).toEqual({});
    expect(refused.body.message).toMatch(message);
  });

  it('multipart parts: past the bound a 400', async () => {
    const parts = Array.from({ length: MAX_BODY_KEYS + 1 }, (_, i): [string, string] => [`k${i}`, '1']);
    const r = await send(notes, multipart('XyZ', parts), 'multipart/form-data; boundary=XyZ');
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/more than 20000 form fields/);
  });

  it('F6: the keys of all @jsonPayload parts count together, multipart and urlencoded', async () => {
    // each part alone is well under the limit; together they pass it
    const part = (p: number) => keys(1000).replace(/"k/g, `"p${p}k`);
    const parts = Array.from({ length: 21 }, (_, p): [string, string] => ['@jsonPayload', part(p)]);
    const r = await send(notes, multipart('XyZ', parts), 'multipart/form-data; boundary=XyZ');
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.body.message).toMatch(/more than 20000 keys/);
    const form = parts.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const u = await send(notes, form, 'application/x-www-form-urlencoded');
    expect(u.status).toBe(400);
    expect(u.body.message).toMatch(/more than 20000 keys/);
    // under the limit together, every part is merged in order, later ones winning (PocketBase's order)
    const ok = await send(notes, multipart('XyZ', [['@jsonPayload', json({ text: 'a', n: 1 })], ['@jsonPayload', json({ text: 'b' })]]), 'multipart/form-data; boundary=XyZ');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ text: 'b', n: 1 });
  });

  it('strings full of colons, commas, brackets and escaped quotes count as one value each', async () => {
    const tricky = '\\":,{[\\\\'.repeat(40_000);
    const r = await send(notes, `{"text":"${tricky}","data":{"s":"${tricky}"}}`, 'application/json');
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.text).toBe(JSON.parse(`"${tricky}"`));
  });

  it('a body with far too many keys is refused while it is still arriving', async () => {
    const socket = net.connect(server.port, '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (d: Buffer) => {
        data += d.toString();
        if (data.includes('\r\n\r\n')) resolve(data);
      });
    });
    socket.on('error', () => undefined);
    // declares 30 MB, sends 1 MB of keys, and waits
    socket.write(`POST ${notes} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${30_000_000}\r\n\r\n`);
    socket.write(keys(60_000).slice(0, 1_000_000));
    const head = await answer;
    socket.destroy();
    expect(head.split(' ')[1]).toBe('400');
  });
});

describe('large bodies parse as small ones do', () => {
  const text = 'Grüße, 😀 — '.repeat(10_000); // about 150 KB: parsed off the event loop
  // an own `__proto__` key, as JSON.parse makes it: stored and returned like any other
  const data: unknown = JSON.parse(json({ list: Array.from({ length: 5000 }, (_, i) => ({ i, s: `v${i}` })) }).replace(/}$/, ',"__proto__":{"kept":true}}'));

  it.each([
    ['JSON', json({ text, data, n: 7, tags: ['a', 'c'] }), 'application/json'],
    ['urlencoded', new URLSearchParams([['text', text], ['data', json(data)], ['n', '7'], ['tags', 'a'], ['tags', 'c']]).toString(), 'application/x-www-form-urlencoded'],
    ['multipart', multipart('----WebKitFormBoundaryAbC123xYz', [['text', text], ['@jsonPayload', json({ data, n: 7 })], ['tags', 'a'], ['tags', 'c']]), 'multipart/form-data; boundary=----WebKitFormBoundaryAbC123xYz'],
  ])('%s', async (_name, raw, type) => {
    const r = await send(notes, raw, type);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.text).toBe(text);
    expect(r.body.data).toEqual(JSON.parse(json(data)));
    expect(Object.keys(r.body.data)).toEqual(['list', '__proto__']);
    expect(r.body.n).toBe(7);
    expect(r.body.tags).toEqual(['a', 'c']);
  });
});

describe('multipart boundaries keep their case', () => {
  it.each([
    ['a browser\'s boundary', '----WebKitFormBoundaryAbC7dEfGhIjKlMnO', 'multipart/form-data; boundary=----WebKitFormBoundaryAbC7dEfGhIjKlMnO'],
    ['a quoted boundary', 'Quoted-BOUNDARY', 'multipart/form-data; boundary="Quoted-BOUNDARY"'],
    ['an upper-case media type', 'MiXeD', 'Multipart/Form-Data; Boundary=MiXeD'],
  ])('%s', async (_name, boundary, type) => {
    const r = await send(notes, multipart(boundary, [['text', 'hello'], ['n', '3']]), type);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ text: 'hello', n: 3 });
  });
});
