// The record reads served straight from node:http (server/http/fast-reads.ts) answer exactly what the
// app answers: each request is sent twice over a real socket, once as it is (the fast path) and once
// with an unrelated cookie (any cookie leaves a request to the h3 app), and the two answers (status,
// headers, body) and their logs must be the same. Rules reading the caller, the query and the headers,
// a bad filter, a locked rule, a missing record or collection, expand and fields are among them.
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type PocketBase from 'pocketbase';
import { sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();
let userToken = '';
let adminToken = '';
const ids: Record<string, string> = {};

interface Answer { status: number; headers: Record<string, string>; body: string }

async function get(path: string, headers: Record<string, string>): Promise<Answer> {
  const r = await fetch(`${sdk.server.url}${path}`, { headers });
  const kept: Record<string, string> = {};
  // the framing (content-length or chunked) may differ: the app streams its error envelopes
  r.headers.forEach((value, key) => { if (key !== 'date' && key !== 'content-length' && key !== 'transfer-encoding') kept[key] = value; });
  return { status: r.status, headers: kept, body: await r.text() };
}

interface Log { message: string; level: number; data: Record<string, unknown> }

async function logsBy(agent: string): Promise<Log[]> {
  await sdk.server.logs.logger.flush();
  const page = await sdk.admin.logs.getList(1, 500, { filter: `data.userAgent = '${agent}'`, sort: '@rowid' });
  return page.items as unknown as Log[];
}

/** The same GET through the fast path and through the app; both answers and both logs compared. */
async function same(path: string, extra: Record<string, string> = {}): Promise<Answer> {
  const fast = await get(path, { ...extra, 'user-agent': 'fast-reads-test/fast' });
  const app = await get(path, { ...extra, 'user-agent': 'fast-reads-test/app', cookie: 'unrelated=1' });
  expect(fast, path).toEqual(app);
  return fast;
}

beforeAll(async () => {
  const admin: PocketBase = sdk.admin;
  adminToken = admin.authStore.token;
  await admin.collection('users').create({ email: 'reader@example.com', password: 'reader password 1', passwordConfirm: 'reader password 1', name: 'Reader' });
  const user = sdk.client();
  await user.collection('users').authWithPassword('reader@example.com', 'reader password 1');
  userToken = user.authStore.token;
  const usersId = (await admin.collections.getOne('users')).id;
  await admin.collections.create({
    name: 'notes', type: 'base',
    listRule: "hidden = false || @request.auth.id != '' || @request.query.peek = 'yes' || @request.headers.x_peek = 'yes'",
    viewRule: "hidden = false || @request.auth.id != ''",
    fields: [
      { name: 'title', type: 'text' },
      { name: 'hidden', type: 'bool' },
      { name: 'owner', type: 'relation', collectionId: usersId, maxSelect: 1 },
    ],
  });
  await admin.collections.create({ name: 'locked', type: 'base', listRule: null, viewRule: null, fields: [{ name: 'title', type: 'text' }] });
  const owner = (await admin.collection('users').getFirstListItem("email = 'reader@example.com'")).id;
  for (const [key, title, hidden] of [['open', 'open note', false], ['secret', 'secret note', true], ['other', 'other open', false]] as const) {
    ids[key] = (await admin.collection('notes').create({ title, hidden, owner })).id;
  }
  ids.locked = (await admin.collection('locked').create({ title: 'locked one' })).id;
});

describe('record reads served from node:http', () => {
  it('a view answers as the app: found, hidden by its rule, missing, locked, unknown collection', async () => {
    expect((await same(`/api/collections/notes/records/${ids.open}`)).status).toBe(200);
    expect((await same(`/api/collections/notes/records/${ids.secret}`)).status).toBe(404);
    expect((await same(`/api/collections/notes/records/${ids.secret}`, { authorization: `Bearer ${userToken}` })).status).toBe(200);
    expect((await same(`/api/collections/notes/records/${ids.secret}`, { authorization: userToken })).status).toBe(200); // the SDK's bare token
    expect((await same('/api/collections/notes/records/nosuchrecord1')).status).toBe(404);
    expect((await same(`/api/collections/locked/records/${ids.locked}`)).status).toBe(403);
    expect((await same(`/api/collections/locked/records/${ids.locked}`, { authorization: adminToken })).status).toBe(200);
    expect((await same('/api/collections/nosuch/records/abc')).status).toBe(404);
    // another route's static segment wins over `:id`, as in the app's router: the records export
    expect((await same('/api/collections/notes/records/export?format=json', { authorization: adminToken })).status).toBe(200);
    // the owner is shown to itself only (users' rules): expanded for it, left out for a guest
    const expanded = `/api/collections/notes/records/${ids.open}?expand=owner&fields=id,title,expand.owner.name`;
    expect((await same(expanded, { authorization: userToken })).body).toContain('Reader');
    expect((await same(expanded)).body).not.toContain('Reader');
  });

  it("a request with the session cookie is the app's (caller.ts reads it), whatever the header's case", async () => {
    const path = `/api/collections/notes/records/${ids.secret}`;
    expect((await get(path, { cookie: `service_session=${userToken}` })).status).toBe(200);
    const { hostname, port } = new URL(sdk.server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ hostname, port, path, headers: [['Host', `${hostname}:${port}`], ['COOKIE', `service_session=${userToken}`]].flat(), agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect((await get(path, {})).status).toBe(404);
  });

  it('a list answers as the app: rules over the caller, query and headers; filter, sort, paging, expand, fields', async () => {
    const count = async (path: string, extra: Record<string, string> = {}) => (JSON.parse((await same(path, extra)).body) as { totalItems: number }).totalItems;
    expect(await count('/api/collections/notes/records')).toBe(2);
    expect(await count('/api/collections/notes/records?peek=yes')).toBe(3);
    expect(await count('/api/collections/notes/records', { 'x-peek': 'yes' })).toBe(3);
    expect(await count('/api/collections/notes/records', { authorization: `Bearer ${userToken}` })).toBe(3);
    expect(await count('/api/collections/notes/records', { authorization: 'Bearer not-a-token-of-this-server' })).toBe(2);
    const filter = encodeURIComponent("title ~ 'open' && owner.name = 'Reader'");
    expect(await count(`/api/collections/notes/records?filter=${filter}&sort=-title,id&expand=owner&fields=id,title,expand`, { authorization: userToken })).toBe(2);
    expect(await count(`/api/collections/notes/records?filter=${filter}`)).toBe(0);
    expect(await count('/api/collections/notes/records?page=2&perPage=1&skipTotal=1')).toBe(-1);
    expect(await count('/api/collections/notes/records?')).toBe(2);
    expect((await same(`/api/collections/notes/records?filter=${encodeURIComponent('title ~')}`)).status).toBe(400);
    expect((await same('/api/collections/notes/records?sort=nosuchfield')).status).toBe(400);
    expect((await same('/api/collections/notes/records?fields=id,:excerpt(')).status).toBe(400);
    expect((await same('/api/collections/locked/records')).status).toBe(403);
  });

  it('each read is logged as the app logs it', async () => {
    await same(`/api/collections/notes/records?filter=${encodeURIComponent("title = 'logged'")}&perPage=5`);
    await same('/api/collections/notes/records/nosuchrecord2', { authorization: `Bearer ${userToken}` });
    const [fast, app] = [await logsBy('fast-reads-test/fast'), await logsBy('fast-reads-test/app')];
    expect(fast.length).toBeGreaterThan(10);
    expect(fast.length).toBe(app.length);
    const shape = (l: Log) => ({ message: l.message, level: l.level, data: { ...l.data, execTime: typeof l.data.execTime, userAgent: undefined } });
    expect(fast.map(shape)).toEqual(app.map(shape));
    const missing = fast.find((l) => l.message.endsWith('nosuchrecord2'));
    expect(missing).toMatchObject({ level: 8, data: { status: 404, auth: 'users', method: 'GET', remoteIP: '127.0.0.1', error: expect.any(String) } });
  });

  it('the CORS headers come once on every fast answer, success and error alike', async () => {
    for (const path of [`/api/collections/notes/records/${ids.open}`, '/api/collections/notes/records/nosuchrecord3', '/api/collections/notes/records']) {
      const r = await fetch(`${sdk.server.url}${path}`);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-max-age')).toBe('86400');
    }
  });
});
