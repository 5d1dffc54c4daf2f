// The record create served straight from node:http (server/http/fast-creates.ts) answers exactly what
// the app answers: each create is sent twice over a real socket, once as it is (the fast path) and once
// with an unrelated cookie (any cookie leaves a request to the h3 app), and the two answers (status,
// headers, body: the new record's id and dates aside) and their logs must be the same. Rules reading
// the caller, the body, the query and the headers, validation, a locked rule, an unknown collection, a
// view, bodies that are not objects or not JSON are among them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { createBodyServices } from '../../server/http/body-services.js';
import { fastCreates } from '../../server/http/fast-creates.js';
import { sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();
let userToken = '';
let adminToken = '';
let ownerId = '';

interface Answer { status: number; headers: Record<string, string>; body: string }

async function post(path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const r = await fetch(`${sdk.server.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const kept: Record<string, string> = {};
  // the framing (content-length or chunked) may differ: the app streams its error envelopes
  r.headers.forEach((value, key) => { if (key !== 'date' && key !== 'content-length' && key !== 'transfer-encoding') kept[key] = value; });
  return { status: r.status, headers: kept, body: await r.text() };
}

/** A new record's own id and dates differ between two creates: the rest must not. */
const comparable = (a: Answer) => ({ ...a, body: a.body.replace(/"(id|created|updated)":"[^"]*"/g, '"$1":"?"') });

/** The same POST through the fast path and through the app; both answers compared. */
async function same(path: string, body: unknown, extra: Record<string, string> = {}): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const fast = await post(path, text, { ...extra, 'user-agent': 'fast-creates-test/fast' });
  const app = await post(path, text, { ...extra, 'user-agent': 'fast-creates-test/app', cookie: 'unrelated=1' });
  expect(comparable(fast), `${path} ${text}`).toEqual(comparable(app));
  return fast;
}

interface Log { message: string; level: number; data: Record<string, unknown> }

async function logsBy(agent: string): Promise<Log[]> {
  await sdk.server.logs.logger.flush();
  const page = await sdk.admin.logs.getList(1, 500, { filter: `data.userAgent = '${agent}'`, sort: '@rowid' });
  return page.items as unknown as Log[];
}

beforeAll(async () => {
  const admin: PocketBase = sdk.admin;
  adminToken = admin.authStore.token;
  await admin.collection('users').create({ email: 'writer@example.com', password: 'writer password 1', passwordConfirm: 'writer password 1', name: 'Writer' });
  const user = sdk.client();
  await user.collection('users').authWithPassword('writer@example.com', 'writer password 1');
  userToken = user.authStore.token;
  ownerId = user.authStore.record!.id;
  const usersId = (await admin.collections.getOne('users')).id;
  await admin.collections.create({
    name: 'notes', type: 'base', listRule: '', viewRule: '',
    createRule: "@request.auth.id != '' && (@request.body.title != 'forbidden' || @request.query.force = 'yes' || @request.headers.x_force = 'yes')",
    fields: [
      { name: 'title', type: 'text', required: true, max: 20 },
      { name: 'count', type: 'number' },
      { name: 'hidden', type: 'bool' },
      { name: 'owner', type: 'relation', collectionId: usersId, maxSelect: 1 },
    ],
  });
  await admin.collections.create({ name: 'locked', type: 'base', createRule: null, fields: [{ name: 'title', type: 'text' }] });
  await admin.collections.create({ name: 'notes_view', type: 'view', listRule: '', viewRule: '', viewQuery: 'SELECT id, title FROM notes' });
});

describe('record creates served from node:http', () => {
  it('a create answers as the app: created, refused by its rule or validation, locked, unknown, a view', async () => {
    const user = { authorization: `Bearer ${userToken}` };
    const created = await same('/api/collections/notes/records', { title: 'hello', count: 3, hidden: true, owner: ownerId, extra: 'kept for rules only' }, user);
    expect(created.status).toBe(200);
    expect(JSON.parse(created.body)).toMatchObject({ collectionName: 'notes', title: 'hello', count: 3, hidden: true, owner: ownerId });
    expect((await same('/api/collections/notes/records', { title: 'bare token' }, { authorization: userToken })).status).toBe(200);
    expect((await same('/api/collections/notes/records?expand=owner&fields=title,expand.owner.name', { title: 'expanded', owner: ownerId }, user)).body).toContain('Writer');
    expect((await same('/api/collections/notes/records', { title: 'guest' })).status).toBe(400);
    expect((await same('/api/collections/notes/records', { title: 'forbidden' }, user)).status).toBe(400);
    expect((await same('/api/collections/notes/records?force=yes', { title: 'forbidden' }, user)).status).toBe(200);
    expect((await same('/api/collections/notes/records', { title: 'forbidden' }, { ...user, 'x-force': 'yes' })).status).toBe(200);
    expect((await same('/api/collections/notes/records', { title: '' }, user)).status).toBe(400);
    expect((await same('/api/collections/notes/records', { title: 'x'.repeat(30), owner: 'nosuchuser0000' }, user)).body).toContain('validation_');
    expect((await same('/api/collections/notes/records', { title: 'own id', id: 'bad id!' }, user)).status).toBe(400);
    expect((await same('/api/collections/locked/records', { title: 'locked' }, user)).status).toBe(403);
    expect((await same('/api/collections/locked/records', { title: 'by a superuser' }, { authorization: adminToken })).status).toBe(200);
    expect((await same('/api/collections/nosuch/records', { title: 'x' }, user)).status).toBe(404);
    expect((await same('/api/collections/notes_view/records', { title: 'x' }, { authorization: adminToken })).status).toBe(400);
  });

  it('a body that is not a JSON object answers as the app', async () => {
    const user = { authorization: `Bearer ${userToken}` };
    expect((await same('/api/collections/notes/records', '{"title": ', user)).status).toBe(400);
    expect((await same('/api/collections/notes/records', '[1, 2]', user)).status).toBe(400);
    expect((await same('/api/collections/notes/records', '', user)).status).toBe(400); // {}: title is required
    expect((await same('/api/collections/notes/records', `{${Array.from({ length: 2000 }, (_, i) => `"k${i}":1`).join(',')}}`, user)).status).toBe(400);
    // a create locked to superusers, and an unknown collection, answered before the body is read
    expect((await same('/api/collections/locked/records', '{"title": ', user)).status).toBe(403);
    expect((await same('/api/collections/nosuch/records', '{"title": ', user)).status).toBe(404);
  });

  it('each create is logged as the app logs it', async () => {
    await same('/api/collections/notes/records?perPage=5', { title: 'logged' }, { authorization: `Bearer ${userToken}` });
    await same('/api/collections/locked/records', { title: 'refused' }, { authorization: `Bearer ${userToken}` });
    const [fast, app] = [await logsBy('fast-creates-test/fast'), await logsBy('fast-creates-test/app')];
    expect(fast.length).toBeGreaterThan(10);
    expect(fast.length).toBe(app.length);
    const shape = (l: Log) => ({ message: l.message, level: l.level, data: { ...l.data, execTime: typeof l.data.execTime, userAgent: undefined } });
    expect(fast.map(shape)).toEqual(app.map(shape));
    expect(fast.find((l) => l.message.includes('/locked/'))).toMatchObject({ level: 8, data: { status: 403, auth: 'users', method: 'POST', remoteIP: '127.0.0.1' } });
  });
});

describe('which requests the fast path takes', () => {
  let server: Server;
  let url = '';
  const served: boolean[] = [];
  beforeAll(async () => {
    const take = fastCreates({
      core: sdk.server.core, routes: ['/api/collections/:collection/records/import', '/api/collections/:collection/auth-with-password'],
      bodies: createBodyServices(), allowHost: () => true, logs: undefined, log: () => undefined,
    });
    server = createServer((req, res) => {
      const taken = take(req, res);
      served.push(taken);
      if (!taken) res.writeHead(599).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function taken(path: string, init: RequestInit = {}): Promise<{ taken: boolean; status: number; body: string }> {
    const r = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify({ title: 'direct' }), ...init, headers: { 'content-type': 'application/json', authorization: userToken, ...(init.headers as Record<string, string> | undefined) } });
    const body = await r.text();
    return { taken: served.at(-1)!, status: r.status, body };
  }

  it('a plain JSON create is served and written; anything else is left to the app', async () => {
    const direct = await taken('/api/collections/notes/records');
    expect(direct).toMatchObject({ taken: true, status: 200 });
    const id = (JSON.parse(direct.body) as { id: string }).id;
    expect((await sdk.admin.collection('notes').getOne(id)).title).toBe('direct');
    expect((await taken('/api/collections/notes/records', { headers: { 'content-type': 'Application/JSON; charset=utf-8' } })).taken).toBe(true);
    expect((await taken('/api/collections/notes/records', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'title=form' })).taken).toBe(false);
    const form = new FormData();
    form.set('title', 'multipart');
    expect((await taken('/api/collections/notes/records', { body: form, headers: { 'content-type': undefined as unknown as string } })).taken).toBe(false);
    expect((await taken('/api/collections/notes/records', { headers: { cookie: 'unrelated=1' } })).taken).toBe(false);
    expect((await taken('/api/collections/no%74es/records')).taken).toBe(false);
    expect((await taken('/api/collections/notes/records/')).taken).toBe(false);
    expect((await taken('/api/collections/notes/records/import')).taken).toBe(false);
    expect((await taken('/api/collections/notes/auth-with-password')).taken).toBe(false);
    expect((await taken('/api/collections/notes/records', { method: 'PUT' })).taken).toBe(false);
  });
});
